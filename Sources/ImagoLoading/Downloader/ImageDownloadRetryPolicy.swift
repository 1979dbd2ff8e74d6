// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(Glibc)
import Glibc
#endif

/// When a failed transfer is tried again (Kingfisher's `DelayRetryStrategy`): failures worth
/// retrying (``ImageLoadingError/isTransient``: timeouts, dropped connections, bodies cut short,
/// 408, 429 and 5xx) up to ``maxAttempts`` attempts in all, waiting an exponential backoff
/// between them (with jitter, and at least a `Retry-After` the server sent, up to ``maxDelay``).
/// A body cut short resumes where it stopped when the server allows (see
/// ``ImageDownloaderConfiguration/resumableDataLimit``).
public struct ImageDownloadRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 never retries.
    public var maxAttempts: Int
    /// The wait before the second attempt. Default 250 ms.
    public var initialDelay: Duration
    /// Each later wait is this many times the one before. Default 2.
    public var multiplier: Double
    /// The longest wait, `Retry-After` included. Default 10 s.
    public var maxDelay: Duration
    /// Each wait is moved at random by up to this fraction of itself, so that clients failed
    /// together do not retry together. Default 0.2.
    public var jitter: Double

    /// No retries: one attempt. The default of a downloader.
    public static let none = ImageDownloadRetryPolicy(maxAttempts: 1)

    /// Three attempts, 250 ms then 500 ms apart (± 20%).
    public static let standard = ImageDownloadRetryPolicy(maxAttempts: 3)

    /// Creates a policy; every parameter but the attempts defaults as documented on its property.
    public init(
        maxAttempts: Int, initialDelay: Duration = .milliseconds(250), multiplier: Double = 2, maxDelay: Duration = .seconds(10),
        jitter: Double = 0.2
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = max(.zero, initialDelay)
        self.multiplier = multiplier.isFinite ? max(1, multiplier) : 1
        self.maxDelay = max(.zero, maxDelay)
        self.jitter = jitter.isFinite ? min(1, max(0, jitter)) : 0
    }

    /// The wait before attempt `attempt + 1` (after `attempt` failed ones, from 1), at least
    /// `retryAfter` when the server asked for it, at most ``maxDelay``; `random` is a unit value
    /// (0.5: no jitter).
    package func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil, random: Double = Double.random(in: 0...1)) -> Duration {
        let base = Double(initialDelay.components.seconds) + Double(initialDelay.components.attoseconds) / 1e18
        let grown = base * pow(multiplier, Double(max(0, attempt - 1)))
        let jittered = grown * (1 + jitter * (2 * min(1, max(0, random)) - 1))
        let cap = Double(maxDelay.components.seconds) + Double(maxDelay.components.attoseconds) / 1e18
        var seconds = min(cap, max(0, jittered))
        if let retryAfter {
            let asked = Double(retryAfter.components.seconds) + Double(retryAfter.components.attoseconds) / 1e18
            seconds = min(cap, max(seconds, asked))
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }
}
