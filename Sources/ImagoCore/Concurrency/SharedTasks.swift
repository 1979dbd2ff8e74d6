// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// What a subscriber of a shared task receives: events while it runs, then its value.
package enum SharedTaskOutput<Value: Sendable, Event: Sendable>: Sendable {
    /// Something the task reported on the way (progress, a partial result).
    case event(Event)
    /// The task's result; nothing follows it.
    case value(Value)
}

/// Work shared by everyone who asks for the same key: the one coalescing primitive of Imago's
/// pipeline, used by every stage (the downloader's transfers, original bytes, decoding,
/// processing) and by the cache's disk queries.
///
/// - The first subscriber of a key starts the operation; later ones join it while it runs.
/// - It runs while any subscriber remains. When the last one leaves, the operation is
///   cancelled, and the key is free for a new one at once.
/// - Its priority (``Context/currentPriority``) is the highest of its subscribers'. Changes are
///   pushed (a subscriber's priority tells the operation, which recomputes its own and tells its
///   observers), so reading it is one atomic load and queues see a change at once. A stage that
///   depends on another subscribes with its own context as the priority, so priority flows from
///   callers down to the download and decode they wait on.
/// - Events go to the subscribers that accept them; the value goes to every subscriber. A
///   subscriber that reads slowly keeps at most the newest event besides the value, so slow
///   readers cannot pile up partial images.
///
/// Locking: the table's lock is never held while calling out; under it only atomic priority
/// reads and the priority sources' own leaf locks (registering an observer) are taken.
/// Observers are notified with no lock held.
package final class SharedTasks<Key: Hashable & Sendable, Value: Sendable, Event: Sendable>: Sendable {
    package typealias Output = SharedTaskOutput<Value, Event>
    package typealias Stream = AsyncThrowingStream<Output, any Error>
    package typealias Operation = @Sendable (Context) async throws -> Value

    fileprivate struct Subscriber {
        var priority: any PrioritySource
        /// The registration with `priority`, so the operation hears of its changes.
        var token: Int
        var accepts: (@Sendable (Event) -> Bool)?
        var continuation: Stream.Continuation
    }

    private struct State {
        var entries: [Key: Context] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    /// The table's name, for ``PipelineProbe`` counts (`lookup:<name>`).
    package let name: String

    /// Creates an empty table named `name` (default `"shared"`).
    package init(name: String = "shared") {
        self.name = name
    }

    /// Operations running now.
    package var count: Int { state.withLock { $0.entries.count } }

    /// Subscribers of the operation for `key`, or 0.
    package func subscriberCount(_ key: Key) -> Int {
        state.withLock { $0.entries[key]?.subscribers.count ?? 0 }
    }

    /// Joins the operation for `key`, starting it with `operation` when none is running.
    ///
    /// - Parameters:
    ///   - priority: This subscriber's priority; it may change later.
    ///   - accepts: Which events this subscriber wants; `nil` (the default) for the value only.
    package func subscribe(
        _ key: Key, priority: any PrioritySource, accepts: (@Sendable (Event) -> Bool)? = nil,
        operation: @escaping Operation
    ) -> Subscription {
        PipelineProbe.record(ProbeEvent.lookup(name))
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(2))
        let (entry, id, raised) = state.withLock { s -> (Context, Int, Bool) in
            s.nextID += 1
            let entry: Context
            if let existing = s.entries[key] {
                entry = existing
            } else {
                entry = Context(tasks: self, key: key)
                s.entries[key] = entry
                entry.task = Task { [self] in await self.run(entry, operation: operation) }
            }
            let token = priority.addPriorityObserver(entry)
            entry.subscribers[s.nextID] = Subscriber(priority: priority, token: token, accepts: accepts, continuation: continuation)
            return (entry, s.nextID, entry.updatePriority())
        }
        if raised { entry.observers.notify() }
        continuation.onTermination = { [weak self] _ in self?.leave(entry, id: id) }
        return Subscription(stream: stream, leave: { [weak self] in self?.leave(entry, id: id) })
    }

    private func run(_ entry: Context, operation: Operation) async {
        let result: Result<Value, any Error>
        do {
            result = .success(try await operation(entry))
        } catch {
            result = .failure(error)
        }
        let continuations = state.withLock { s -> [Stream.Continuation] in
            if s.entries[entry.key] === entry { s.entries[entry.key] = nil }
            entry.finished = true
            defer { entry.subscribers = [:] }
            return entry.subscribers.values.map { sub in
                sub.priority.removePriorityObserver(sub.token)
                return sub.continuation
            }
        }
        switch result {
        case .success(let value):
            for c in continuations {
                c.yield(.value(value))
                c.finish()
            }
        case .failure(let error):
            for c in continuations { c.finish(throwing: error) }
        }
    }

    /// Removes a subscriber; the last one leaving cancels the operation.
    private func leave(_ entry: Context, id: Int) {
        let (continuation, task, lowered) = state.withLock { s -> (Stream.Continuation?, Task<Void, Never>?, Bool) in
            guard let sub = entry.subscribers.removeValue(forKey: id) else { return (nil, nil, false) }
            sub.priority.removePriorityObserver(sub.token)
            guard entry.subscribers.isEmpty, !entry.finished else { return (sub.continuation, nil, entry.updatePriority()) }
            if s.entries[entry.key] === entry { s.entries[entry.key] = nil }
            return (sub.continuation, entry.task, false)
        }
        // Outside the lock: cancelling runs cancellation handlers, finishing runs onTermination.
        if lowered { entry.observers.notify() }
        task?.cancel()
        continuation?.finish(throwing: CancellationError())
    }

    /// A subscriber's priority changed: recompute the operation's, and pass a change on.
    fileprivate func subscriberPriorityChanged(_ entry: Context) {
        let changed = state.withLock { _ in entry.updatePriority() }
        if changed { entry.observers.notify() }
    }

    fileprivate func send(_ event: Event, from entry: Context) {
        let targets = state.withLock { _ in
            entry.subscribers.values.compactMap { sub in sub.accepts?(event) == true ? sub.continuation : nil }
        }
        for c in targets { c.yield(.event(event)) }
    }

    fileprivate func wantsEvents(_ entry: Context) -> Bool {
        state.withLock { _ in entry.subscribers.values.contains { $0.accepts != nil } }
    }

    /// One running operation, and what it sees of itself: its live priority (the highest of its
    /// subscribers', kept up to date as they change) and a way to report events. Its mutable
    /// fields are only touched under the table's lock.
    package final class Context: PrioritySource, PriorityObserver, @unchecked Sendable {
        private let tasks: SharedTasks
        fileprivate let key: Key
        fileprivate var subscribers: [Int: Subscriber] = [:]
        fileprivate var task: Task<Void, Never>?
        fileprivate var finished = false
        private let priority = Atomic(ImagePriority.veryLow.rawValue)
        fileprivate let observers = PriorityObservers()

        fileprivate init(tasks: SharedTasks, key: Key) {
            self.tasks = tasks
            self.key = key
        }

        /// The highest priority among the subscribers now.
        package var currentPriority: ImagePriority {
            ImagePriority(rawValue: priority.load(ordering: .relaxed)) ?? .normal
        }

        /// Recomputes the priority from the subscribers'; under the table's lock. Returns whether it changed.
        fileprivate func updatePriority() -> Bool {
            var best = ImagePriority.veryLow
            for subscriber in subscribers.values {
                let p = subscriber.priority.currentPriority
                if p > best { best = p }
            }
            return priority.exchange(best.rawValue, ordering: .relaxed) != best.rawValue
        }

        package func addPriorityObserver(_ observer: any PriorityObserver) -> Int { observers.add(observer) }
        package func removePriorityObserver(_ token: Int) { observers.remove(token) }
        package func sourcePriorityDidChange() { tasks.subscriberPriorityChanged(self) }

        /// Whether any subscriber accepts events at all (so an operation can skip making them).
        package var hasEventSubscribers: Bool { tasks.wantsEvents(self) }

        /// Sends `event` to the subscribers that accept it.
        package func send(_ event: Event) { tasks.send(event, from: self) }
    }

    /// One subscriber's share: its stream, and a way to leave.
    package struct Subscription: Sendable {
        package typealias Stream = SharedTasks.Stream

        /// Events this subscriber accepts, then the value; fails with the operation's error, or
        /// `CancellationError` when this subscriber left.
        package let stream: Stream
        private let leaveAction: @Sendable () -> Void

        fileprivate init(stream: Stream, leave: @escaping @Sendable () -> Void) {
            self.stream = stream
            leaveAction = leave
        }

        /// Leaves the operation: the stream ends with `CancellationError`; the operation goes on
        /// for the other subscribers, and is cancelled if there are none.
        package func cancel() { leaveAction() }

        /// Waits for the value, handing events to `onEvent`. Cancelling the calling task leaves.
        ///
        /// - Throws: the operation's error, or `CancellationError`.
        package func value(onEvent: ((Event) throws -> Void)? = nil) async throws -> Value {
            try await withTaskCancellationHandler {
                do {
                    for try await output in stream {
                        switch output {
                        case .event(let event): try onEvent?(event)
                        case .value(let value): return value
                        }
                    }
                } catch {
                    leaveAction()
                    throw error
                }
                throw CancellationError()
            } onCancel: {
                leaveAction()
            }
        }
    }
}
