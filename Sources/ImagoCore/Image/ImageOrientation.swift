// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// How stored pixels must be turned to appear upright: the EXIF/TIFF orientation tag, 1–8.
///
/// Raw values are the EXIF values. Case names follow `UIImage.Orientation`, the vocabulary
/// SDWebImage users know: `.right` (EXIF 6) means the stored image is shown turned 90° clockwise.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: turned 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored across the top-left to bottom-right diagonal (transposed).
    case leftMirrored = 5
    /// 6: shown turned 90° clockwise.
    case right = 6
    /// 7: mirrored across the top-right to bottom-left diagonal (transversed).
    case rightMirrored = 7
    /// 8: shown turned 90° counter-clockwise.
    case left = 8

    /// Creates an orientation from an EXIF value; values outside 1–8 (such as 0) give `nil`.
    public init?(exifValue: Int) { self.init(rawValue: exifValue) }

    /// Whether applying the orientation swaps width and height (EXIF 5–8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The displayed size of a stored size with this orientation.
    public func orientedSize(_ size: PixelSize) -> PixelSize {
        swapsDimensions ? PixelSize(width: size.height, height: size.width) : size
    }
}
