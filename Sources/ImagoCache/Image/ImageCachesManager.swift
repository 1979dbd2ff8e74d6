// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Combines several ``ImageStoring`` caches, as SDWebImage's `SDImageCachesManager`.
///
/// The cache added last has the highest priority. Each operation follows its own
/// ``Policy``; the defaults are SDWebImage's: queries and `contains` go serially from the highest
/// priority until one answers, stores go to the highest-priority cache only, and removal and
/// clearing go to every cache at once.
public final class ImageCachesManager: ImageStoring {
    /// How an operation uses the caches.
    public enum Policy: String, Sendable, Hashable {
        /// Only the highest-priority cache (the last added).
        case highestOnly
        /// Only the lowest-priority cache (the first added).
        case lowestOnly
        /// Each cache in priority order. A query or `contains` stops at the first answer; other
        /// operations run on every cache.
        case serial
        /// Every cache at once. A query or `contains` takes the first answer to arrive.
        case concurrent
    }

    private let caches: Mutex<[any ImageStoring]>
    private let policies: Mutex<(query: Policy, store: Policy, remove: Policy, contains: Policy, clear: Policy)>

    /// Creates a manager over `caches`, later elements with higher priority.
    public init(caches: [any ImageStoring] = []) {
        self.caches = Mutex(caches)
        policies = Mutex((query: .serial, store: .highestOnly, remove: .concurrent, contains: .serial, clear: .concurrent))
    }

    /// Adds a cache with the highest priority.
    public func add(_ cache: any ImageStoring) { caches.withLock { $0.append(cache) } }

    /// Removes every cache of type `type`.
    public func remove<T>(_ type: T.Type) {
        caches.withLock { $0.removeAll { Swift.type(of: $0) == type } }
    }

    /// The caches from highest to lowest priority.
    public var cachesByPriority: [any ImageStoring] { caches.withLock { Array($0.reversed()) } }

    /// Policy for queries. Default ``Policy/serial``.
    public var queryPolicy: Policy {
        get { policies.withLock { $0.query } }
        set { policies.withLock { $0.query = newValue } }
    }
    /// Policy for stores. Default ``Policy/highestOnly``.
    public var storePolicy: Policy {
        get { policies.withLock { $0.store } }
        set { policies.withLock { $0.store = newValue } }
    }
    /// Policy for removal. Default ``Policy/concurrent``.
    public var removePolicy: Policy {
        get { policies.withLock { $0.remove } }
        set { policies.withLock { $0.remove = newValue } }
    }
    /// Policy for `contains`. Default ``Policy/serial``.
    public var containsPolicy: Policy {
        get { policies.withLock { $0.contains } }
        set { policies.withLock { $0.contains = newValue } }
    }
    /// Policy for clearing. Default ``Policy/concurrent``.
    public var clearPolicy: Policy {
        get { policies.withLock { $0.clear } }
        set { policies.withLock { $0.clear = newValue } }
    }

    private func selected(_ policy: Policy) -> [any ImageStoring] {
        let ordered = cachesByPriority
        switch policy {
        case .highestOnly: return Array(ordered.prefix(1))
        case .lowestOnly: return Array(ordered.suffix(1))
        case .serial, .concurrent: return ordered
        }
    }

    /// The first answer among `caches`: in order, or whichever arrives first when concurrent.
    private func firstAnswer<R: Sendable>(
        _ policy: Policy,
        _ ask: @escaping @Sendable (any ImageStoring) async throws -> R?
    ) async throws -> R? {
        let targets = selected(policy)
        if policy != .concurrent {
            for cache in targets { if let r = try await ask(cache) { return r } }
            return nil
        }
        return try await withThrowingTaskGroup(of: R?.self) { group in
            for cache in targets { group.addTask { try await ask(cache) } }
            for try await r in group {
                if let r {
                    group.cancelAll()
                    return r
                }
            }
            return nil
        }
    }

    /// Runs `work` on every selected cache: in order, or all at once when concurrent.
    private func everyCache(_ policy: Policy, _ work: @escaping @Sendable (any ImageStoring) async throws -> Void) async throws {
        let targets = selected(policy)
        if policy != .concurrent {
            for cache in targets { try await work(cache) }
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for cache in targets { group.addTask { try await work(cache) } }
            try await group.waitForAll()
        }
    }

    /// Asks the caches per ``queryPolicy``.
    nonisolated(nonsending) public func image(
        forKey key: String, cacheType: ImageCacheType = .all,
        options: DecodeOptions = .default
    ) async throws -> ImageCacheResult? {
        try await firstAnswer(queryPolicy) { try await $0.image(forKey: key, cacheType: cacheType, options: options) }
    }

    /// The first cache's bytes for `key`, in query order.
    public func data(forKey key: String) async throws -> Data? {
        for cache in cachesByPriority {
            if let data = try await cache.data(forKey: key) { return data }
        }
        return nil
    }

    /// Stores per ``storePolicy``.
    public func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType = .all) async throws {
        try await everyCache(storePolicy) { try await $0.store(image, data: data, forKey: key, cacheType: cacheType) }
    }

    /// Removes per ``removePolicy``.
    public func removeImage(forKey key: String, cacheType: ImageCacheType = .all) async throws {
        try await everyCache(removePolicy) { try await $0.removeImage(forKey: key, cacheType: cacheType) }
    }

    /// Looks per ``containsPolicy``.
    public func containsImage(forKey key: String, cacheType: ImageCacheType = .all) async throws -> ImageCacheSource? {
        try await firstAnswer(containsPolicy) { try await $0.containsImage(forKey: key, cacheType: cacheType) }
    }

    /// Clears per ``clearPolicy``.
    public func clear(cacheType: ImageCacheType = .all) async throws {
        try await everyCache(clearPolicy) { try await $0.clear(cacheType: cacheType) }
    }
}
