// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Dispatch
import Foundation
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoCore

private struct WorkFailure: Error, Equatable {
    let code: Int
}

/// Counts the priority changes it hears of.
final class CountingObserver: PriorityObserver {
    private let calls = Mutex(0)
    var count: Int { calls.withLock { $0 } }
    func sourcePriorityDidChange() { calls.withLock { $0 += 1 } }
}

@Suite("WaitList, PriorityCell and PriorityGate ordering")
struct PriorityOrderTests {
    static func drain(_ list: inout WaitList<String>, _ order: QueueOrder) -> [String] {
        var out: [String] = []
        while let next = list.popNext(order: order) { out.append(next) }
        return out
    }

    @Test("highest priority first, then continuing work, then arrival in the queue's order; priorities are read when choosing")
    func choosing() {
        var list = WaitList<String>()
        let nothing = list.popNext(order: .fifo)
        #expect(list.isEmpty && nothing == nil)
        let rising = PriorityCell(.veryLow)
        list.append("n1", id: 1, priority: PriorityCell(.normal))
        list.append("n2", id: 2, priority: PriorityCell(.normal))
        list.append("step", id: 3, priority: PriorityCell(.normal), continues: true)
        list.append("low", id: 4, priority: PriorityCell(.low))
        list.append("rising", id: 5, priority: rising)
        #expect(list.count == 5)
        rising.set(.high)
        var fifo = list, lifo = list
        let fifoOrder = Self.drain(&fifo, .fifo), lifoOrder = Self.drain(&lifo, .lifo)
        #expect(fifoOrder == ["rising", "step", "n1", "n2", "low"])
        #expect(lifoOrder == ["rising", "step", "n2", "n1", "low"])
        #expect(fifo.isEmpty && lifo.count == 0)
    }

    @Test("a place reserved earlier ranks before later arrivals; a removed item is never chosen")
    func reservedAndRemoved() {
        var list = WaitList<Int>()
        let place = list.reserve()
        list.append(10, id: 1, priority: PriorityCell(.normal))
        list.append(20, id: 2, priority: PriorityCell(.normal))
        list.append(30, id: 3, priority: PriorityCell(.normal), sequence: place)
        let removed = list.remove(id: 2), missing = list.remove(id: 99)
        #expect(removed == 20 && missing == nil && list.count == 2)
        let first = list.popNext(order: .fifo), second = list.popNext(order: .fifo), third = list.popNext(order: .fifo)
        #expect(first == 30 && second == 10 && third == nil)
    }

    @Test("a priority cell tells its observers of real changes only, forgets removed ones, and does not keep them alive")
    func cellObservers() {
        let cell = PriorityCell(.normal)
        let a = CountingObserver(), b = CountingObserver()
        let tokenA = cell.addPriorityObserver(a)
        _ = cell.addPriorityObserver(b)
        cell.set(.normal)
        #expect(a.count == 0 && b.count == 0, "no change, no news")
        cell.set(.high)
        #expect(cell.currentPriority == .high && a.count == 1 && b.count == 1)
        cell.removePriorityObserver(tokenA)
        cell.set(.low)
        #expect(a.count == 1 && b.count == 2)
        weak var gone: CountingObserver?
        do {
            let temporary = CountingObserver()
            gone = temporary
            _ = cell.addPriorityObserver(temporary)
        }
        #expect(gone == nil, "held weakly")
        cell.set(.veryHigh)
        #expect(b.count == 3 && cell.currentPriority == .veryHigh)
    }

    @Test("a gate's limit is at least 1, and its waiters go LIFO among equals when asked")
    func gateLIFO() async throws {
        #expect(PriorityGate(limit: 0).limit == 1 && PriorityGate(limit: 3).order == .fifo)
        let gate = PriorityGate(limit: 1, order: .lifo)
        try await gate.enter(priority: PriorityCell(.normal))
        let log = EventLog()
        var waiters: [Task<Void, any Error>] = []
        for name in ["first", "second", "third"] {
            waiters.append(
                Task {
                    try await gate.enter(priority: PriorityCell(.normal))
                    log.append(name)
                    gate.leave()
                })
            let expected = waiters.count
            try await pollUntil { gate.counts.waiting == expected }
        }
        gate.leave()
        for waiter in waiters { try await waiter.value }
        #expect(log.all == ["third", "second", "first"] && gate.counts == (0, 0))
    }

