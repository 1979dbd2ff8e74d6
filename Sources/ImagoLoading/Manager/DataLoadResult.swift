// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Original bytes loaded without decoding (``ImageManager/loadData(with:progress:)``).
public struct DataLoadResult: Sendable {
    /// The bytes.
    public var data: Data
    /// The response head, when they came from the network.
    public var response: DataLoadResponse?
    /// Disk or network (never memory: the memory cache holds images, not bytes).
    public var source: ImageLoadSource
    /// Whether a revalidation got 304 and kept the cached bytes.
    public var revalidated: Bool
    /// The source's `ETag`, from the response or the disk entry.
    public var etag: String?
    /// The source's `Last-Modified`, from the response or the disk entry.
    public var lastModified: String?
}
