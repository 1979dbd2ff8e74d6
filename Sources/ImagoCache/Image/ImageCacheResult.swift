// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where a cache hit came from.
public enum ImageCacheSource: String, Sendable, Hashable {
    /// The memory cache: no decoding happened.
    case memory
    /// The disk cache: the bytes were decoded.
    case disk
}

/// A cache hit: the image, its encoded bytes when they were read, and where it came from.
public struct ImageCacheResult: Sendable {
    /// The decoded image.
    public var image: Image
    /// The bytes read from disk, for a disk hit.
    public var data: Data?
    /// Memory or disk.
    public var source: ImageCacheSource

    /// Creates a result.
    public init(image: Image, data: Data?, source: ImageCacheSource) {
        self.image = image
        self.data = data
        self.source = source
    }
}
