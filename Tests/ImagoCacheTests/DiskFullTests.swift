// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs for out-of-space tests; `nil` where mounting is not permitted.
enum TinyFilesystem {
    static func mount(bytes: Int) -> URL? {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imago-full-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)) != nil else { return nil }
        guard Glibc.mount("tmpfs", dir.path, "tmpfs", 0, "size=\(bytes)") == 0 else {
            try? FileManager.default.removeItem(at: dir)
            return nil
        }
        return dir
    }

    static func unmount(_ dir: URL) {
        umount2(dir.path, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(at: dir)
    }

    static let available: Bool = {
        guard let dir = mount(bytes: 65536) else { return false }
        unmount(dir)
        return true
    }()
}

@Suite(
    "DiskCache on a full disk",
    .enabled(if: TinyFilesystem.available, "needs permission to mount a tmpfs (root); disk-full test skipped"))
struct DiskFullTests {
    @Test("running out of space throws, keeps every listed entry intact, and recovers after removals")
    func fullDisk() throws {
        let dir = try #require(TinyFilesystem.mount(bytes: 512 * 1024))
        defer { TinyFilesystem.unmount(dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(maxAge: nil, inlineThreshold: 0))
        var written: [String: Data] = [:]
        var failure: (any Error)?
        for i in 0..<100 {
            let value = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &+ i &* 7) })
            do {
                try cache.setData(value, forKey: "k\(i)")
                written["k\(i)"] = value
            } catch {
                failure = error
                break
            }
        }
        let error = try #require(failure, "the filesystem never filled")
        #expect(error is DiskCacheError, "\(error)")
        #expect(!written.isEmpty)
        // Everything the cache lists reads back exactly as written; nothing half-written remains.
        for entry in try cache.entries() {
            #expect(try cache.data(forKey: entry.key) == written[entry.key], "\(entry.key)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.directory.appendingPathComponent("data").path)
        #expect(!files.contains { $0.hasPrefix(".tmp-") })
        // Freeing space makes writes work again.
        for key in written.keys.sorted().prefix(5) { try cache.removeValue(forKey: key) }
        try cache.setData(Data(repeating: 9, count: 40_000), forKey: "after")
        #expect(try cache.data(forKey: "after") == Data(repeating: 9, count: 40_000))
    }
}
