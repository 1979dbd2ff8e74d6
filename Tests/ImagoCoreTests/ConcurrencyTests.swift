// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Synchronization
import Testing

@testable import ImagoCore

@Suite("WorkQueue, PriorityGate and SharedTasks")
struct ConcurrencyTests {
    /// Records how many pieces of work run at once, and in which order they started.
    final class Probe: Sendable {
        private let state = Mutex((running: 0, peak: 0, order: [String]()))
        var peak: Int { state.withLock { $0.peak } }
        var order: [String] { state.withLock { $0.order } }
        func run(_ name: String, for duration: TimeInterval) {
            state.withLock { s in
                s.running += 1
                s.peak = max(s.peak, s.running)
                s.order.append(name)
            }
            Thread.sleep(forTimeInterval: duration)
            state.withLock { $0.running -= 1 }
        }
    }

    /// Keeps a one-lane queue's lane busy until released, so work queued meanwhile waits.
    final class Occupier: Sendable {
        private let busy = Mutex(true)
        /// Starts the occupying work and returns once it runs.
        func occupy(_ queue: WorkQueue) async throws -> Task<Void, any Error> {
            let task = Task { try await queue.run { while self.busy.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) } } }
            while queue.counts.running == 0 { try await Task.sleep(for: .milliseconds(1)) }
            return task
        }
        func release() { busy.withLock { $0 = false } }
    }

    /// Names in the order they were added, from any thread.
    final class Names: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test("a work queue runs at most its count at once, and that many when there is work", arguments: [1, 2, 4])
    func bounded(_ count: Int) async throws {
        let queue = WorkQueue(label: "t", maxConcurrentCount: count)
        let probe = Probe()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<12 { group.addTask { try await queue.run { probe.run("\(i)", for: 0.02) } } }
            try await group.waitForAll()
        }
        #expect(probe.peak == count)
        // A lane counts itself free just after its last job's caller resumes: wait for that.
        await queue.waitUntilIdle()
        #expect(queue.counts == (0, 0))
    }

    /// A lane's busy spells as its hooks saw them.
    final class Spells: Sendable {
        struct State {
            var open: [UInt: Int] = [:]  // thread -> lane
            var events: [Int: [String]] = [:]  // lane -> enter/leave in order
            var misplaced = 0
            var outside = 0
        }
        let state = Mutex(State())
        static var thread: UInt { UInt(pthread_self()) }
        func enter(_ lane: Int) {
            state.withLock { s in
                if s.open[Self.thread] != nil { s.misplaced += 1 }
                s.open[Self.thread] = lane
                s.events[lane, default: []].append("enter")
            }
        }
        func leave(_ lane: Int) {
            state.withLock { s in
                if s.open.removeValue(forKey: Self.thread) != lane { s.misplaced += 1 }
                s.events[lane, default: []].append("leave")
            }
        }
        func work() {
            state.withLock { s in if s.open[Self.thread] == nil { s.outside += 1 } }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    @Test("lane hooks wrap each busy spell of a lane on its own thread: enter, the work, then leave")
    func laneHooks() async throws {
        let spells = Spells()
        let queue = WorkQueue(
            label: "t", maxConcurrentCount: 2,
            laneHooks: WorkQueue.LaneHooks(enter: { spells.enter($0) }, leave: { spells.leave($0) }))
        #expect(queue.laneHooks != nil)
        for _ in 0..<3 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await queue.run { spells.work() } } }
                try await group.waitForAll()
            }
            await queue.waitUntilIdle()
            // `leave` runs just after the lane counts itself free.
            let deadline = ContinuousClock.now + .seconds(5)
            while spells.state.withLock({ !$0.open.isEmpty }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        }
        let final = spells.state.withLock { $0 }
        #expect(final.outside == 0, "work ran outside its lane's hooks")
        #expect(final.misplaced == 0 && final.open.isEmpty)
        #expect(Set(final.events.keys).isSubset(of: [0, 1]) && final.events.keys.contains(0))
        for (lane, events) in final.events {
            // At least one spell, enter and leave alternating.
            #expect(events.count >= 2 && events.count % 2 == 0, "lane \(lane)")
            #expect(events.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? "enter" : "leave") }, "lane \(lane): \(events)")
        }
    }

    @Test("waiting work runs highest priority first, FIFO or LIFO among equals; a raised priority counts")
    func order() async throws {
        for order in [QueueOrder.fifo, .lifo] {
            let queue = WorkQueue(label: "t", maxConcurrentCount: 1, order: order)
            let probe = Probe()
            let occupier = Occupier()
            let blocker = try await occupier.occupy(queue)
            let bumped = PriorityCell(.veryLow)
            var tasks: [Task<Void, any Error>] = []
            for (name, priority) in [
                ("n1", PriorityCell(.normal)), ("low", PriorityCell(.low)), ("n2", PriorityCell(.normal)),
                ("high", PriorityCell(.high)), ("bumped", bumped)
            ] {
                tasks.append(Task { try await queue.run(priority: priority) { probe.run(name, for: 0) } })
                while queue.counts.waiting < tasks.count { try await Task.sleep(for: .milliseconds(1)) }
            }
            bumped.set(.veryHigh)
            occupier.release()
            try await blocker.value
            for t in tasks { try await t.value }
            let expected = order == .fifo ? ["bumped", "high", "n1", "n2", "low"] : ["bumped", "high", "n2", "n1", "low"]
            #expect(probe.order == expected, "\(order)")
        }
    }

    @Test("work that continues something begun goes before new work of its priority, never before higher priority")
    func continuingFirst() async throws {
        for order in [QueueOrder.fifo, .lifo] {
            let queue = WorkQueue(label: "t", maxConcurrentCount: 1, order: order)
            let probe = Probe()
            let occupier = Occupier()
            let blocker = try await occupier.occupy(queue)
            var tasks: [Task<Void, any Error>] = []
            for (name, priority, continuing) in [
                ("new1", ImagePriority.normal, false), ("step1", .normal, true),
                ("new2", .normal, false), ("step2", .normal, true),
                ("high", .high, false), ("lowStep", .low, true)
            ] {
                tasks.append(Task { try await queue.run(priority: priority, continuing: continuing) { probe.run(name, for: 0) } })
                while queue.counts.waiting < tasks.count { try await Task.sleep(for: .milliseconds(1)) }
            }
            occupier.release()
            try await blocker.value
            for t in tasks { try await t.value }
            let expected =
                order == .fifo
                ? ["high", "step1", "step2", "new1", "new2", "lowStep"]
                : ["high", "step2", "step1", "new2", "new1", "lowStep"]
            #expect(probe.order == expected, "\(order)")
        }
    }

    @Test("work whose caller is cancelled while it waits never runs; idle waits for background work")
    func cancellationAndIdle() async throws {
        let queue = WorkQueue(label: "t", maxConcurrentCount: 1)
        let probe = Probe()
        let gate = Mutex(true)
        queue.submit { while gate.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.001) } }
        let waiting = Task { try await queue.run { probe.run("never", for: 0) } }
        while queue.counts.waiting == 0 { try await Task.sleep(for: .milliseconds(1)) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(queue.counts.waiting == 0)
        // Already cancelled before it is queued: never queued.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await queue.run { probe.run("never", for: 0) }
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        queue.submit { probe.run("background", for: 0.01) }
        gate.withLock { $0 = false }
        await queue.waitUntilIdle()
        #expect(probe.order == ["background"] && queue.counts == (0, 0))
    }

    @Test("a gate admits its limit; waiters go by priority; a cancelled waiter leaves the line")
    func gate() async throws {
        let gate = PriorityGate(limit: 2)
        try await gate.enter(priority: PriorityCell(.normal))
        try await gate.enter(priority: PriorityCell(.normal))
        #expect(gate.counts == (0, 2))
        let order = Names()
        let low = Task {
            try await gate.enter(priority: PriorityCell(.low))
            order.append("low")
        }
        while gate.counts.waiting < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let cancelled = Task {
            try await gate.enter(priority: PriorityCell(.veryHigh))
            order.append("cancelled")
        }
        while gate.counts.waiting < 2 { try await Task.sleep(for: .milliseconds(1)) }
        let high = Task {
            try await gate.enter(priority: PriorityCell(.high))
            order.append("high")
        }
        while gate.counts.waiting < 3 { try await Task.sleep(for: .milliseconds(1)) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(gate.counts == (2, 2))
        gate.leave()
        try await high.value
        gate.leave()
        try await low.value
        #expect(order.all == ["high", "low"])
        gate.leave()
        gate.leave()
        #expect(gate.counts == (0, 0))
    }

    @Test("shared tasks: one operation per key, its value to every subscriber, events to those who want them")
    func sharing() async throws {
        let tasks = SharedTasks<String, Int, String>()
        let runs = Mutex(0)
        let release = Mutex(false)
        let all: @Sendable (String) -> Bool = { _ in true }
        func subscribe(_ wantsEvents: Bool) -> SharedTasks<String, Int, String>.Subscription {
            tasks.subscribe("k", priority: PriorityCell(.normal), accepts: wantsEvents ? all : nil) {
                (context: SharedTasks<String, Int, String>.Context) async throws -> Int in
                runs.withLock { $0 += 1 }
                context.send("started")
                while !release.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
                return 42
            }
        }
        let quiet = subscribe(false), loud = subscribe(true)
        #expect(tasks.count == 1 && tasks.subscriberCount("k") == 2)
        release.withLock { $0 = true }
        var events: [String] = []
        let value = try await loud.value { events.append($0) }
        #expect(try await quiet.value() == 42 && value == 42)
        #expect(runs.withLock { $0 } == 1 && events == ["started"] && tasks.count == 0)
        // A later subscriber starts afresh.
        #expect(try await subscribe(false).value() == 42 && runs.withLock { $0 } == 2)
    }

    @Test("shared tasks: the last subscriber leaving cancels the operation; the priority is the highest subscriber's, live")
    func cancelAndPriority() async throws {
        let tasks = SharedTasks<String, Int, Never>()
        let cancelled = Mutex(false)
        let seen = Mutex<ImagePriority?>(nil)
        let check = Mutex(false)
        let a = PriorityCell(.low), b = PriorityCell(.normal)
        let operation: SharedTasks<String, Int, Never>.Operation = { context in
            do {
                while true {
                    if check.withLock({ $0 }) { seen.withLock { $0 = context.currentPriority } }
                    try await Task.sleep(for: .milliseconds(1))
                }
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
        }
        let first = tasks.subscribe("k", priority: a, operation: operation)
        let second = tasks.subscribe("k", priority: b, operation: operation)
        check.withLock { $0 = true }
        while seen.withLock({ $0 }) != .normal { try await Task.sleep(for: .milliseconds(1)) }
        a.set(.veryHigh)
        while seen.withLock({ $0 }) != .veryHigh { try await Task.sleep(for: .milliseconds(1)) }
        first.cancel()
        while seen.withLock({ $0 }) != .normal { try await Task.sleep(for: .milliseconds(1)) }
        #expect(!cancelled.withLock { $0 })
        await #expect(throws: CancellationError.self) { try await first.value() }
        second.cancel()
        while !cancelled.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        #expect(tasks.count == 0)
        await #expect(throws: CancellationError.self) { try await second.value() }
    }
}
