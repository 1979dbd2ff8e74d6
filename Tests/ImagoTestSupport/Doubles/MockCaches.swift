// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCore
import Synchronization

/// A ``DataCaching`` in memory that counts reads and writes and can be told to fail: what the
/// pipeline tests use for the disk layer.
public final class MockDataCache: DataCaching {
    private struct State {
        var entries: [String: CachedData] = [:]
        var reads = 0
        var writes = 0
        var failing = false
        var writeDelay: TimeInterval = 0
    }

    private let state = Mutex(State())

    /// Creates an empty cache that works, with no write delay.
    public init() {}

    /// Reads so far.
    public var readCount: Int { state.withLock { $0.reads } }
    /// Writes so far.
    public var writeCount: Int { state.withLock { $0.writes } }
    /// The keys stored now.
    public var keys: Set<String> { state.withLock { Set($0.entries.keys) } }
    /// Makes each write take this long (a slow disk).
    public func setWriteDelay(_ seconds: TimeInterval) { state.withLock { $0.writeDelay = seconds } }
    /// Makes every operation throw (an unreadable cache) or work again.
    public func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }

    private func check() throws {
        if state.withLock({ $0.failing }) { throw DiskCacheError.database("the mock cache is set to fail") }
    }

    /// The entry stored for `key`, if any; counts a read.
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` while ``setFailing(_:)`` is on.
    public func cachedData(forKey key: String) throws -> CachedData? {
        try check()
        return state.withLock { s in
            s.reads += 1
            return s.entries[key]
        }
    }

    /// Whether an entry is stored for `key`; not counted as a read.
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` while ``setFailing(_:)`` is on.
    public func contains(_ key: String) throws -> Bool {
        try check()
        return state.withLock { $0.entries[key] != nil }
    }

    /// Removes every entry whose key starts with `prefix`.
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` while ``setFailing(_:)`` is on.
    public func removeValues(withKeyPrefix prefix: String) throws {
        try check()
        state.withLock { s in s.entries = s.entries.filter { !$0.key.hasPrefix(prefix) } }
    }

    /// Stores `data` and `metadata` under `key`, after the write delay; counts a write.
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` while ``setFailing(_:)`` is on.
    public func setData(_ data: Data, forKey key: String, metadata: [String: String]) throws {
        try check()
        let delay = state.withLock { $0.writeDelay }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        state.withLock { s in
            s.writes += 1
            s.entries[key] = CachedData(data: data, metadata: metadata)
        }
    }

    /// Removes the entry for `key`, if there is one.
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` while ``setFailing(_:)`` is on.
    public func removeValue(forKey key: String) throws {
        try check()
        _ = state.withLock { $0.entries.removeValue(forKey: key) }
    }

    /// Removes every entry; the counts stay.
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` while ``setFailing(_:)`` is on.
    public func removeAll() throws {
        try check()
        state.withLock { $0.entries.removeAll() }
    }

    /// The number of entries and their data's total bytes; never throws, even while failing.
    public func statistics() throws -> (count: Int, totalSize: Int) {
        state.withLock { s in (s.entries.count, s.entries.values.reduce(0) { $0 + $1.data.count }) }
    }
}

/// An ``ImageCaching`` over a dictionary that records lookups (with the executor they ran on)
/// and stores: the memory layer of the pipeline tests.
public final class MockImageStore: ImageCaching {
    private struct State {
        var images: [String: Image] = [:]
        var lookups: [String] = []
        var stores: [String] = []
        var lookupThreads: [UInt] = []
    }

    private let state = Mutex(State())

    /// Creates an empty store.
    public init() {}

    /// Keys looked up, in order.
    public var lookups: [String] { state.withLock { $0.lookups } }
    /// Keys stored, in order.
    public var stores: [String] { state.withLock { $0.stores } }
    /// For each lookup, the thread it ran on (`pthread_self`).
    public var lookupThreads: [UInt] { state.withLock { $0.lookupThreads } }

    /// The calling thread, comparable with ``lookupThreads``.
    public static var currentThread: UInt { UInt(pthread_self()) }

    /// The image stored for `key`, if any; records the lookup and the thread it ran on.
    public func image(forKey key: String) -> Image? {
        let thread = Self.currentThread
        return state.withLock { s in
            s.lookups.append(key)
            s.lookupThreads.append(thread)
            return s.images[key]
        }
    }

    /// Stores `image` under `key` and records the store.
    public func setImage(_ image: Image, forKey key: String) {
        state.withLock { s in
            s.stores.append(key)
            s.images[key] = image
        }
    }

    /// Removes the image for `key`, if there is one.
    public func removeImage(forKey key: String) { _ = state.withLock { $0.images.removeValue(forKey: key) } }

    /// Removes every image; the records of lookups and stores stay.
    public func removeAllImages() { state.withLock { $0.images.removeAll() } }
}
