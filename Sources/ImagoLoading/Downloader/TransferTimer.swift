#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// The three deadlines of a transfer: to the head, between bytes, overall.
final class TransferTimer: Sendable {
    private struct State {
        var start = ContinuousClock.now
        var lastActivity = ContinuousClock.now
        var headArrived = false
    }

    private let timeouts: ImageDownloadTimeouts
    private let state = Mutex(State())

    init(_ timeouts: ImageDownloadTimeouts) {
        self.timeouts = timeouts
    }

    func headArrived() { state.withLock { $0.headArrived = true; $0.lastActivity = .now } }
    func bytesArrived() { state.withLock { $0.lastActivity = .now } }

    /// The earliest deadline, and which timeout it is.
    private func deadline() -> (ContinuousClock.Instant, ImageLoadingError.Timeout) {
        state.withLock { s in
            var next = s.headArrived ? (s.lastActivity + timeouts.read, ImageLoadingError.Timeout.read)
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
            if ContinuousClock.now >= when { throw ImageLoadingError.timedOut(kind) }
            try await Task.sleep(until: when, clock: .continuous)
        }
    }
}
