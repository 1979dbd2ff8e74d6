// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A copy already held (in the disk cache) for a conditional request: sent as `If-None-Match`
/// and `If-Modified-Since`; a 304 answer returns these bytes.
public struct CachedResponse: Sendable, Hashable {
    /// The cached bytes.
    public var data: Data
    /// The `ETag` stored with them.
    public var etag: String?
    /// The `Last-Modified` stored with them.
    public var lastModified: String?

    /// Creates a cached response.
    public init(data: Data, etag: String?, lastModified: String?) {
        self.data = data
        self.etag = etag
        self.lastModified = lastModified
    }
}
