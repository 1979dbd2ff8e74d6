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
    /// The transfer failed.
    case failed(URL, ImageLoadingError)
}
