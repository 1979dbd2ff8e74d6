// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoTestSupport
import Testing

@Suite("DiskCache")
struct DiskCacheTests {
    func makeDirectory() throws -> URL {
        try TestFiles.temporaryDirectory("imago-disk")
    }

    func payload(_ n: Int, seed: UInt8) -> Data { Data((0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }) }

    func dataFiles(_ cache: DiskCache) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: cache.directory.appendingPathComponent("data").path)
    }

    @Test("write, read, metadata, contains, remove, statistics (inline and in files)", arguments: [0, 16 << 10])
    func roundTrip(_ inlineThreshold: Int) throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: inlineThreshold))
        try cache.setData(Data(), forKey: "empty")
        #expect(try cache.data(forKey: "empty") == Data())
        try cache.removeValue(forKey: "empty")
        let a = payload(5000, seed: 1)
        try cache.setData(a, forKey: "https://example.com/a.jpg", metadata: ["ETag": "\"abc\"", "Content-Type": "image/jpeg"])
        #expect(try cache.data(forKey: "https://example.com/a.jpg") == a)
        let (_, entry) = try #require(try cache.entry(forKey: "https://example.com/a.jpg"))
        #expect(entry.size == 5000 && entry.metadata["ETag"] == "\"abc\"")
        try cache.setMetadata(["ETag": "\"def\""], forKey: "https://example.com/a.jpg")
        #expect(try cache.entry(forKey: "https://example.com/a.jpg")?.entry.metadata == ["ETag": "\"def\""])
        #expect(try cache.contains("https://example.com/a.jpg") && !cache.contains("nope"))
        #expect(try cache.data(forKey: "nope") == nil)
        let b = payload(100, seed: 2)
        try cache.setData(b, forKey: "https://example.com/a.jpg")  // replace
        #expect(try cache.data(forKey: "https://example.com/a.jpg") == b)
        try cache.setData(a, forKey: "k2")
        #expect(try cache.statistics() == (count: 2, totalSize: 5100))
        try cache.removeValue(forKey: "k2")
        #expect(try cache.statistics().count == 1 && cache.data(forKey: "k2") == nil)
        try cache.removeAll()
        #expect(try cache.statistics().count == 0 && dataFiles(cache).isEmpty)
    }

    @Test("a value moving between inline and file storage reads back and leaves no stray file")
    func inlineToFileAndBack() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 1000))
        try cache.setData(payload(500, seed: 1), forKey: "k")
        #expect(try dataFiles(cache).isEmpty)
        try cache.setData(payload(5000, seed: 2), forKey: "k")
        #expect(try cache.data(forKey: "k") == payload(5000, seed: 2) && dataFiles(cache).count == 1)
        try cache.setData(payload(10, seed: 3), forKey: "k")
        #expect(try cache.data(forKey: "k") == payload(10, seed: 3) && dataFiles(cache).isEmpty)
    }

    @Test("file names are 128 random bits plus a clean extension; hostile keys stay inside the cache")
    func naming() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(namespace: "../escape", inlineThreshold: 0))
        #expect(cache.directory.path.hasPrefix(dir.path))
        try cache.setData(Data([1]), forKey: "https://x.test/photo.JPG?size=2")
        try cache.setData(Data([2]), forKey: "../../../../etc/passwd")
        try cache.setData(Data([3]), forKey: "https://x.test/file.exe%00.png")
        let names = try dataFiles(cache).sorted()
        #expect(names.count == 3)
        #expect(names.contains { $0.hasSuffix(".jpg") && $0.count == 32 + 4 })
        #expect(names.allSatisfy { !$0.contains("/") && $0.prefix(32).allSatisfy(\.isHexDigit) })
        #expect(try cache.data(forKey: "../../../../etc/passwd") == Data([2]))
        // Writing a key again gives it a new file and removes the old one.
        try cache.setData(Data([4]), forKey: "../../../../etc/passwd")
        #expect(try dataFiles(cache).count == 3 && cache.data(forKey: "../../../../etc/passwd") == Data([4]))
    }

    @Test("entries expire by recorded access time, not filesystem atime")
    func expiryByAccess() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = DateBox()
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(maxAge: .seconds(100)), now: { clock.now })
        try cache.setData(Data([1]), forKey: "read")
        try cache.setData(Data([2]), forKey: "idle")
        clock.advance(60)
        #expect(try cache.data(forKey: "read") == Data([1]))
        clock.advance(60)
        #expect(try cache.data(forKey: "read") == Data([1]))  // 60 s since last access
        #expect(try cache.data(forKey: "idle") == nil)  // 120 s since write
        clock.advance(101)
        try cache.trim()
        #expect(try cache.statistics().count == 0)
        // With modification-date expiry, reading does not extend life.
        let byWrite = try DiskCache(
            directory: dir, configuration: DiskCache.Configuration(namespace: "m", maxAge: .seconds(100), expirationDate: .modificationDate), now: { clock.now }
        )
        try byWrite.setData(Data([3]), forKey: "k")
        clock.advance(60)
        _ = try byWrite.data(forKey: "k")
        clock.advance(60)
        #expect(try byWrite.data(forKey: "k") == nil)
    }

    @Test("over the size limit, least recently used entries go until half the limit remains")
    func trimToHalf() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = DateBox()
        let cache = try DiskCache(
            directory: dir, configuration: DiskCache.Configuration(maxAge: nil, maxSize: 10_000, inlineThreshold: 0, accessTimeResolution: .zero),
            now: { clock.now })
        for i in 0..<10 {
            try cache.setData(payload(1000, seed: UInt8(i)), forKey: "k\(i)")
            clock.advance(1)
        }
        _ = try cache.data(forKey: "k0")  // k0 becomes most recently used
        clock.advance(1)
        try cache.setData(payload(1000, seed: 99), forKey: "k10")
        try cache.trim()
        let stats = try cache.statistics()
        #expect(stats.totalSize <= 5000)
        let kept = Set(try cache.entries().map(\.key))
        #expect(kept.contains("k0") && kept.contains("k10") && !kept.contains("k1"))
        #expect(try dataFiles(cache).count == stats.count)
        // Opening applies the limits too.
        for i in 20..<40 { try cache.setData(payload(1000, seed: UInt8(i)), forKey: "k\(i)") }
        let reopened = try DiskCache(
            directory: dir, configuration: DiskCache.Configuration(maxAge: nil, maxSize: 10_000, accessTimeResolution: .zero), now: { clock.now })
        #expect(try reopened.statistics().totalSize <= 5000)
    }

    @Test(
        "a corrupted, truncated or missing file is a miss and is removed, read or mapped",
        arguments: ["flip", "truncate", "delete"], [nil, 0] as [Int?])
    func damage(_ kind: String, mappingThreshold: Int?) throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 0, mappingThreshold: mappingThreshold))
        try cache.setData(payload(4096, seed: 7), forKey: "victim")
        try cache.setData(payload(10, seed: 8), forKey: "bystander")
        let files = cache.directory.appendingPathComponent("data")
        let name = try #require(try dataFiles(cache).first { try Data(contentsOf: files.appendingPathComponent($0)).count == 4096 })
        let url = files.appendingPathComponent(name)
        switch kind {
        case "flip":
            var bytes = try Data(contentsOf: url)
            bytes[2000] ^= 0x40
            try bytes.write(to: url)
        case "truncate":
            try Data(try Data(contentsOf: url).prefix(1000)).write(to: url)
        default:
            try FileManager.default.removeItem(at: url)
        }
        #expect(try cache.data(forKey: "victim") == nil)
        #expect(try !cache.contains("victim"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try cache.data(forKey: "bystander") == payload(10, seed: 8))
    }

    @Test("mapped reads give the file's bytes; a mapped value outlives its entry being replaced, removed or trimmed")
    func mappedReads() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 0, mappingThreshold: 4096))
        let big = payload(300_000, seed: 3), small = payload(100, seed: 4)
        try cache.setData(big, forKey: "big")
        try cache.setData(small, forKey: "small")
        try cache.setData(Data(), forKey: "empty")
        let mapped = try #require(try cache.data(forKey: "big"))
        #expect(mapped == big)
        #expect(try cache.data(forKey: "small") == small)  // under the threshold: read
        #expect(try cache.data(forKey: "empty") == Data())
        // The cache publishes by rename and removes by unlink: the mapping keeps the old file.
        try cache.setData(payload(300_000, seed: 5), forKey: "big")
        #expect(mapped == big)
        #expect(try cache.data(forKey: "big") == payload(300_000, seed: 5))
        let second = try #require(try cache.data(forKey: "big"))
        try cache.removeValue(forKey: "big")
        try cache.removeAll()
        #expect(second == payload(300_000, seed: 5) && mapped == big)
        #expect(try cache.data(forKey: "big") == nil)
    }

    @Test("an opened entry is its file, open: read where it lies, digest as stored, outliving replacement and removal")
    func openedEntries() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 1000))
        let big = payload(300_000, seed: 3), small = payload(100, seed: 4)
        try cache.setData(big, forKey: "big", metadata: ["etag": "\"v1\""])
        try cache.setData(small, forKey: "small")
        try cache.setData(Data(), forKey: "empty")
        #expect(try cache.openEntry(forKey: "missing") == nil)

        let opened = try #require(try cache.openEntry(forKey: "big"))
        guard case .file(let file) = opened.contents else {
            Issue.record("a large entry opens as a file")
            return
        }
        #expect(file.size == big.count && opened.size == big.count && opened.metadata["etag"] == "\"v1\"")
        #expect(try file.read(at: 1234, maxLength: 100) == big[1234..<1334])
        // The digest is the one recorded when stored: equal bytes, equal digest, wherever they are.
        let again = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 0))
        try again.setData(big, forKey: "copy")
        #expect(try again.openEntry(forKey: "copy")?.digest == opened.digest)
        try cache.setData(payload(300_000, seed: 9), forKey: "big")
        #expect(try opened.digest != cache.openEntry(forKey: "big")?.digest)

        guard case .data(let inline)? = try cache.openEntry(forKey: "small")?.contents else {
            Issue.record("small entries are inline")
            return
        }
        #expect(inline == small)
        guard case .data(let empty)? = try cache.openEntry(forKey: "empty")?.contents else {
            Issue.record("empty entries are bytes")
            return
        }
        #expect(empty.isEmpty)

        // Replaced and removed: the open file still reads the bytes it was opened on.
        try cache.removeAll()
        #expect(try file.contents() == big)
        #expect(try cache.openEntry(forKey: "big") == nil)
    }

    @Test("an entry whose file changed since it was published opens verified, or not at all", arguments: ["touch", "flip"])
    func openedChanged(_ kind: String) throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 0))
        let bytes = payload(50_000, seed: 1)
        try cache.setData(bytes, forKey: "k")
        let url = cache.directory.appendingPathComponent("data").appendingPathComponent(try #require(try dataFiles(cache).first))
        var changed = try Data(contentsOf: url)
        if kind == "flip" { changed[100] ^= 1 }
        // Rewritten in place: a new ctime, so the checksum decides.
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: changed)
        try handle.close()
        let opened = try cache.openEntry(forKey: "k")
        if kind == "flip" {
            #expect(opened == nil)
            #expect(try !cache.contains("k"))
        } else {
            guard case .data(let read)? = opened?.contents else {
                Issue.record("verified by reading")
                return
            }
            #expect(read == bytes)
        }
    }

    @Test("two caches on one directory (as two processes) see each other's writes")
    func sharedDirectory() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try DiskCache(directory: dir), b = try DiskCache(directory: dir)
        try a.setData(Data([1, 2, 3]), forKey: "from-a")
        #expect(try b.data(forKey: "from-a") == Data([1, 2, 3]))
        try b.setData(Data([4]), forKey: "from-a")
        #expect(try a.data(forKey: "from-a") == Data([4]))
        try b.removeValue(forKey: "from-a")
        #expect(try a.data(forKey: "from-a") == nil)
    }

    @Test("stray temporary files and unlisted files from dead writers are removed on open; fresh ones and listed ones are left alone")
    func strayTemporaries() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir)
        let files = cache.directory.appendingPathComponent("data")
        let old = files.appendingPathComponent(".tmp-1-1"), fresh = files.appendingPathComponent(".tmp-1-2")
        try Data([0]).write(to: old)
        try Data([0]).write(to: fresh)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: old.path)
        // A file no entry points at (a writer killed between its file and its manifest row).
        let orphan = files.appendingPathComponent("00000000000000000000000000000000.png")
        try Data([1]).write(to: orphan)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: orphan.path)
        let big = Data(repeating: 9, count: 20_000)
        try cache.setData(big, forKey: "kept")
        for name in try FileManager.default.contentsOfDirectory(atPath: files.path) where !name.hasPrefix(".tmp") {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-7200)],
                ofItemAtPath: files.appendingPathComponent(name).path)
        }
        let reopened = try DiskCache(directory: dir)
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
        #expect(!FileManager.default.fileExists(atPath: orphan.path))
        #expect(try reopened.data(forKey: "kept") == big)
    }

    @Test("many tasks reading and writing at once always read back what some writer wrote")
    func concurrent() async throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir)
        let values = (0..<4).map { v in Data(repeating: UInt8(v), count: 3000) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask {
                    for i in 0..<50 {
                        let key = "k\(i % 10)"
                        if (i + t) % 2 == 0 { try cache.setData(values[t], forKey: key) }
                        if let data = try cache.data(forKey: key) { #expect(values.contains(data)) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try cache.statistics().count == 10)
    }
}

/// A hand-driven wall clock for tests.
final class DateBox: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}

@Suite("DiskCache checksum and access-time batching")
struct DiskCacheIntegrityTests {
    @Test("changing any single byte, truncating or extending changes what is served: a miss")
    func everyByteCounts() throws {
        let dir = try TestFiles.temporaryDirectory("imago-sum")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 0))
        let original = Data((0..<77).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let files = cache.directory.appendingPathComponent("data")
        for position in 0..<original.count {
            try cache.setData(original, forKey: "k")
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: files.path).first)
            var damaged = original
            damaged[position] ^= UInt8(1 << (position % 8))
            try damaged.write(to: files.appendingPathComponent(name))
            #expect(try cache.data(forKey: "k") == nil, "byte \(position)")
        }
        for variant in [original.dropLast(), original + Data([0])] {
            try cache.setData(original, forKey: "k")
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: files.path).first)
            try Data(variant).write(to: files.appendingPathComponent(name))
            #expect(try cache.data(forKey: "k") == nil)
        }
    }

    @Test("a read not yet flushed still keeps the entry alive for expiry and trimming")
    func pendingAccessCounts() throws {
        let dir = try TestFiles.temporaryDirectory("imago-acc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = DateBox()
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(maxAge: .seconds(100)), now: { clock.now })
        try cache.setData(Data([1]), forKey: "hot")
        try cache.setData(Data([2]), forKey: "cold")
        clock.advance(90)
        _ = try cache.data(forKey: "hot")  // buffered, not yet in the manifest
        clock.advance(20)
        #expect(try cache.contains("hot") && !cache.contains("cold"))
        try cache.trim()  // flushes first
        #expect(try cache.entries().map(\.key) == ["hot"])
        let other = try DiskCache(directory: dir, configuration: DiskCache.Configuration(maxAge: .seconds(100)), now: { clock.now })
        #expect(try other.entries().first?.accessed == Date(timeIntervalSince1970: 1_800_000_090))
    }

    @Test("reads within the access-time resolution record nothing; later ones do")
    func resolution() throws {
        let dir = try TestFiles.temporaryDirectory("imago-res")
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = DateBox()
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(maxAge: nil, accessTimeResolution: .seconds(60)), now: { clock.now })
        try cache.setData(Data([1]), forKey: "k")
        clock.advance(30)
        _ = try cache.data(forKey: "k")
        #expect(try cache.entries().first?.accessed == Date(timeIntervalSince1970: 1_800_000_000))
        clock.advance(40)
        _ = try cache.data(forKey: "k")
        #expect(try cache.entries().first?.accessed == Date(timeIntervalSince1970: 1_800_000_070))
    }
}
