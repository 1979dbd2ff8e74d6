// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore
public import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A thread-safe LRU cache with O(1) get, set and remove, bounded by total cost, entry count
/// and, optionally, age since last use.
///
/// Entries live in a dictionary plus a doubly linked list kept in a contiguous array, so neither
/// lookups nor reordering allocate. All access goes through one `Mutex` (a lock, never an actor
/// hop, so cache hits stay cheap on the hot path). As in YYMemoryCache and NSCache:
/// - the least recently used entries go first when a limit is passed;
/// - an entry costing more than ``entryCostLimit`` is not kept at all, since it would evict
///   most of the cache for one item;
/// - with an ``ageLimit``, an entry unused for longer is dropped when next touched or trimmed.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The cost limit used when none is given: 15% of physical memory, at most 768 MiB.
    public static var defaultCostLimit: Int {
        let physical = ProcessInfo.processInfo.physicalMemory
        return Int(min(physical / 100 * 15, 768 << 20))
    }

    @usableFromInline let state: Mutex<LRUList<Key, Value>>
    @usableFromInline let now: @Sendable () -> ContinuousClock.Instant

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - costLimit: Most total cost kept. Default ``defaultCostLimit``.
    ///   - countLimit: Most entries kept. Default unlimited (in practice 2^31 − 2).
    ///   - ageLimit: Longest an entry may go unused; `nil` (default) keeps entries regardless of age.
    ///   - entryCostRatio: The largest share of `costLimit` one entry may cost. Default 0.1.
    ///   - now: The time source for ages. Default the continuous clock; tests pass a manual one.
    public init(
        costLimit: Int = MemoryCache.defaultCostLimit, countLimit: Int = .max,
        ageLimit: Duration? = nil, entryCostRatio: Double = 0.1,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.now = now
        state = Mutex(
            LRUList(
                costLimit: max(0, costLimit), countLimit: max(0, countLimit), ageLimit: ageLimit,
                entryCostRatio: entryCostRatio))
    }

    /// Most total cost kept; lowering it trims at once.
    public var costLimit: Int {
        get { state.withLock { $0.costLimit } }
        set {
            state.withLock {
                $0.costLimit = max(0, newValue)
                $0.trim()
            }
        }
    }

    /// Most entries kept; lowering it trims at once.
    public var countLimit: Int {
        get { state.withLock { $0.countLimit } }
        set {
            state.withLock {
                $0.countLimit = max(0, newValue)
                $0.trim()
            }
        }
    }

    /// Longest an entry may go unused, or `nil` for no age limit. Last-use times are kept only
    /// while a limit is set (a hit then reads the clock); setting one counts every entry as
    /// used now.
    public var ageLimit: Duration? {
        get { state.withLock { $0.ageLimit } }
        set {
            let t = now()
            state.withLock { $0.setAgeLimit(newValue, now: t) }
        }
    }

    /// The largest cost one entry may have: `costLimit × entryCostRatio`.
    public var entryCostLimit: Int { state.withLock { $0.entryCostLimit } }

    /// Number of entries.
    public var count: Int { state.withLock { $0.count } }

    /// Sum of the entries' costs.
    public var totalCost: Int { state.withLock { $0.totalCost } }

    /// The value for `key`, made most recently used; `nil` when absent or older than ``ageLimit``.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        state.withLock { $0.value(forKey: key, now: now) }
    }

    /// Whether `key` has a live entry. Does not change LRU order.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        state.withLock { $0.contains(key, now: now) }
    }

    /// Stores `value` with `cost`, as most recently used, then evicts least recently used
    /// entries until the limits hold. A value costing more than ``entryCostLimit`` is not
    /// stored, and any older value for `key` is removed.
    ///
    /// - Returns: Whether the value was kept.
    @discardableResult
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0) -> Bool {
        state.withLock { $0.set(value, forKey: key, cost: max(0, cost), now: now) }
    }

    /// Removes and returns the value for `key`.
    @discardableResult
    @inlinable
    public func removeValue(forKey key: Key) -> Value? {
        state.withLock { $0.remove(key) }
    }

    /// Removes every entry.
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// Evicts least recently used entries until the total cost is at most `cost`.
    public func trim(toCost cost: Int) {
        state.withLock { $0.trim(toCost: max(0, cost)) }
    }

    /// Evicts least recently used entries until at most `count` remain.
    public func trim(toCount count: Int) {
        state.withLock { $0.trim(toCount: max(0, count)) }
    }

    /// Removes every entry unused for longer than ``ageLimit``.
    public func removeExpired() {
        state.withLock { $0.removeExpired(now: now()) }
    }

    /// The keys from most to least recently used (for inspection and tests; O(n)).
    package var keysByRecency: [Key] { state.withLock { $0.keysByRecency() } }
}

extension MemoryCache: ImageCaching where Key == String, Value == Image {
    /// The image for `key`, or `nil`.
    public func image(forKey key: String) -> Image? { value(forKey: key) }

    /// Stores `image` at a cost of its decoded bytes over all frames.
    public func setImage(_ image: Image, forKey key: String) {
        setValue(image, forKey: key, cost: image.byteCount)
    }

    /// Removes the image for `key`.
    public func removeImage(forKey key: String) { removeValue(forKey: key) }

    /// Removes every image.
    public func removeAllImages() { removeAll() }
}
