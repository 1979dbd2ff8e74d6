// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("MemoryCache")
struct MemoryCacheTests {
    @Test("least recently used goes first; a get counts as a use")
    func lruOrder() {
        let cache = MemoryCache<String, Int>(costLimit: 1000, countLimit: 3)
        cache.setValue(1, forKey: "a")
        cache.setValue(2, forKey: "b")
        cache.setValue(3, forKey: "c")
        #expect(cache.keysByRecency == ["c", "b", "a"])
        #expect(cache.value(forKey: "a") == 1)  // a becomes most recent
        #expect(cache.keysByRecency == ["a", "c", "b"])
        cache.setValue(4, forKey: "d")  // evicts b
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.contains("c"))
        #expect(cache.keysByRecency == ["d", "a", "c"])  // contains does not reorder
    }

    @Test("the cost limit evicts oldest first; replacing updates the cost")
    func costLimit() {
        let cache = MemoryCache<Int, String>(costLimit: 100, entryCostRatio: 0.5)
        for i in 0..<10 { cache.setValue("v\(i)", forKey: i, cost: 20) }
        #expect(cache.totalCost == 100 && cache.count == 5)
        #expect(cache.keysByRecency == [9, 8, 7, 6, 5])
        cache.setValue("big", forKey: 9, cost: 50)  // replace: 4 × 20 + 50 = 130 → evict 5 and 6
        #expect(cache.totalCost == 90 && cache.keysByRecency == [9, 8, 7])
        cache.costLimit = 40  // lowering the limit trims now, oldest first:
        #expect(cache.totalCost == 0 && cache.count == 0)  // 7 (→70), 8 (→50), then 9 (→0)
        cache.setValue("x", forKey: 1, cost: 20)  // the entry cap is now 20
        #expect(!cache.setValue("y", forKey: 2, cost: 21) && cache.totalCost == 20)
    }

    @Test("an entry over 10% of the limit is not kept, and replaces nothing")
    func entryCostCap() {
        let cache = MemoryCache<String, Int>(costLimit: 1000)
        #expect(cache.entryCostLimit == 100)
        #expect(cache.setValue(1, forKey: "ok", cost: 100))
        #expect(!cache.setValue(2, forKey: "huge", cost: 101))
        #expect(cache.value(forKey: "huge") == nil && cache.count == 1)
        #expect(!cache.setValue(3, forKey: "ok", cost: 500))  // an over-cap replacement removes the old value
        #expect(cache.value(forKey: "ok") == nil && cache.totalCost == 0)
    }

    @Test("entries unused past the age limit expire; use resets their age")
    func ageLimit() {
        let time = ManualTime()
        let cache = MemoryCache<String, Int>(costLimit: 1000, ageLimit: .seconds(10), now: { time.now })
        cache.setValue(1, forKey: "used")
        cache.setValue(2, forKey: "idle")
        time.advance(.seconds(6))
        #expect(cache.value(forKey: "used") == 1)
        time.advance(.seconds(6))
        #expect(cache.value(forKey: "used") == 1)  // 6 s since last use
        #expect(!cache.contains("idle"))  // 12 s since set
        #expect(cache.count == 2)  // still stored until touched or trimmed
        cache.removeExpired()
        #expect(cache.count == 1)
        time.advance(.seconds(11))
        #expect(cache.value(forKey: "used") == nil && cache.count == 0)
    }

    @Test("turning the age limit on later counts existing entries as used then")
    func ageLimitLater() {
        let time = ManualTime()
        let cache = MemoryCache<String, Int>(costLimit: 1000, now: { time.now })
        cache.setValue(1, forKey: "old")
        time.advance(.seconds(3600))
        cache.ageLimit = .seconds(10)
        #expect(cache.value(forKey: "old") == 1)  // stamped when the limit was set
        time.advance(.seconds(11))
        #expect(cache.value(forKey: "old") == nil)
        cache.ageLimit = nil
        cache.setValue(2, forKey: "new")
        time.advance(.seconds(100_000))
        #expect(cache.value(forKey: "new") == 2)  // no limit, no expiry
    }

    @Test("trim, remove and removeAll")
    func trimming() {
        let cache = MemoryCache<Int, Int>(costLimit: 10_000)
        for i in 0..<100 { cache.setValue(i, forKey: i, cost: 10) }
        cache.trim(toCost: 500)
        #expect(cache.totalCost == 500 && cache.count == 50 && cache.value(forKey: 49) == nil && cache.value(forKey: 50) == 50)
        cache.trim(toCount: 10)
        #expect(cache.count == 10)
        #expect(cache.removeValue(forKey: 99) == 99 && cache.removeValue(forKey: 99) == nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0 && cache.keysByRecency.isEmpty)
        cache.setValue(7, forKey: 7, cost: 1)  // usable after removeAll
        #expect(cache.value(forKey: 7) == 7)
    }

    @Test("slots are reused: heavy churn keeps exactly the newest entries")
    func churn() {
        let cache = MemoryCache<Int, Int>(costLimit: .max, countLimit: 1000)
        for i in 0..<100_000 { cache.setValue(i, forKey: i) }
        #expect(cache.count == 1000)
        #expect(Set(cache.keysByRecency) == Set(99_000..<100_000))
    }

    @Test("many tasks at once keep the limits and never lose consistency")
    func concurrentStress() async {
        let cache = MemoryCache<Int, Int>(costLimit: 50_000, countLimit: 2_000)
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    var rng = SystemRandomNumberGenerator()
                    for i in 0..<20_000 {
                        let key = Int.random(in: 0..<5_000, using: &rng)
                        switch i % 4 {
                        case 0, 1: cache.setValue(key &* t, forKey: key, cost: Int.random(in: 1...40, using: &rng))
                        case 2: _ = cache.value(forKey: key)
                        default: if i % 97 == 0 { cache.removeValue(forKey: key) } else { _ = cache.contains(key) }
                        }
                    }
                }
            }
        }
        #expect(cache.totalCost <= 50_000 && cache.count <= 2_000)
        let keys = cache.keysByRecency
        #expect(keys.count == cache.count && Set(keys).count == keys.count)
    }

    @Test("images cost their decoded bytes over all frames")
    func imageCost() throws {
        let cache = MemoryCache<String, Image>(costLimit: 100_000)
        let buffer = try Fixtures.gradient(width: 10, height: 10)
        let animated = try Image(frames: [ImageFrame(buffer: buffer, duration: 0.1), ImageFrame(buffer: buffer, duration: 0.1)])
        cache.setImage(Image(buffer: buffer), forKey: "still")
        cache.setImage(animated, forKey: "anim")
        #expect(cache.totalCost == 400 + 800)
        #expect(cache.image(forKey: "anim")?.frames.count == 2)
        cache.removeImage(forKey: "anim")
        #expect(cache.totalCost == 400)
    }

    @Test("the default cost limit is 15% of physical memory, at most 768 MiB")
    func defaultLimit() {
        let expected = min(Int(ProcessInfo.processInfo.physicalMemory / 100 * 15), 768 << 20)
        #expect(MemoryCache<Int, Int>.defaultCostLimit == expected)
        #expect(MemoryCache<Int, Int>().costLimit == expected)
    }
}