    @Test("a place reserved before waiting keeps its rank; a task cancelled before it waits never waits")
    func gateReservation() async throws {
        let gate = PriorityGate(limit: 1)
        try await gate.enter(priority: PriorityCell(.normal))
        let place = gate.reservePlace()
        let log = EventLog()
        let plain = Task {
            try await gate.enter(priority: PriorityCell(.normal))
            log.append("plain")
            gate.leave()
        }
        try await pollUntil { gate.counts.waiting == 1 }
        let reserved = Task {
            try await gate.enter(priority: PriorityCell(.normal), place: place)
            log.append("reserved")
            gate.leave()
        }
        try await pollUntil { gate.counts.waiting == 2 }
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.enter(priority: PriorityCell(.veryHigh))
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(gate.counts == (2, 1))
        gate.leave()
        try await plain.value
        try await reserved.value
        #expect(log.all == ["reserved", "plain"] && gate.counts == (0, 0))
    }
}

@Suite("WorkQueue: results, errors, running work, idleness and probes")
struct WorkQueueBehaviourTests {
    @Test("run returns the work's value or rethrows its error; a count under 1 means one lane")
    func valuesAndErrors() async throws {
        let queue = WorkQueue(label: "values", maxConcurrentCount: 0)
        #expect(queue.maxConcurrentCount == 1 && queue.label == "values" && queue.order == .fifo && queue.laneHooks == nil)
        let value = try await queue.run { 6 * 7 }
        #expect(value == 42)
        await #expect(throws: WorkFailure(code: 3)) { try await queue.run { () throws -> Int in throw WorkFailure(code: 3) } }
        await queue.waitUntilIdle()
        #expect(queue.counts == (0, 0))
    }

    @Test("work already running finishes when its caller is cancelled, and the caller gets its value")
    func runningWorkFinishes() async throws {
        let queue = WorkQueue(label: "running", maxConcurrentCount: 1)
        let release = DispatchSemaphore(value: 0)
        let task = Task {
            try await queue.run { () -> Int in
                release.wait()
                return 7
            }
        }
        try await pollUntil { queue.counts.running == 1 }
        task.cancel()
        release.signal()
        #expect(try await task.value == 7)
    }

    @Test("background work waits its turn by priority, and waitUntilIdle waits for all of it")
    func submitOrder() async throws {
        let queue = WorkQueue(label: "submit", maxConcurrentCount: 1)
        let release = DispatchSemaphore(value: 0)
        let log = EventLog()
        await queue.waitUntilIdle()  // idle: returns at once
        queue.submit { release.wait() }
        #expect(queue.counts == (0, 1), "started at once on the free lane")
        queue.submit(priority: .low) { log.append("low") }
        queue.submit(priority: .veryHigh) { log.append("veryHigh") }
        queue.submit { log.append("normal") }
        #expect(queue.counts == (3, 1))
        release.signal()
        await queue.waitUntilIdle()
        #expect(log.all == ["veryHigh", "normal", "low"] && queue.counts == (0, 0))
    }

    @Test("blockUntilIdle: true at once when idle, false when the time runs out first, true once the work ends")
    func blockUntilIdle() async {
        let queue = WorkQueue(label: "block", maxConcurrentCount: 2)
        #expect(queue.blockUntilIdle(timeout: .zero))
        let release = DispatchSemaphore(value: 0)
        queue.submit { release.wait() }
        #expect(!queue.blockUntilIdle(timeout: .milliseconds(20)))
        release.signal()
        #expect(await blocking { queue.blockUntilIdle(timeout: .seconds(60)) })
        #expect(queue.counts == (0, 0))
    }

    @Test("a probe bound by the caller counts what the work does on the lane's thread, and no later job sees it")
    func probeCarried() async throws {
        let queue = WorkQueue(label: "probe", maxConcurrentCount: 1)
        let probe = PipelineProbe()
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0])
        let bound = try await PipelineProbe.$current.withValue(probe) {
            try await queue.run { () -> Bool in
                _ = ImageFormat(sniffing: jpeg)
                return PipelineProbe.current === probe
            }
        }
        #expect(bound && probe.count(ProbeEvent.sniff) == 1)
        let unbound = try await queue.run { () -> Bool in
            _ = ImageFormat(sniffing: jpeg)
            return PipelineProbe.current == nil
        }
        #expect(unbound && probe.count(ProbeEvent.sniff) == 1)
    }
}

@Suite("PipelineProbe: task-local counts")
struct PipelineProbeTests {
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

    static func record(_ event: String) async { PipelineProbe.record(event) }

