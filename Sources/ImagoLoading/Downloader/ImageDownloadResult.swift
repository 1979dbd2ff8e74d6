// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A finished download: bytes only. Decoding is the manager's job (or the caller's).
public struct ImageDownloadResult: Sendable {
    /// The URL asked for.
    public var url: URL
    /// The body (after the downloader's body transform), or the cached bytes on a 304.
    public var data: Data
    /// The response head, `nil` only for a loader that gives none.
    public var response: DataLoadResponse?
    /// Whether the server answered 304 and `data` is the cached copy.
    public var notModified: Bool

    /// Creates a result.
    public init(url: URL, data: Data, response: DataLoadResponse?, notModified: Bool) {
        self.url = url
        self.data = data
        self.response = response
        self.notModified = notModified
    }
}
