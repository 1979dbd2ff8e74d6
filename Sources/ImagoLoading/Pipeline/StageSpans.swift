// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import Tracing

/// CPU work that ran on a queue: its value, how long it waited for a worker, how long it ran.
struct Measured<Value: Sendable>: Sendable {
    var value: Value
    var wait: Duration
    var run: Duration
}

extension WorkQueue {
    /// Runs `work` on the queue inside a span named `name` (`imago.decode`, say), recording in
    /// the span and the result how long it waited for a worker and how long it ran.
    func measured<T: Sendable>(
        _ name: String, priority: any PrioritySource, continuing: Bool = false,
        _ work: @escaping @Sendable () throws -> T
    ) async throws -> Measured<T> {
        try await withSpan(name) { span in
            let enqueued = ContinuousClock.now
            let (value, started, ended) = try await run(priority: priority, continuing: continuing) {
                () throws -> (T, ContinuousClock.Instant, ContinuousClock.Instant) in
                let started = ContinuousClock.now
                let value = try work()
                return (value, started, ContinuousClock.now)
            }
            let measured = Measured(value: value, wait: started - enqueued, run: ended - started)
            span.attributes["imago.queue_wait_ms"] = Self.milliseconds(measured.wait)
            span.attributes["imago.run_ms"] = Self.milliseconds(measured.run)
            return measured
        }
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}

/// Runs `body` inside a span named `name`, and returns its value with how long it took.
func timedSpan<T>(_ name: String, _ body: (any Span) async throws -> T) async throws -> (T, Duration) {
    try await withSpan(name) { span in
        let start = ContinuousClock.now
        let value = try await body(span)
        return (value, ContinuousClock.now - start)
    }
}
