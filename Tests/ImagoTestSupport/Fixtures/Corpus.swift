// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Testing

/// Locates the third-party conformance corpus (../shared/corpus from the project root,
/// or `$IMAGO_CORPUS`). Tests that read it are disabled, with a visible reason, when absent.
public enum Corpus {
    /// The corpus root.
    public static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["IMAGO_CORPUS"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        // The project's root -> ../shared/corpus
        return TestFiles.projectRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }()

    /// Whether the corpus is present.
    public static let isAvailable = FileManager.default.fileExists(atPath: root.appendingPathComponent("README.md").path)

    /// The reason shown when corpus tests are skipped.
    public static let missingReason: Comment = "conformance corpus not found at \(root.path) (set IMAGO_CORPUS); corpus tests skipped"

    /// A file inside the corpus.
    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// The bytes of a corpus file.
    public static func data(_ path: String) throws -> Data { try Data(contentsOf: url(path)) }

    /// Every regular file below `folder`, sorted, excluding the corpus's own text files.
    public static func files(in folder: String, extensions: Set<String>? = nil) -> [URL] {
        let base = url(folder)
        guard let e = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var out: [URL] = []
        for case let u as URL in e {
            guard (try? u.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let name = u.lastPathComponent
            if ["SOURCES.txt", "MANIFEST.tsv", "LICENSE", "README.md"].contains(name) || name.hasPrefix("LICENSE") { continue }
            if let extensions, !extensions.contains(u.pathExtension.lowercased()) { continue }
            out.append(u)
        }
        return out.sorted { $0.path < $1.path }
    }
}

/// Swift Testing's `Comment`, the type of the `missingReason` skip messages, available to every
/// module that imports this one.
public typealias Comment = Testing.Comment
