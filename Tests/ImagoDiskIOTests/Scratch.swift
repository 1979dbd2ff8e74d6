// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Glibc

/// A fresh directory under the system temporary directory, one per test; `remove()` deletes it.
struct Scratch {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imago-diskio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    /// `name` below the directory (it may hold `/`).
    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` with Foundation, replacing what is there, and returns its path.
    @discardableResult
    func put(_ name: String, _ bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
        return file(name)
    }

    /// The bytes of `name`, read with Foundation; `nil` when it cannot be read.
    func contents(_ name: String) -> [UInt8]? { FileManager.default.contents(atPath: file(name)).map { [UInt8]($0) } }

    /// The names in the directory itself, hidden ones included, sorted.
    func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// `count` bytes of 3, 10, 17, … (each `i * 7 + 3` modulo 256).
func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }

/// `strerror(code)` as a string: the reason ``DiskIOError`` and ``ConfinedFile`` report.
func systemReason(_ code: Int32) -> String { String(cString: strerror(code)) }
