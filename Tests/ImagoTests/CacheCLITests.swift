// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Imago
import Testing

@Suite("imago cache")
struct CacheCLITests {
    @Test("stats, list, trim and clear over a cache the library wrote")
    func commands() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(maxAge: nil, inlineThreshold: 0, accessTimeResolution: .zero))
        for i in 0..<10 { try cache.setData(Data(repeating: UInt8(i), count: 1000), forKey: "https://x.test/\(i).png") }
        _ = try cache.data(forKey: "https://x.test/0.png")  // 0 becomes most recently used
        try cache.flushAccessTimes()

        let stats = try await CLI.run(["cache", "stats", "--cache-dir", dir.path, "--json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(object["entries"] as? Int == 10 && object["bytes"] as? Int == 10_000)

        let list = try await CLI.run(["cache", "list", "--cache-dir", dir.path])
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 10 && lines.last?.hasSuffix("https://x.test/0.png") == true)
        #expect(lines.first?.hasPrefix("1000\t") == true)

        let trim = try await CLI.run(["cache", "trim", "--cache-dir", dir.path, "--max-size", "6000"])
        #expect(trim.status == 0 && trim.stdout.contains("removed 7 entries"), "\(trim.stdout) \(trim.stderr)")
        let remaining = try DiskCache(directory: dir, maxAge: nil)
        #expect(try remaining.contains("https://x.test/0.png") && remaining.statistics().count == 3)

        let clear = try await CLI.run(["cache", "clear", "--cache-dir", dir.path])
        #expect(clear.status == 0 && clear.stdout.contains("removed 3 entries"))
        #expect(try remaining.statistics().count == 0)
    }

    @Test("the default directory follows XDG_CACHE_HOME")
    func xdg() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try await CLI.run(["cache", "stats"], environment: ["XDG_CACHE_HOME": dir.path])
        #expect(r.status == 0 && r.stdout.contains(dir.appendingPathComponent("imago").path))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("imago/default/manifest.sqlite").path))
        let bad = try await CLI.run(["cache", "trim", "--cache-dir", dir.path, "--max-size", "-1"])
        #expect(bad.status != 0)
    }
}
