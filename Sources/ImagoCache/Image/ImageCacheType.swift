// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Which layers of the caches an operation touches: the `from:` and `in:` argument of
/// `ImageManager.Cache` (`manager.cache.image(for: request, from: .disk)`).
public enum ImageCacheType: String, Sendable, Hashable, CaseIterable {
    /// Neither: queries miss, stores and removals do nothing.
    case none
    /// Decoded images in memory only.
    case memory
    /// Encoded bytes on disk only.
    case disk
    /// Memory, then disk.
    case all
}
