// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import Synchronization

/// Work where only the newest input matters (partial images): at most one run in flight on a
/// work queue, at a priority that follows its stage; inputs that arrive meanwhile replace any
/// older input waiting, so the next run always takes the newest.
final class LatestWork<Input: Sendable, Output: Sendable>: Sendable {
    private struct State {
        var inFlight: Task<Void, Never>?
        var pending: Input?
        var closed = false
    }

    private let state = Mutex(State())
    private let queue: WorkQueue
    private let priority: any PrioritySource
    private let work: @Sendable (Input) -> Output?
    private let deliver: @Sendable (Output) -> Void

    /// - Parameters:
    ///   - work: Runs on `queue`; `nil` means nothing to deliver.
    ///   - deliver: Gets each output, in order, off the queue.
    init(
        queue: WorkQueue, priority: any PrioritySource, work: @escaping @Sendable (Input) -> Output?,
        deliver: @escaping @Sendable (Output) -> Void
    ) {
        self.queue = queue
        self.priority = priority
        self.work = work
        self.deliver = deliver
    }

    /// Runs `input` now, or after the run in flight if no newer input arrives first.
    func offer(_ input: Input) {
        state.withLock { s in
            guard !s.closed else { return }
            if s.inFlight != nil {
                s.pending = input
                return
            }
            s.inFlight = Task { [self] in await self.drain(input) }
        }
    }

    /// Takes no more input and waits for the run in flight, so every output is delivered before
    /// whatever the caller does next (the final image).
    func close() async {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.closed = true
            s.pending = nil
            return s.inFlight
        }
        await task?.value
    }

    private func drain(_ first: Input) async {
        var next: Input? = first
        while let input = next {
            let work = self.work
            if let output = try? await queue.run(priority: priority, { work(input) }) { deliver(output) }
            next = state.withLock { s -> Input? in
                if !s.closed, let pending = s.pending {
                    s.pending = nil
                    return pending
                }
                s.inFlight = nil
                return nil
            }
        }
    }
}
