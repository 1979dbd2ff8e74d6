// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// URLs that failed for a lasting reason, refused until retried (SDWebImage's failed URLs).
///
/// SDWebImage's rule decides what goes in: invalid URLs, data that does not decode, and
/// lasting HTTP and TLS failures block a URL; timeouts, cancellations, lost or refused
/// connections and server errors (5xx, 408, 429) do not (``ImageLoadingError/isTransient``).
/// Failures that are not the URL's (a transformer, an encoder, the disk cache, a refusal by the caller's own
/// modifier) never block it. A later success removes the URL.
public final class FailedURLList: Sendable {
    private let urls = Mutex<Set<String>>([])

    /// Creates an empty list.
    public init() {}

    /// Whether `url` is blocked.
    public func contains(_ url: URL) -> Bool { urls.withLock { $0.contains(url.absoluteString) } }
    /// Blocks `url`.
    public func insert(_ url: URL) { _ = urls.withLock { $0.insert(url.absoluteString) } }
    /// Unblocks `url`.
    public func remove(_ url: URL) { _ = urls.withLock { $0.remove(url.absoluteString) } }
    /// Unblocks every URL.
    public func removeAll() { urls.withLock { $0.removeAll() } }
    /// How many URLs are blocked.
    public var count: Int { urls.withLock { $0.count } }

    /// Whether a load that failed with `error` blocks its URL.
    public static func blocks(_ error: ImageLoadingError) -> Bool {
        switch error {
        case .notCached, .blockedFailedURL, .rejected, .processingFailed, .encodingFailed, .cacheFailed, .unexpected: false
        default: !error.isTransient
        }
    }
}
