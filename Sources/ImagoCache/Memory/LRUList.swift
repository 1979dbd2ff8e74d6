/// The storage behind ``MemoryCache``: a dictionary from key to slot, and a doubly linked list
/// threaded through an array of slots, most recent at `head`. Freed slots are reused, so steady
/// use never allocates. Not thread-safe by itself; ``MemoryCache`` guards it with a lock.
struct LRUList<Key: Hashable, Value> {
    struct Slot {
        var key: Key?
        var value: Value?
        var cost: Int
        var lastUse: ContinuousClock.Instant
        var prev: Int
        var next: Int
    }

    private var slots: [Slot] = []
    private var index: [Key: Int] = [:]
    private var free: [Int] = []
    private var head = -1
    private var tail = -1
    private(set) var totalCost = 0
    var costLimit: Int
    var countLimit: Int
    var ageLimit: Duration?
    let entryCostRatio: Double

    init(costLimit: Int, countLimit: Int, ageLimit: Duration?, entryCostRatio: Double) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.ageLimit = ageLimit
        self.entryCostRatio = entryCostRatio
    }

    var count: Int { index.count }

    var entryCostLimit: Int {
        let limit = Double(costLimit) * entryCostRatio
        return limit >= Double(Int.max) ? Int.max : Int(limit)
    }

    private func isExpired(_ slot: Slot, now: ContinuousClock.Instant) -> Bool {
        guard let ageLimit else { return false }
        return now - slot.lastUse > ageLimit
    }

    mutating func value(forKey key: Key, now: ContinuousClock.Instant) -> Value? {
        guard let i = index[key] else { return nil }
        if isExpired(slots[i], now: now) {
            removeSlot(i)
            return nil
        }
        slots[i].lastUse = now
        moveToHead(i)
        return slots[i].value
    }

    func contains(_ key: Key, now: ContinuousClock.Instant) -> Bool {
        guard let i = index[key] else { return false }
        return !isExpired(slots[i], now: now)
    }

    mutating func set(_ value: Value, forKey key: Key, cost: Int, now: ContinuousClock.Instant) -> Bool {
        guard cost <= entryCostLimit, costLimit > 0, countLimit > 0 else {
            if let i = index[key] { removeSlot(i) }
            return false
        }
        if let i = index[key] {
            totalCost += cost - slots[i].cost
            slots[i].value = value
            slots[i].cost = cost
            slots[i].lastUse = now
            moveToHead(i)
        } else {
            let slot = Slot(key: key, value: value, cost: cost, lastUse: now, prev: -1, next: head)
            let i: Int
            if let reused = free.popLast() {
                slots[reused] = slot
                i = reused
            } else {
                slots.append(slot)
                i = slots.count - 1
            }
            if head >= 0 { slots[head].prev = i }
            head = i
            if tail < 0 { tail = i }
            index[key] = i
            totalCost += cost
        }
        trim()
        return true
    }

    mutating func remove(_ key: Key) -> Value? {
        guard let i = index[key] else { return nil }
        let value = slots[i].value
        removeSlot(i)
        return value
    }

    mutating func removeAll() {
        slots.removeAll(keepingCapacity: false)
        index.removeAll()
        free.removeAll()
        head = -1
        tail = -1
        totalCost = 0
    }

    /// Applies the cost and count limits.
    mutating func trim() {
        trim(toCost: costLimit)
        trim(toCount: countLimit)
    }

    mutating func trim(toCost cost: Int) {
        while totalCost > cost, tail >= 0 { removeSlot(tail) }
    }

    mutating func trim(toCount n: Int) {
        while index.count > n, tail >= 0 { removeSlot(tail) }
    }

    /// Drops expired entries from the tail: the least recently used are the oldest.
    mutating func removeExpired(now: ContinuousClock.Instant) {
        while tail >= 0, isExpired(slots[tail], now: now) { removeSlot(tail) }
    }

    func keysByRecency() -> [Key] {
        var keys: [Key] = []
        var i = head
        while i >= 0 {
            if let k = slots[i].key { keys.append(k) }
            i = slots[i].next
        }
        return keys
    }

    private mutating func unlink(_ i: Int) {
        let p = slots[i].prev, n = slots[i].next
        if p >= 0 { slots[p].next = n } else { head = n }
        if n >= 0 { slots[n].prev = p } else { tail = p }
        slots[i].prev = -1
        slots[i].next = -1
    }

    private mutating func moveToHead(_ i: Int) {
        guard head != i else { return }
        unlink(i)
        slots[i].next = head
        if head >= 0 { slots[head].prev = i }
        head = i
        if tail < 0 { tail = i }
    }

    private mutating func removeSlot(_ i: Int) {
        unlink(i)
        if let key = slots[i].key { index[key] = nil }
        totalCost -= slots[i].cost
        slots[i].key = nil
        slots[i].value = nil
        slots[i].cost = 0
        free.append(i)
    }
}
