// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Dispatch
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs blocking, CPU-heavy work (decoding, resampling, encoding) on its own threads, at most
/// ``maxConcurrentCount`` at a time, highest priority first.
///
/// Work runs on the queue's own lanes (serial Dispatch queues, one thread each while busy), never
/// on Swift's cooperative pool, so a long decode cannot starve the tasks that move bytes, and
/// `maxConcurrentCount` lanes really do run at once. Waiting work is ordered by priority, read when a
/// thread comes free (so a priority that rises while the work waits counts), then work that
/// continues something begun (see `continuing` in ``run(priority:continuing:_:)``) before work
/// that starts something, then by arrival in ``order``. Work whose caller is cancelled while it waits is dropped without running; work
/// already running finishes, since a C decoder cannot be interrupted halfway.
///
/// Imago's pipeline uses ``processing`` for decode, transform and encode unless configured
/// otherwise. Size it to the cores the process may use; more only adds memory, since every
/// running decode holds a full bitmap.
public final class WorkQueue: Sendable {
    /// The queue decoding, transforms and encoding share by default: one thread per active core.
    public static let processing = WorkQueue(label: "imago.processing")

    /// One thread per core this process may run on (at least 1).
    public static var defaultConcurrency: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// A name for logs and metrics.
    public let label: String
    /// Work items running at once. Default ``defaultConcurrency``.
    public let maxConcurrentCount: Int
    /// Order among waiting work of equal priority. Default ``QueueOrder/fifo``.
    public let order: QueueOrder
    /// What each lane's thread does as it starts and stops running work. Default `nil`: nothing.
    public let laneHooks: LaneHooks?

    /// Code a lane's thread runs around its work: `enter` before the first job of a busy spell,
    /// `leave` after the last, both on that thread. A lane runs its spells one after another, so
    /// its `enter` and `leave` alternate; between spells the thread goes back to Dispatch's
    /// pool, and `leave` must undo whatever `enter` did to it.
    ///
    /// imago-server uses them to pin lane *i* to the *i*-th CPU it may use, so that two decodes
    /// never share a core while another sits idle.
    public struct LaneHooks: Sendable {
        /// Runs on the lane's thread before its work, with the lane's index (0 up to
        /// ``WorkQueue/maxConcurrentCount`` - 1).
        public var enter: @Sendable (_ lane: Int) -> Void
        /// Runs on the same thread after the lane's work, with the same index.
        public var leave: @Sendable (_ lane: Int) -> Void

        /// Creates hooks.
        public init(enter: @escaping @Sendable (_ lane: Int) -> Void, leave: @escaping @Sendable (_ lane: Int) -> Void) {
            self.enter = enter
            self.leave = leave
        }
    }

    private struct Job: Sendable {
        let run: @Sendable () -> Void
        let cancel: @Sendable () -> Void
    }

    private struct State {
        var waiting = WaitList<Job>()
        var running = 0
        var nextID = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        var blockedWaiters: [DispatchSemaphore] = []
        var freeLanes: [Int]
    }

    private let state: Mutex<State>
    private let lanes: [DispatchQueue]

    /// Creates a queue.
    ///
    /// - Parameters:
    ///   - label: A name for logs.
    ///   - maxConcurrentCount: Default ``defaultConcurrency``; values under 1 count as 1.
    ///   - order: Default ``QueueOrder/fifo``.
    ///   - laneHooks: What each lane's thread does around its work. Default `nil`: nothing.
    public init(
        label: String, maxConcurrentCount: Int = WorkQueue.defaultConcurrency, order: QueueOrder = .fifo,
        laneHooks: LaneHooks? = nil
    ) {
        self.label = label
        self.maxConcurrentCount = max(1, maxConcurrentCount)
        self.order = order
        self.laneHooks = laneHooks
        lanes = (0..<self.maxConcurrentCount).map { DispatchQueue(label: "\(label).\($0)", qos: .userInitiated) }
        state = Mutex(State(freeLanes: Array((0..<self.maxConcurrentCount).reversed())))
    }

    /// Work waiting for a thread, and work running now.
    public var counts: (waiting: Int, running: Int) {
        state.withLock { ($0.waiting.count, $0.running) }
    }

