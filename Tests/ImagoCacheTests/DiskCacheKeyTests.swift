// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoTestSupport
import Synchronization
import Testing

/// ``DiskCache`` with keys of every kind, prefix removal, recorded dates, metadata, namespaces
/// and racing writers; and the defaults ``DataCaching`` gives a store of its own.
@Suite("DiskCache keys, prefixes, dates and metadata")
struct DiskCacheKeyTests {
    static func files(in cache: DiskCache) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: cache.directory.appendingPathComponent("data").path)
    }

    static let oddKeys = [
        "", " ", "ключ/значение?x=1&y=2#frag", "画像🖼️.PNG", "line\nbreak\ttab", "quote ' and \" ; DROP TABLE entries; --",
        "%_*?[]\\", "../../etc/passwd", String(repeating: "κ", count: 3000)
    ]

    @Test("keys of any characters and length round-trip, stay apart and list back as written", arguments: [0, 16 << 10])
    func unusualKeys(_ inlineThreshold: Int) throws {
        let dir = try TestFiles.temporaryDirectory("imago-keys")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: inlineThreshold))
        for (i, key) in Self.oddKeys.enumerated() { try cache.setData(Data([UInt8(i), 1, 2]), forKey: key) }
        for (i, key) in Self.oddKeys.enumerated() {
            #expect(try cache.data(forKey: key) == Data([UInt8(i), 1, 2]), "\(key.prefix(20))")
        }
        #expect(try Set(cache.entries().map(\.key)) == Set(Self.oddKeys))
        #expect(try cache.statistics() == (count: Self.oddKeys.count, totalSize: 3 * Self.oddKeys.count))
        #expect(try Self.files(in: cache).count == (inlineThreshold == 0 ? Self.oddKeys.count : 0))
        for key in Self.oddKeys { try cache.removeValue(forKey: key) }
        #expect(try cache.statistics().count == 0 && Self.files(in: cache).isEmpty)
    }

    @Test("removing by prefix takes exactly the keys that start with it, their files too; wildcards are literal")
    func prefixRemoval() throws {
        let dir = try TestFiles.temporaryDirectory("imago-prefix")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 100))
        let big = Data(repeating: 1, count: 500), small = Data([2])
        try cache.setData(big, forKey: "https://a.test/x.jpg => w100")
        try cache.setData(small, forKey: "https://a.test/x.jpg => w200")
        try cache.setData(big, forKey: "https://a.test/x.jpgs => w100")
        try cache.setData(small, forKey: "https://a.test/%.jpg => w100")
        try cache.setData(small, forKey: "héllo/1")
        try cache.setData(small, forKey: "hello/1")
        try cache.removeValues(withKeyPrefix: "https://a.test/x.jpg => ")
        let left = try Set(cache.entries().map(\.key))
        #expect(left == ["https://a.test/x.jpgs => w100", "https://a.test/%.jpg => w100", "héllo/1", "hello/1"])
        #expect(try Self.files(in: cache).count == 1)  // only x.jpgs's file remains
        try cache.removeValues(withKeyPrefix: "https://a.test/_")  // no key has "_" there
        try cache.removeValues(withKeyPrefix: "https://a.test/%")
        #expect(try cache.data(forKey: "https://a.test/x.jpgs => w100") == big)
        #expect(try !cache.contains("https://a.test/%.jpg => w100"))
        try cache.removeValues(withKeyPrefix: "hé")
        #expect(try cache.contains("hello/1") && !cache.contains("héllo/1"))
        try cache.removeValues(withKeyPrefix: "")  // everything
        #expect(try cache.statistics().count == 0 && Self.files(in: cache).isEmpty)
    }

    @Test("a rewrite keeps the creation date and moves the modification date; each expiry date counts from its own")
    func recordedDates() throws {
        let dir = try TestFiles.temporaryDirectory("imago-dates")
        defer { try? FileManager.default.removeItem(at: dir) }
        let clock = DateBox()
        let byCreation = try DiskCache(
            directory: dir, configuration: DiskCache.Configuration(maxAge: .seconds(100), expirationDate: .creationDate), now: { clock.now })
        try byCreation.setData(Data([1]), forKey: "k")
        clock.advance(60)
        try byCreation.setData(Data([2]), forKey: "k")
        let entry = try #require(try byCreation.entries().first)
        #expect(entry.created == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(entry.modified == Date(timeIntervalSince1970: 1_800_000_060) && entry.size == 1)
        clock.advance(60)  // 120 s since created, 60 s since modified
        #expect(try byCreation.data(forKey: "k") == nil)
        #expect(try byCreation.statistics().count == 0)  // an expired entry read is removed
        let byModification = try DiskCache(
            directory: dir, configuration: DiskCache.Configuration(namespace: "m", maxAge: .seconds(100), expirationDate: .modificationDate),
            now: { clock.now })
        try byModification.setData(Data([1]), forKey: "k")
        clock.advance(60)
        try byModification.setData(Data([2]), forKey: "k")
        clock.advance(60)
        #expect(try byModification.data(forKey: "k") == Data([2]))
    }

    @Test("metadata of any text round-trips; setting none clears it; rewriting the bytes drops it; absent keys stay absent")
    func metadata() throws {
        let dir = try TestFiles.temporaryDirectory("imago-meta")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir)
        let metadata = ["ETag": "W/\"ü-1\"", "Content-Type": "image/png", "X-Empty": "", "Ключ": "значение 🖼️\n"]
        try cache.setData(Data([1, 2]), forKey: "k", metadata: metadata)
        #expect(try cache.cachedData(forKey: "k") == CachedData(data: Data([1, 2]), metadata: metadata))
        try cache.setMetadata([:], forKey: "k")
        #expect(try cache.cachedData(forKey: "k")?.metadata.isEmpty == true)
        #expect(try cache.data(forKey: "k") == Data([1, 2]))
        try cache.setMetadata(["ETag": "x"], forKey: "absent")
        #expect(try !cache.contains("absent") && cache.statistics().count == 1)
        try cache.setMetadata(["ETag": "y"], forKey: "k")
        try cache.setData(Data([3]), forKey: "k")
        #expect(try cache.entry(forKey: "k")?.entry.metadata.isEmpty == true)
    }

    @Test("namespaces become one clean directory each below the parent and keep their entries apart")
    func namespaces() throws {
        let dir = try TestFiles.temporaryDirectory("imago-ns")
        defer { try? FileManager.default.removeItem(at: dir) }
        let thumbs = try DiskCache(directory: dir, namespace: "thumbs/v2", maxAge: nil, maxSize: 1000)
        #expect(thumbs.directory.lastPathComponent == "thumbs_v2")
        #expect(thumbs.configuration.maxAge == nil && thumbs.configuration.maxSize == 1000)
        let dots = try DiskCache(directory: dir, configuration: DiskCache.Configuration(namespace: "..."))
        #expect(dots.directory.lastPathComponent == "default")
        let hidden = try DiskCache(directory: dir, configuration: DiskCache.Configuration(namespace: ".hidden cache."))
        #expect(hidden.directory.lastPathComponent == "hidden_cache")
        try thumbs.setData(Data([1]), forKey: "k")
        try dots.setData(Data([2]), forKey: "k")
        #expect(try thumbs.data(forKey: "k") == Data([1]) && dots.data(forKey: "k") == Data([2]) && hidden.data(forKey: "k") == nil)
        let clamped = DiskCache.Configuration(maxSize: -1, inlineThreshold: -5, accessTimeResolution: .seconds(-3), mappingThreshold: -7)
        #expect(clamped.maxSize == 0 && clamped.inlineThreshold == 0 && clamped.accessTimeResolution == .zero && clamped.mappingThreshold == 0)
    }

    @Test("writers racing on one key leave one whole value, one of theirs, in one file")
    func racingWriters() async throws {
        let dir = try TestFiles.temporaryDirectory("imago-race")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cache = try DiskCache(directory: dir, configuration: DiskCache.Configuration(inlineThreshold: 1000))
        let values = (0..<4).map { v in Data(repeating: UInt8(v + 1), count: 5000 + v * 1000) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in values {
                group.addTask { for _ in 0..<10 { try cache.setData(value, forKey: "same") } }
            }
            try await group.waitForAll()
        }
        let stored = try #require(try cache.data(forKey: "same"))
        #expect(values.contains(stored))
        #expect(try cache.statistics() == (count: 1, totalSize: stored.count))
        #expect(try Self.files(in: cache).count == 1)
    }

    @Test("errors read the same as a description, an error description and a localized description")
    func errorDescriptions() {
        let io = DiskCacheError.io(path: "/c/data/x", reason: "No space left on device")
        #expect(io.description == "disk cache I/O error at /c/data/x: No space left on device")
        #expect(io.errorDescription == io.description && io.localizedDescription == io.description)
        #expect(DiskCacheError.database("locked").description == "disk cache manifest error: locked")
        #expect(DiskCacheError.store("gone").description == "data cache error: gone")
    }

    @Test("a store with only the required methods gets working defaults; prefix removal is refused, not ignored")
    func protocolDefaults() throws {
        let store = MinimalStore()
        let bytes = Data([1, 2, 3])
        try store.setData(bytes, forKey: "k", metadata: ["a": "1"])
        let opened = try #require(try store.openEntry(forKey: "k"))
        guard case .data(let read) = opened.contents else {
            Issue.record("a store without files opens entries as bytes")
            return
        }
        #expect(read == bytes && opened.size == 3 && opened.metadata == ["a": "1"])
        #expect(opened.digest == CachedEntry.digest(of: bytes))
        #expect(try store.openEntry(forKey: "absent") == nil)
        // The digest is the bytes', whichever store holds them.
        let dir = try TestFiles.temporaryDirectory("imago-digest")
        defer { try? FileManager.default.removeItem(at: dir) }
        let disk = try DiskCache(directory: dir)
        try disk.setData(bytes, forKey: "k")
        #expect(try disk.openEntry(forKey: "k")?.digest == opened.digest)

        try store.setMetadata(["b": "2"], forKey: "k")
        #expect(try store.cachedData(forKey: "k") == CachedData(data: bytes, metadata: ["b": "2"]))
        try store.setMetadata(["c": "3"], forKey: "absent")
        #expect(try !store.contains("absent") && store.data(forKey: "k") == bytes)
        let error = #expect(throws: DiskCacheError.self) { try store.removeValues(withKeyPrefix: "k") }
        guard case .store(let message)? = error else {
            Issue.record("expected a store error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("MinimalStore"), "\(message)")
        #expect(try store.contains("k"))
    }
}

/// The least a ``DataCaching`` must implement; the protocol's extension supplies the rest.
final class MinimalStore: DataCaching {
    private let entries = Mutex<[String: CachedData]>([:])

    func cachedData(forKey key: String) throws -> CachedData? { entries.withLock { $0[key] } }

    func contains(_ key: String) throws -> Bool { entries.withLock { $0[key] != nil } }

    func setData(_ data: Data, forKey key: String, metadata: [String: String]) throws {
        entries.withLock { $0[key] = CachedData(data: data, metadata: metadata) }
    }

    func removeValue(forKey key: String) throws { _ = entries.withLock { $0.removeValue(forKey: key) } }

    func removeAll() throws { entries.withLock { $0.removeAll() } }

    func statistics() throws -> (count: Int, totalSize: Int) {
        entries.withLock { all in (all.count, all.values.reduce(0) { $0 + $1.data.count }) }
    }
}