@Suite("MemoryPressureWatcher")
struct MemoryPressureWatcherTests {
    func write(_ text: String, to path: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }

    @Test("PSI: some avg10 over the threshold warns, full avg10 is critical")
    func psi() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("psi-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let watcher = MemoryPressureWatcher(source: .psi(path: path), thresholdPercent: 10)
        try write("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", to: path)
        #expect(watcher.poll() == .normal)
        try write("some avg10=12.50 avg60=3.00 avg300=1.00 total=99\nfull avg10=2.00 avg60=0.00 avg300=0.00 total=5\n", to: path)
        #expect(watcher.poll() == .warning)
        try write("some avg10=40.00 avg60=3.00 avg300=1.00 total=99\nfull avg10=25.00 avg60=0.00 avg300=0.00 total=5\n", to: path)
        #expect(watcher.poll() == .critical)
        try write("garbage", to: path)
        #expect(watcher.poll() == .normal)
    }

    @Test("cgroup v2: 90% of memory.max warns, 95% is critical, 'max' means no limit")
    func cgroup() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let watcher = MemoryPressureWatcher(source: .cgroup(directory: dir.path))
        try write("1000\n", to: dir.path + "/memory.max")
        try write("500\n", to: dir.path + "/memory.current")
        #expect(watcher.poll() == .normal)
        try write("910\n", to: dir.path + "/memory.current")
        #expect(watcher.poll() == .warning)
        try write("960\n", to: dir.path + "/memory.current")
        #expect(watcher.poll() == .critical)
        try write("max\n", to: dir.path + "/memory.max")
        #expect(watcher.poll() == .normal)
    }

    @Test("pressure trims an attached cache: half on warning, everything when critical")
    func trimsCache() {
        let cache = MemoryCache<Int, Int>(costLimit: 10_000)
        for i in 0..<100 { cache.setValue(i, forKey: i, cost: 10) }
        let level = LevelBox()
        let watcher = MemoryPressureWatcher(source: .custom { level.value })
        watcher.trims(cache)
        #expect(watcher.poll() == .normal && cache.totalCost == 1000)
        level.value = .warning
        watcher.poll()
        #expect(cache.totalCost == 500 && cache.value(forKey: 99) == 99 && cache.value(forKey: 0) == nil)
        level.value = .critical
        watcher.poll()
        #expect(cache.count == 0)
    }

    @Test("polling on its own task fires the handlers")
    func background() async throws {
        let fired = LevelBox()
        let watcher = MemoryPressureWatcher(source: .custom { .warning }, interval: .milliseconds(20))
        watcher.onPressure { fired.value = $0 }
        watcher.start()
        for _ in 0..<500 where fired.value != .warning { try await Task.sleep(for: .milliseconds(10)) }
        watcher.stop()
        #expect(fired.value == .warning)
    }
}

/// A lock-protected level for tests.
final class LevelBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = MemoryPressureLevel.normal
    var value: MemoryPressureLevel {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// A clock the test moves by hand.
final class ManualTime: @unchecked Sendable {
    private let lock = NSLock()
    private var current = ContinuousClock.now
    var now: ContinuousClock.Instant { lock.withLock { current } }
    func advance(_ d: Duration) { lock.withLock { current += d } }
}
