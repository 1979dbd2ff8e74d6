// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What one caller sees of a download, in order: progress and partial bytes, then the result.
public enum ImageDownloadEvent: Sendable {
    /// More bytes arrived (throttled to the downloader's progress interval; the last one always comes).
    case progress(ImageDownloadProgress)
    /// Every byte received so far, for a progressive decoder (progressive requests only). Events
    /// that arrive while the caller is busy are merged: the next one read has the newest bytes.
    case partialData(Data)
    /// The download finished.
    case completed(ImageDownloadResult)
}
