// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What any observer of a downloader sees (SDWebImage's download notifications).
public enum ImageDownloaderEvent: Sendable {
    /// A transfer started (one per URL however many callers share it).
    case started(URL)
    /// The response head arrived.
    case receivedResponse(URL, statusCode: Int)
    /// Bytes arrived (throttled).
    case progress(URL, ImageDownloadProgress)
    /// The transfer finished with this many bytes.
    case finished(URL, bytes: Int)
    /// An attempt failed with a transient error and the next starts after `delay` (its
    /// ``ImageDownloadRetryPolicy``); `attempt` is the failed one's number, from 1.
    case retrying(URL, attempt: Int, delay: Duration, ImageLoadingError)
    /// The transfer (or an alternative URL of it) resumes from byte `offset` with `Range`.
    case resuming(URL, offset: Int)
    /// The transfer failed.
    case failed(URL, ImageLoadingError)
}