    /// Subscribes with `probe` bound, as a request running under it would.
    static func subscribe(
        _ tasks: SharedTasks<String, Int, Never>, _ probe: PipelineProbe,
        _ operation: @escaping SharedTasks<String, Int, Never>.Operation
    ) -> SharedTasks<String, Int, Never>.Subscription {
        PipelineProbe.$current.withValue(probe) { tasks.subscribe("k", priority: PriorityCell(.normal), operation: operation) }
    }

    @Test("counts only inside its binding; a nested binding counts into the innermost probe; misses count as sniffs")
    func scoping() {
        let outer = PipelineProbe(), inner = PipelineProbe()
        _ = ImageFormat(sniffing: Self.png)
        PipelineProbe.$current.withValue(outer) {
            _ = ImageFormat(sniffing: Self.png)
            PipelineProbe.$current.withValue(inner) {
                _ = ImageFormat(sniffing: Data("not an image".utf8))
                PipelineProbe.record("custom")
            }
            Self.png.withUnsafeBytes { _ = ImageFormat(sniffing: $0) }
        }
        #expect(outer.all == [ProbeEvent.sniff: 2])
        #expect(inner.all == [ProbeEvent.sniff: 1, "custom": 1])
        #expect(outer.count("custom") == 0)
    }

    @Test("child tasks and unstructured tasks inherit the probe; detached tasks do not")
    func inheritance() async {
        let probe = PipelineProbe()
        await PipelineProbe.$current.withValue(probe) {
            async let child: Void = Self.record("asyncLet")
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { await Self.record("group") } }
            }
            await Task { await Self.record("task") }.value
            await Task.detached { await Self.record("detached") }.value
            await child
        }
        #expect(probe.all == ["asyncLet": 1, "group": 4, "task": 1])
    }

    @Test("counts from many tasks at once are all kept")
    func concurrentCounts() async {
        let probe = PipelineProbe()
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask { for _ in 0..<250 { probe.add(t % 2 == 0 ? "even" : "odd") } }
            }
        }
        #expect(probe.all == ["even": 1000, "odd": 1000] && probe.count("missing") == 0)
    }

    @Test("each subscribe counts a lookup in its named table; the operation counts into the probe of the subscriber that started it")
    func sharedLookups() async throws {
        let tasks = SharedTasks<String, Int, Never>(name: "decode")
        #expect(tasks.name == "decode" && SharedTasks<Int, Int, Never>().name == "shared")
        let gate = OneShot()
        let first = PipelineProbe(), second = PipelineProbe()
        let operation: SharedTasks<String, Int, Never>.Operation = { _ in
            _ = ImageFormat(sniffing: Data([0xFF, 0xD8, 0xFF]))
            await gate.wait()
            return 5
        }
        let a = Self.subscribe(tasks, first, operation)
        let b = Self.subscribe(tasks, second, operation)
        #expect(tasks.subscriberCount("k") == 2)
        gate.open()
        #expect(try await a.value() == 5)
        #expect(try await b.value() == 5)
        #expect(first.all == [ProbeEvent.lookup("decode"): 1, ProbeEvent.sniff: 1])
        #expect(second.all == [ProbeEvent.lookup("decode"): 1])
    }
}

@Suite("SharedTasks: events, errors, leaving, and priority flowing down")
struct SharedTasksBehaviourTests {
    @Test("events reach only the subscribers that accept them, before the value")
    func eventFilter() async throws {
        typealias Table = SharedTasks<String, Int, String>
        let tasks = Table(name: "events")
        let start = OneShot(), finish = OneShot()
        let operation: Table.Operation = { context in
            await start.wait()
            for event in ["a", "b", "c"] { context.send(event) }
            await finish.wait()
            return 9
        }
        let onlyA = tasks.subscribe("k", priority: PriorityCell(.normal), accepts: { $0 == "a" }, operation: operation)
        let notA = tasks.subscribe("k", priority: PriorityCell(.normal), accepts: { $0 != "a" }, operation: operation)
        let none = tasks.subscribe("k", priority: PriorityCell(.normal), operation: operation)
        let logA = EventLog(), logNotA = EventLog(), logNone = EventLog()
        let readA = Task { try await onlyA.value { logA.append($0) } }
        let readNotA = Task { try await notA.value { logNotA.append($0) } }
        let readNone = Task { try await none.value { logNone.append($0) } }
        start.open()
        try await pollUntil { logA.all == ["a"] && logNotA.all == ["b", "c"] }
        finish.open()
        let valueA = try await readA.value, valueNotA = try await readNotA.value, valueNone = try await readNone.value
        #expect(valueA == 9 && valueNotA == 9 && valueNone == 9)
        #expect(logA.all == ["a"] && logNotA.all == ["b", "c"] && logNone.all.isEmpty)
    }

