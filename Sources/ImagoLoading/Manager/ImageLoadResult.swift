// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A loaded image.
public struct ImageLoadResult: Sendable {
    /// The image: decoded, thumbnailed or scaled down, and transformed as asked.
    public var image: Image
    /// The encoded bytes, when they were at hand: downloaded, read from disk, or queried with
    /// ``ImageRequest/Options/queryMemoryData``. For a processed image read back from disk
    /// (``ImageManager/DataCachePolicy/processedImages``), its own encoded bytes.
    public var data: Data?
    /// Memory, disk or network.
    public var source: ImageLoadSource
    /// The request.
    public var request: ImageRequest
    /// The memory-cache key of the image (``ImageManager/imageKey(for:)``).
    public var cacheKey: String
    /// Whether a revalidation (``ImageRequest/Options/refreshCached``) got 304 and kept the cached bytes.
    public var revalidated: Bool = false
    /// How long each stage took: disk read or download, queue wait, decode, transform. Zero
    /// for a memory hit.
    public var timings = ImageLoadTimings()

    /// The URL asked for, for a URL request.
    public var url: URL? { request.url }
}