    /// Runs `work` on one of the queue's threads when its turn comes, and returns its result.
    ///
    /// - Parameters:
    ///   - priority: Default ``ImagePriority/normal``.
    ///   - continuing: The work carries on something the queue already ran for the same caller
    ///     (a transform after its decode, an encode after its transform). It then goes before
    ///     waiting work of its priority that would start something new, so what was begun
    ///     finishes first: a caller's latency does not grow by other callers' decodes that
    ///     arrived while it was between steps, and fewer half-done bitmaps wait in memory.
    ///     Default `false`.
    ///   - work: The blocking work.
    /// - Throws: `CancellationError` when the calling task is cancelled before `work` starts
    ///   (it then never runs); otherwise whatever `work` throws.
    public func run<T: Sendable>(
        priority: ImagePriority = .normal, continuing: Bool = false,
        _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await run(priority: PriorityCell(priority), continuing: continuing, work)
    }

    /// Runs `work` with a priority that may change while it waits.
    package func run<T: Sendable>(
        priority: any PrioritySource, continuing: Bool = false,
        _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        // A probe bound to the caller counts what the work does on the lane's thread too.
        let work = PipelineProbe.current.map { probe in { @Sendable in try PipelineProbe.$current.withValue(probe) { try work() } } } ?? work
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let job = Job(
                    run: { continuation.resume(with: Result { try work() }) },
                    cancel: { continuation.resume(throwing: CancellationError()) })
                enqueue(job, id: id, priority: priority, continuing: continuing, cancellable: true)
            }
        } onCancel: {
            let job = state.withLock { $0.waiting.remove(id: id) }
            job?.cancel()
        }
    }

    /// Queues `work` without waiting for it (background cache writes, say). It runs even if the
    /// caller goes away; ``waitUntilIdle()`` waits for it.
    ///
    /// - Parameters:
    ///   - priority: Default ``ImagePriority/normal``.
    ///   - work: The blocking work.
    public func submit(priority: ImagePriority = .normal, _ work: @escaping @Sendable () -> Void) {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        enqueue(Job(run: work, cancel: {}), id: id, priority: PriorityCell(priority), continuing: false, cancellable: false)
    }

    /// Returns once nothing is running or waiting.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if s.running == 0 && s.waiting.isEmpty { return true }
                s.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Blocks the calling thread until nothing is running or waiting, or until `timeout` has
    /// passed: what a process does at exit, where it cannot await. Never call it from one of the
    /// queue's own lanes.
    ///
    /// - Returns: `true` when the queue became idle, `false` when the time ran out first.
    package func blockUntilIdle(timeout: Duration) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let idle = state.withLock { s -> Bool in
            if s.running == 0 && s.waiting.isEmpty { return true }
            s.blockedWaiters.append(semaphore)
            return false
        }
        if idle { return true }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + attoseconds / 1_000_000_000
        return semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .success
    }

    private func enqueue(_ job: Job, id: Int, priority: any PrioritySource, continuing: Bool, cancellable: Bool) {
        enum Next { case start(Int), wait, cancelled }
        let next = state.withLock { s -> Next in
            // Read under the lock: a cancellation handler that ran before this saw nothing to remove.
            if cancellable && Task.isCancelled { return .cancelled }
            if s.running < maxConcurrentCount, let lane = s.freeLanes.popLast() {
                s.running += 1
                return .start(lane)
            }
            s.waiting.append(job, id: id, priority: priority, continues: continuing)
            return .wait
        }
        switch next {
        case .start(let lane): startWorker(on: lane, with: job)
        case .wait: break
        case .cancelled: job.cancel()
        }
    }

    /// One lane's loop: run the job, then whatever is waiting, until nothing is.
    private func startWorker(on lane: Int, with first: Job) {
        lanes[lane].async { [self] in
            laneHooks?.enter(lane)
            // `leave` runs after the lane has counted itself free below; work arriving in between
            // is queued on this serial lane, so its `enter` still comes after this `leave`.
            defer { laneHooks?.leave(lane) }
            var job = first
            while true {
                job.run()
                let (next, idle, blocked) = state.withLock { s -> (Job?, [CheckedContinuation<Void, Never>], [DispatchSemaphore]) in
                    if let next = s.waiting.popNext(order: order) { return (next, [], []) }
                    s.running -= 1
                    s.freeLanes.append(lane)
                    guard s.running == 0 else { return (nil, [], []) }
                    defer {
                        s.idleWaiters = []
                        s.blockedWaiters = []
                    }
                    return (nil, s.idleWaiters, s.blockedWaiters)
                }
                for waiter in idle { waiter.resume() }
                for semaphore in blocked { semaphore.signal() }
                guard let next else { return }
                job = next
            }
        }
    }
}
