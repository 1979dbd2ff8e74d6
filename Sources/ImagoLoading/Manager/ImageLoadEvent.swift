// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

/// What a caller of ``ImageManager/imageEvents(with:)`` sees, in order.
public enum ImageLoadEvent: Sendable {
    /// Bytes arrived.
    case progress(ImageDownloadProgress)
    /// A partial image (``ImageRequest/Options/progressive``): decoded and processed as the final
    /// image will be, never cached.
    case partialImage(Image)
    /// The load finished.
    case completed(ImageLoadResult)
}
