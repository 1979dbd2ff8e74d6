// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation

/// Scratch directories and built executables for tests.
public enum TestFiles {
    /// The project's root: the nearest folder above this file that holds `Package.swift`, so
    /// that it stays right wherever the test files are moved.
    public static let projectRoot: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/", !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            dir = dir.deletingLastPathComponent()
        }
        return dir
    }()

    /// Creates a fresh, empty directory under the system temporary directory.
    public static func temporaryDirectory(_ prefix: String = "imago-tests") throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// An executable product built beside the test bundle (`imago`, test helpers).
    public static func builtProduct(_ name: String) -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [bundle, bundle.deletingLastPathComponent()] {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return bundle.appendingPathComponent(name)
    }
}
