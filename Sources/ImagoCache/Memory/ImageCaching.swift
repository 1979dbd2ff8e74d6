// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

/// A cache of decoded images in memory, keyed by string: the role ``MemoryCache`` fills by default.
///
/// Implementations must be thread-safe and fast on the hot path: a lookup must not hop actors.
public protocol ImageCaching: AnyObject, Sendable {
    /// The image for `key`, or `nil`. A hit counts as a use for LRU order.
    func image(forKey key: String) -> Image?
    /// Stores `image`, charging its decoded bytes (`Image.byteCount`) as cost.
    func setImage(_ image: Image, forKey key: String)
    /// Removes the image for `key`, if any.
    func removeImage(forKey key: String)
    /// Removes every image.
    func removeAllImages()
}
