// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The three deadlines of a transfer: to the head, between bytes, overall.
final class TransferTimer: Sendable {
    private struct State {
        var start = ContinuousClock.now
        var lastActivity = ContinuousClock.now
        var headArrived = false
    }

    private let timeouts: ImageDownloadTimeouts
    private let state = Mutex(State())
    /// The longest single sleep: a quarter of the shortest timeout (at least 5 ms). The deadline
    /// can move earlier while the watch sleeps (the head arrives and a short read timeout takes
    /// over from a long connect timeout), so it looks again at least this often.
    private let granularity: Duration

    init(_ timeouts: ImageDownloadTimeouts) {
        self.timeouts = timeouts
        let shortest = [timeouts.connect, timeouts.read, timeouts.total].compactMap { $0 }.min() ?? .seconds(1)
        granularity = max(.milliseconds(5), shortest / 4)
    }

    func headArrived() {
        state.withLock {
            $0.headArrived = true
            $0.lastActivity = .now
        }
    }
    func bytesArrived() { state.withLock { $0.lastActivity = .now } }

    /// The earliest deadline, and which timeout it is.
    private func deadline() -> (ContinuousClock.Instant, ImageLoadingError.Timeout) {
        state.withLock { s in
            var next =
                s.headArrived
                ? (s.lastActivity + timeouts.read, ImageLoadingError.Timeout.read)
                : (s.start + timeouts.connect, .connect)
            if let total = timeouts.total, s.start + total < next.0 { next = (s.start + total, .total) }
            return next
        }
    }

    /// Returns never: throws ``ImageLoadingError/timedOut(_:)`` when a deadline passes, or
    /// `CancellationError` when the transfer ends first.
    func watch() async throws {
        while true {
            let (when, kind) = deadline()
            let now = ContinuousClock.now
            if now >= when { throw ImageLoadingError.timedOut(kind) }
            try await Task.sleep(until: min(when, now + granularity), clock: .continuous)
        }
    }
}
