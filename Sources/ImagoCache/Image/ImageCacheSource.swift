// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Which layer of the caches holds an entry: what `ImageManager.Cache`'s `contains(_:in:)`
/// answers (`manager.cache.contains(request)`).
public enum ImageCacheSource: String, Sendable, Hashable {
    /// The memory cache: a decoded image, ready to use.
    case memory
    /// The disk cache: encoded bytes, decoded when they are read.
    case disk
}
