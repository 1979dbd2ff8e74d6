// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCore
import ImagoTestSupport
import Testing

/// The limits and the recency order of ``MemoryCache`` at their edges: limits changed later,
/// zero and negative limits, the per-entry cost ratio, removal from the middle of the order.
@Suite("MemoryCache limits and order")
struct MemoryCacheLimitTests {
    @Test("lowering the count limit evicts the least recently used at once; raising it brings nothing back")
    func countLimitSetter() {
        let cache = MemoryCache<String, Int>(costLimit: 1000)
        for (i, key) in ["a", "b", "c", "d", "e"].enumerated() { cache.setValue(i, forKey: key) }
        #expect(cache.value(forKey: "a") == 0)  // a becomes the most recent
        cache.countLimit = 2
        #expect(cache.countLimit == 2 && cache.keysByRecency == ["a", "e"])
        cache.countLimit = 10
        #expect(cache.count == 2 && cache.value(forKey: "b") == nil)
        cache.setValue(5, forKey: "f")
        #expect(cache.keysByRecency == ["f", "a", "e"])
    }

    @Test("the entry cost ratio sets the largest entry kept", arguments: [(0.25, 25), (0.5, 50), (1.0, 100)])
    func entryCostRatio(_ ratio: Double, cap: Int) {
        let cache = MemoryCache<Int, Int>(costLimit: 100, entryCostRatio: ratio)
        #expect(cache.entryCostLimit == cap)
        #expect(cache.setValue(1, forKey: 1, cost: cap))
        #expect(!cache.setValue(2, forKey: 2, cost: cap + 1))
        #expect(cache.totalCost == cap && cache.keysByRecency == [1])
    }

    @Test("no cost or no entries allowed keeps nothing; negative limits and costs count as zero")
    func zeroLimits() {
        let noCost = MemoryCache<String, Int>(costLimit: 0)
        #expect(!noCost.setValue(1, forKey: "a") && noCost.count == 0)
        let noCount = MemoryCache<String, Int>(costLimit: 100, countLimit: -5)
        #expect(noCount.countLimit == 0)
        #expect(!noCount.setValue(1, forKey: "a") && noCount.count == 0)
        let negative = MemoryCache<String, Int>(costLimit: -10)
        #expect(negative.costLimit == 0 && negative.entryCostLimit == 0)
        let priced = MemoryCache<String, Int>(costLimit: 100)
        #expect(priced.setValue(1, forKey: "free", cost: -40))
        #expect(priced.totalCost == 0 && priced.value(forKey: "free") == 1)
        priced.setValue(2, forKey: "paid", cost: 10)
        priced.trim(toCost: -1)  // as 0: the zero-cost entry goes too, being the older
        #expect(priced.count == 0 && priced.totalCost == 0)
    }

    @Test("storing an existing key replaces its value and cost and makes it the most recent")
    func replaceMovesToFront() {
        let cache = MemoryCache<String, String>(costLimit: 1000)
        cache.setValue("1", forKey: "a", cost: 5)
        cache.setValue("2", forKey: "b", cost: 5)
        cache.setValue("3", forKey: "c", cost: 5)
        cache.setValue("new", forKey: "a", cost: 7)
        #expect(cache.keysByRecency == ["a", "c", "b"])
        #expect(cache.count == 3 && cache.totalCost == 17)
        cache.countLimit = 2  // b, not the rewritten a, is now the oldest
        #expect(cache.keysByRecency == ["a", "c"] && cache.value(forKey: "a") == "new")
    }

    @Test("removing from the middle, the head or the tail keeps the others' order; freed slots serve new keys")
    func removeAnywhere() {
        let cache = MemoryCache<Int, Int>(costLimit: 1000)
        for i in 0..<5 { cache.setValue(i * 10, forKey: i, cost: 1) }
        #expect(cache.removeValue(forKey: 2) == 20)
        #expect(cache.keysByRecency == [4, 3, 1, 0] && cache.totalCost == 4)
        cache.setValue(50, forKey: 5, cost: 1)
        #expect(cache.keysByRecency == [5, 4, 3, 1, 0])
        #expect(cache.removeValue(forKey: 0) == 0 && cache.removeValue(forKey: 5) == 50)
        #expect(cache.keysByRecency == [4, 3, 1] && cache.count == 3 && cache.totalCost == 3)
        #expect(cache.removeValue(forKey: 42) == nil)
        cache.trim(toCount: 1)
        #expect(cache.keysByRecency == [4] && cache.value(forKey: 4) == 40)
    }

    @Test("asking whether an entry is there does not renew its age; removeExpired keeps the live ones")
    func containsDoesNotRenew() {
        let time = ManualTime()
        let cache = MemoryCache<String, Int>(costLimit: 1000, ageLimit: .seconds(10), now: { time.now })
        cache.setValue(1, forKey: "old")
        time.advance(.seconds(5))
        cache.setValue(2, forKey: "young")
        time.advance(.seconds(4))
        #expect(cache.contains("old"))  // 9 s: alive, and not renewed by asking
        time.advance(.seconds(2))
        #expect(!cache.contains("old") && cache.contains("young"))
        cache.removeExpired()
        #expect(cache.keysByRecency == ["young"])
        time.advance(.seconds(5))  // 11 s since young was stored
        cache.removeExpired()
        #expect(cache.count == 0)
    }

    @Test("as ImageCaching: an image costs its bytes, one over the entry cap is refused, removeAllImages empties")
    func imageCaching() throws {
        let memory = MemoryCache<String, Image>(costLimit: 4000)  // entries up to 400 bytes
        let store: any ImageCaching = memory
        store.setImage(Image(buffer: try Fixtures.gradient(width: 10, height: 10)), forKey: "small")  // 400 bytes
        store.setImage(Image(buffer: try Fixtures.gradient(width: 11, height: 10)), forKey: "large")  // 440 bytes
        #expect(store.image(forKey: "small")?.pixelSize == PixelSize(width: 10, height: 10))
        #expect(store.image(forKey: "large") == nil && memory.totalCost == 400)
        store.removeImage(forKey: "absent")
        #expect(memory.count == 1)
        store.removeAllImages()
        #expect(memory.count == 0 && memory.totalCost == 0 && store.image(forKey: "small") == nil)
    }
}
