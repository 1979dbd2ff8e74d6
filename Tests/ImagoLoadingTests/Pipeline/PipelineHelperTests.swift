// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoLoading

@Suite("The pipeline's disk writer and latest-only work")
struct PipelineHelperTests {
    @Test("pending writes are readable until written; the last write of a key wins; flush waits for all")
    func writer() async throws {
        let disk = MockDataCache()
        let writer = DiskWriter(cache: disk)
        for i in 0..<50 { writer.store(CachedData(data: Data([UInt8(i)]), metadata: ["n": "\(i)"]), forKey: "k\(i % 5)") }
        // Whatever has not reached the disk yet is served from the staging area, newest first.
        #expect(writer.pending(forKey: "k4").map { $0.data == Data([49]) || $0.data == Data([44]) || $0.data.first.map { $0 % 5 == 4 } == true } ?? true)
        await writer.flush()
        #expect(disk.keys == ["k0", "k1", "k2", "k3", "k4"] && disk.writeCount == 50)
        #expect(try disk.cachedData(forKey: "k4") == CachedData(data: Data([49]), metadata: ["n": "49"]))
        #expect((0..<5).allSatisfy { writer.pending(forKey: "k\($0)") == nil })
        await writer.storeNow(CachedData(data: Data([7])), forKey: "now")
        #expect(try disk.cachedData(forKey: "now")?.data == Data([7]) && writer.pending(forKey: "now") == nil)
    }

    @Test("writes reach the disk in the order asked: a waited write never overtakes an earlier one of the same key")
    func order() async throws {
        let disk = MockDataCache()
        disk.setWriteDelay(0.02)
        let writer = DiskWriter(cache: disk)
        writer.store(CachedData(data: Data([1])), forKey: "other")
        writer.store(CachedData(data: Data([1])), forKey: "k")
        await writer.storeNow(CachedData(data: Data([2])), forKey: "k")
        #expect(try disk.cachedData(forKey: "k")?.data == Data([2]))
        await writer.flush()
        #expect(try disk.cachedData(forKey: "k")?.data == Data([2]) && disk.writeCount == 3)
    }

    @Test("staged bytes are readable at once, written when committed (once), and forgotten when nobody commits them")
    func staging() async throws {
        let disk = MockDataCache()
        let writer = DiskWriter(cache: disk)
        var kept: PendingWrite? = writer.stage(CachedData(data: Data([1])), forKey: "kept")
        var dropped: PendingWrite? = writer.stage(CachedData(data: Data([2])), forKey: "dropped")
        #expect(writer.pending(forKey: "kept")?.data == Data([1]) && writer.pending(forKey: "dropped")?.data == Data([2]))
        kept?.commit()
        kept?.commit()
        dropped = nil
        #expect(writer.pending(forKey: "dropped") == nil)
        await writer.flush()
        #expect(disk.keys == ["kept"] && disk.writeCount == 1 && writer.pending(forKey: "kept") == nil)
        kept = nil
        let waited = writer.stage(CachedData(data: Data([3])), forKey: "waited")
        await waited.commitAndWait()
        #expect(try disk.cachedData(forKey: "waited")?.data == Data([3]))
        _ = dropped
    }

    @Test("a failing write is logged, not thrown, and leaves nothing staged; encoding for the disk runs in the background")
    func failingWrite() async throws {
        let disk = MockDataCache()
        disk.setFailing(true)
        let writer = DiskWriter(cache: disk)
        writer.store(CachedData(data: Data([1])), forKey: "a")
        await writer.storeNow(CachedData(data: Data([2])), forKey: "b")
        await writer.flush()
        #expect(writer.pending(forKey: "a") == nil && writer.pending(forKey: "b") == nil)
        disk.setFailing(false)
        writer.store(forKey: "made") { CachedData(data: Data([3])) }
        writer.store(forKey: "broken") { throw ImageCodingError.encoderUnavailable(.heic) }
        await writer.flush()
        #expect(disk.keys == ["made"])
    }

    @Test("latest-only work: one run at a time, newer input replaces waiting input, close waits for the run in flight")
    func latestWork() async throws {
        let queue = WorkQueue(label: "t", maxConcurrentCount: 2)
        let gate = Mutex(true)
        let running = Mutex((now: 0, peak: 0))
        let delivered = Mutex<[Int]>([])
        let work = LatestWork<Int, Int>(
            queue: queue, priority: PriorityCell(.normal),
            work: { n in
                running.withLock {
                    $0.now += 1
                    $0.peak = max($0.peak, $0.now)
                }
                while n == 0 && gate.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) }
                running.withLock { $0.now -= 1 }
                return n == 3 ? nil : n * 10
            }, deliver: { out in delivered.withLock { $0.append(out) } })
        work.offer(0)
        while running.withLock({ $0.now }) == 0 { try await Task.sleep(for: .milliseconds(1)) }
        for n in 1...4 { work.offer(n) }  // 1, 2, 3 are replaced by 4 while 0 runs
        gate.withLock { $0 = false }
        while delivered.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(1)) }
        await work.close()
        work.offer(5)  // after close: ignored
        try await Task.sleep(for: .milliseconds(20))
        #expect(delivered.withLock { $0 } == [0, 40])
        #expect(running.withLock { $0.peak } == 1)
    }
}