    @Test("hasEventSubscribers says whether any subscriber accepts events at all")
    func wantsEvents() async throws {
        let tasks = SharedTasks<String, Bool, Int>(name: "wants")
        let operation: SharedTasks<String, Bool, Int>.Operation = { context in context.hasEventSubscribers }
        let quiet = tasks.subscribe("quiet", priority: PriorityCell(.normal), operation: operation)
        let loud = tasks.subscribe("loud", priority: PriorityCell(.normal), accepts: { _ in false }, operation: operation)
        #expect(try await quiet.value() == false)
        #expect(try await loud.value() == true)
    }

    @Test("the operation's error reaches every subscriber and frees the key")
    func errorToAll() async throws {
        let tasks = SharedTasks<Int, String, Never>(name: "errors")
        let gate = OneShot()
        let operation: SharedTasks<Int, String, Never>.Operation = { _ in
            await gate.wait()
            throw WorkFailure(code: 1)
        }
        let subscriptions = (0..<3).map { _ in tasks.subscribe(1, priority: PriorityCell(.normal), operation: operation) }
        #expect(tasks.count == 1 && tasks.subscriberCount(1) == 3)
        gate.open()
        for subscription in subscriptions {
            await #expect(throws: WorkFailure(code: 1)) { try await subscription.value() }
        }
        #expect(tasks.count == 0 && tasks.subscriberCount(1) == 0)
    }

    @Test("cancelling the task that waits for the value leaves; the last one leaving cancels the operation")
    func taskCancellationLeaves() async throws {
        let tasks = SharedTasks<String, Int, Never>(name: "leave")
        let started = OneShot(), cancelled = OneShot()
        let subscription = tasks.subscribe("k", priority: PriorityCell(.normal)) { _ in
            started.open()
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.open()
                throw error
            }
            return 0
        }
        let waiter = Task { try await subscription.value() }
        await started.wait()
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await cancelled.wait()
        #expect(tasks.count == 0 && tasks.subscriberCount("k") == 0)
    }

    @Test("after the last subscriber leaves, a new one starts afresh; the old operation ending late touches nothing")
    func lateFinish() async throws {
        let tasks = SharedTasks<String, Int, Never>(name: "late")
        let oldStarted = OneShot(), oldRelease = OneShot(), oldDone = OneShot(), newRelease = OneShot()
        let old = tasks.subscribe("k", priority: PriorityCell(.normal)) { _ in
            oldStarted.open()
            await oldRelease.wait()  // deaf to its cancellation
            oldDone.open()
            return 1
        }
        await oldStarted.wait()
        old.cancel()
        #expect(tasks.count == 0)
        await #expect(throws: CancellationError.self) { try await old.value() }
        let fresh = tasks.subscribe("k", priority: PriorityCell(.normal)) { _ in
            await newRelease.wait()
            return 2
        }
        #expect(tasks.count == 1)
        oldRelease.open()
        await oldDone.wait()
        // Give the old operation's end a moment: it must not remove the new entry.
        for _ in 0..<20 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(10))
        #expect(tasks.count == 1 && tasks.subscriberCount("k") == 1)
        newRelease.open()
        #expect(try await fresh.value() == 2)
        #expect(tasks.count == 0)
    }

    @Test("a shared operation waiting on a WorkQueue overtakes other work when one of its subscribers' priority rises")
    func priorityFlowsDown() async throws {
        let queue = WorkQueue(label: "flow", maxConcurrentCount: 1)
        let tasks = SharedTasks<String, Int, Never>(name: "flow")
        let release = DispatchSemaphore(value: 0)
        let log = EventLog()
        queue.submit { release.wait() }
        let high = Task { try await queue.run(priority: .high) { log.append("high") } }
        try await pollUntil { queue.counts.waiting == 1 }
        let caller = PriorityCell(.low)
        let contextObserver = CountingObserver()
        let shared = tasks.subscribe("k", priority: caller) { context in
            _ = context.addPriorityObserver(contextObserver)
            return try await queue.run(priority: context) { () -> Int in
                log.append("shared")
                return 1
            }
        }
        // Queued at low, behind the high job.
        try await pollUntil { queue.counts.waiting == 2 }
        let heard = contextObserver.count
        caller.set(.veryHigh)
        #expect(contextObserver.count == heard + 1, "the operation's own priority rose, and it told its observers")
        release.signal()
        #expect(try await shared.value() == 1)
        try await high.value
        #expect(log.all == ["shared", "high"])
    }
}
