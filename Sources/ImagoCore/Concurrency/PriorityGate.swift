// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// Admits at most `limit` holders at once; the others wait, highest priority first (read when a
/// slot comes free), then in arrival order. The downloader's connection slots.
///
/// A waiter whose task is cancelled leaves the line at once with `CancellationError`.
package final class PriorityGate: Sendable {
    private struct State {
        var waiting = WaitList<CheckedContinuation<Void, any Error>>()
        var holders = 0
        var nextID = 0
    }

    package let limit: Int
    package let order: QueueOrder
    private let state = Mutex(State())

    package init(limit: Int, order: QueueOrder = .fifo) {
        self.limit = max(1, limit)
        self.order = order
    }

    /// Waiting and admitted counts.
    package var counts: (waiting: Int, holding: Int) {
        state.withLock { ($0.waiting.count, $0.holders) }
    }

    /// Takes a place in line now, for an ``enter(priority:place:)`` that may run later: work
    /// queued in one order keeps that order among equals however its tasks are scheduled.
    package func reservePlace() -> Int {
        state.withLock { $0.waiting.reserve() }
    }

    /// Waits for a slot. Every successful `enter` must be paired with one ``leave()``.
    ///
    /// - Parameter place: From ``reservePlace()``; `nil` lines up now.
    /// - Throws: `CancellationError` when the calling task is cancelled while waiting.
    package func enter(priority: any PrioritySource, place: Int? = nil) async throws {
        let (id, admitted) = state.withLock { s -> (Int, Bool) in
            s.nextID += 1
            if s.holders < limit && s.waiting.isEmpty {
                s.holders += 1
                return (s.nextID, true)
            }
            return (s.nextID, false)
        }
        if admitted { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case admitted, wait, cancelled }
                let outcome = state.withLock { s -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if s.holders < limit && s.waiting.isEmpty {
                        s.holders += 1
                        return .admitted
                    }
                    s.waiting.append(continuation, id: id, priority: priority, sequence: place)
                    return .wait
                }
                switch outcome {
                case .admitted: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .wait: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiting.remove(id: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Gives back a slot: the next waiter, if any, takes it.
    package func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            if let next = s.waiting.popNext(order: order) { return next }
            s.holders -= 1
            return nil
        }
        next?.resume()
    }
}
