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

    public func cachedData(forKey key: String) throws -> CachedData? {
        try check()
        return state.withLock { s in
            s.reads += 1
            return s.entries[key]
        }
    }

    public func contains(_ key: String) throws -> Bool {
        try check()
        return state.withLock { $0.entries[key] != nil }
    }

    public func removeValues(withKeyPrefix prefix: String) throws {
        try check()
        state.withLock { s in s.entries = s.entries.filter { !$0.key.hasPrefix(prefix) } }
    }

    public func setData(_ data: Data, forKey key: String, metadata: [String: String]) throws {
        try check()
        let delay = state.withLock { $0.writeDelay }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        state.withLock { s in
            s.writes += 1
            s.entries[key] = CachedData(data: data, metadata: metadata)
        }
    }

    public func removeValue(forKey key: String) throws {
        try check()
        _ = state.withLock { $0.entries.removeValue(forKey: key) }
    }

    public func removeAll() throws {
        try check()
        state.withLock { $0.entries.removeAll() }
    }

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

    public init() {}

    /// Keys looked up, in order.
    public var lookups: [String] { state.withLock { $0.lookups } }
    /// Keys stored, in order.
    public var stores: [String] { state.withLock { $0.stores } }
    /// For each lookup, the thread it ran on (`pthread_self`).
    public var lookupThreads: [UInt] { state.withLock { $0.lookupThreads } }

    /// The calling thread, comparable with ``lookupThreads``.
    public static var currentThread: UInt { UInt(pthread_self()) }

    public func image(forKey key: String) -> Image? {
        let thread = Self.currentThread
        return state.withLock { s in
            s.lookups.append(key)
            s.lookupThreads.append(thread)
            return s.images[key]
        }
    }

    public func setImage(_ image: Image, forKey key: String) {
        state.withLock { s in
            s.stores.append(key)
            s.images[key] = image
        }
    }

    public func removeImage(forKey key: String) { _ = state.withLock { $0.images.removeValue(forKey: key) } }

    public func removeAllImages() { state.withLock { $0.images.removeAll() } }
}
