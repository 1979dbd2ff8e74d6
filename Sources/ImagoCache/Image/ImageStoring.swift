// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Anything that stores and serves images by key: ``ImageCache``, a manager combining several
/// (``ImageCachesManager``), or a shared network cache plugged in later. SDWebImage's
/// `SDImageCache` protocol.
public protocol ImageStoring: Sendable {
    /// The image for `key` from the layers in `cacheType`, decoded with `options` on a disk hit.
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`), so a memory hit costs no
    /// hop between threads; implementations move slow work (disk, decoding) elsewhere themselves.
    ///
    /// - Throws: errors reading the disk layer; a value that fails to decode is a miss.
    nonisolated(nonsending) func image(forKey key: String, cacheType: ImageCacheType, options: DecodeOptions) async throws -> ImageCacheResult?

    /// Stores `image` and/or `data` for `key` in the layers of `cacheType`.
    ///
    /// - Throws: errors writing the disk layer.
    func store(_ image: Image?, data: Data?, forKey key: String, cacheType: ImageCacheType) async throws

    /// The encoded bytes stored for `key` on disk, without decoding them, or `nil`. A loader that
    /// decodes in its own way (a thumbnail, say) reads this rather than a decoded image.
    ///
    /// - Throws: errors reading the disk layer.
    func data(forKey key: String) async throws -> Data?

    /// Removes `key` from the layers of `cacheType`.
    func removeImage(forKey key: String, cacheType: ImageCacheType) async throws

    /// Where `key` is cached, without decoding anything, or `nil`.
    func containsImage(forKey key: String, cacheType: ImageCacheType) async throws -> ImageCacheSource?

    /// Empties the layers of `cacheType`.
    func clear(cacheType: ImageCacheType) async throws
}

extension ImageStoring {
    /// Default: the bytes of a disk query (which also decodes them). Caches that can read bytes
    /// alone should implement it.
    public func data(forKey key: String) async throws -> Data? {
        try await image(forKey: key, cacheType: .disk, options: .default)?.data
    }
}
