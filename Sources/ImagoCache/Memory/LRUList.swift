// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// The storage behind ``MemoryCache``: a dictionary from key to slot, entries in one array and
/// the doubly linked recency list in another, most recent at `head`.
///
/// The links are kept apart from the entries, two 32-bit indices per slot, so the list updates
/// a hit makes (unlink, relink at the head) touch a small array that stays in cache. Freed slots
/// are reused, so steady use never allocates. The members are inlinable so that clients
/// specialize them for their key and value types. Not thread-safe by itself: ``MemoryCache``
/// guards it with a lock.
@usableFromInline
struct LRUList<Key: Hashable, Value> {
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key?
        @usableFromInline var value: Value?
        @usableFromInline var cost: Int
        @usableFromInline var lastUse: ContinuousClock.Instant

        @inlinable
        init(key: Key?, value: Value?, cost: Int, lastUse: ContinuousClock.Instant) {
            self.key = key
            self.value = value
            self.cost = cost
            self.lastUse = lastUse
        }
    }

    @usableFromInline
    struct Link {
        @usableFromInline var prev: Int32
        @usableFromInline var next: Int32

        @inlinable init(prev: Int32, next: Int32) {
            self.prev = prev
            self.next = next
        }
    }

    @usableFromInline var entries: [Entry] = []
    @usableFromInline var links: [Link] = []
    @usableFromInline var index: [Key: Int32] = [:]
    @usableFromInline var free: [Int32] = []
    @usableFromInline var head: Int32 = -1
    @usableFromInline var tail: Int32 = -1
    @usableFromInline var totalCost = 0
    @usableFromInline var costLimit: Int
    @usableFromInline var countLimit: Int
    @usableFromInline var ageLimit: Duration?
    @usableFromInline let entryCostRatio: Double

    @inlinable
    init(costLimit: Int, countLimit: Int, ageLimit: Duration?, entryCostRatio: Double) {
        self.costLimit = costLimit
        // Slot indices are 32-bit: keep the count within them.
        self.countLimit = min(countLimit, Int(Int32.max) - 1)
        self.ageLimit = ageLimit
        self.entryCostRatio = entryCostRatio
    }

    @inlinable var count: Int { index.count }

    @inlinable var entryCostLimit: Int {
        let limit = Double(costLimit) * entryCostRatio
        return limit >= Double(Int.max) ? Int.max : Int(limit)
    }

    @inlinable
    func isExpired(_ i: Int32, now: ContinuousClock.Instant) -> Bool {
        guard let ageLimit else { return false }
        return now - entries[Int(i)].lastUse > ageLimit
    }

    /// Sets the age limit. Turning it on stamps every entry with `now`, since last-use times are
    /// only kept while a limit is set.
    @inlinable
    mutating func setAgeLimit(_ limit: Duration?, now: ContinuousClock.Instant) {
        if ageLimit == nil, limit != nil {
            for i in entries.indices { entries[i].lastUse = now }
        }
        ageLimit = limit
    }

    @inlinable
    mutating func value(forKey key: Key, now: () -> ContinuousClock.Instant) -> Value? {
        guard let i = index[key] else { return nil }
        if ageLimit != nil {
            let t = now()
            if isExpired(i, now: t) {
                removeSlot(i)
                return nil
            }
            entries[Int(i)].lastUse = t
        }
        moveToHead(i)
        return entries[Int(i)].value
    }

    @inlinable
    func contains(_ key: Key, now: () -> ContinuousClock.Instant) -> Bool {
        guard let i = index[key] else { return false }
        return ageLimit == nil || !isExpired(i, now: now())
    }

    @inlinable
    mutating func set(_ value: Value, forKey key: Key, cost: Int, now: () -> ContinuousClock.Instant) -> Bool {
        guard cost <= entryCostLimit, costLimit > 0, countLimit > 0 else {
            if let i = index[key] { removeSlot(i) }
            return false
        }
        let t = ageLimit != nil ? now() : ContinuousClock.Instant.distantPast
        // One hash lookup whether the key is new or not: claim the next free slot through the
        // dictionary's modify accessor, and learn which case it was.
        let candidate = free.last ?? Int32(entries.count)
        var slot: Int32 = -1
        Self.claim(&index[key, default: -1], candidate: candidate, into: &slot)
        if slot != candidate {
            let i = slot
            totalCost += cost - entries[Int(i)].cost
            entries[Int(i)].value = value
            entries[Int(i)].cost = cost
            entries[Int(i)].lastUse = t
            moveToHead(i)
        } else {
            let entry = Entry(key: key, value: value, cost: cost, lastUse: t)
            let link = Link(prev: -1, next: head)
            if free.last == candidate {
                free.removeLast()
                entries[Int(candidate)] = entry
                links[Int(candidate)] = link
            } else {
                entries.append(entry)
                links.append(link)
            }
            if head >= 0 { links[Int(head)].prev = candidate }
            head = candidate
            if tail < 0 { tail = candidate }
            totalCost += cost
        }
        trim()
        return true
    }

    /// Stores `candidate` in a fresh dictionary slot (`-1`), and reports what the slot holds.
    @inlinable
    static func claim(_ stored: inout Int32, candidate: Int32, into slot: inout Int32) {
        if stored < 0 { stored = candidate }
        slot = stored
    }

    @inlinable
    mutating func remove(_ key: Key) -> Value? {
        guard let i = index[key] else { return nil }
        let value = entries[Int(i)].value
        removeSlot(i)
        return value
    }

    @inlinable
    mutating func removeAll() {
        entries.removeAll()
        links.removeAll()
        index.removeAll()
        free.removeAll()
        head = -1
        tail = -1
        totalCost = 0
    }

    /// Applies the cost and count limits.
    @inlinable
    mutating func trim() {
        if totalCost > costLimit { trim(toCost: costLimit) }
        if index.count > countLimit { trim(toCount: countLimit) }
    }

    @inlinable
    mutating func trim(toCost cost: Int) {
        while totalCost > cost, tail >= 0 { removeSlot(tail) }
    }

    @inlinable
    mutating func trim(toCount n: Int) {
        while index.count > n, tail >= 0 { removeSlot(tail) }
    }

    /// Drops expired entries from the tail: the least recently used are the oldest.
    @inlinable
    mutating func removeExpired(now: ContinuousClock.Instant) {
        while tail >= 0, isExpired(tail, now: now) { removeSlot(tail) }
    }

    @inlinable
    func keysByRecency() -> [Key] {
        var keys: [Key] = []
        var i = head
        while i >= 0 {
            if let k = entries[Int(i)].key { keys.append(k) }
            i = links[Int(i)].next
        }
        return keys
    }

    @inlinable
    mutating func unlink(_ i: Int32) {
        let l = links[Int(i)]
        if l.prev >= 0 { links[Int(l.prev)].next = l.next } else { head = l.next }
        if l.next >= 0 { links[Int(l.next)].prev = l.prev } else { tail = l.prev }
    }

    @inlinable
    mutating func moveToHead(_ i: Int32) {
        guard head != i else { return }
        unlink(i)
        links[Int(i)] = Link(prev: -1, next: head)
        if head >= 0 { links[Int(head)].prev = i }
        head = i
        if tail < 0 { tail = i }
    }

    @inlinable
    mutating func removeSlot(_ i: Int32) {
        unlink(i)
        links[Int(i)] = Link(prev: -1, next: -1)
        if let key = entries[Int(i)].key { index[key] = nil }
        totalCost -= entries[Int(i)].cost
        entries[Int(i)] = Entry(key: nil, value: nil, cost: 0, lastUse: .distantPast)
        free.append(i)
    }
}

extension ContinuousClock.Instant {
    /// A placeholder time for entries stored while no age limit is set.
    @usableFromInline static let distantPast: ContinuousClock.Instant = .now - .seconds(1 << 40)
}
