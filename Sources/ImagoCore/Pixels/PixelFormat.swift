// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// The memory layout of one pixel in a ``PixelBuffer``.
///
/// Every format has 8 bits per channel. The display format, ``argb32Premultiplied``,
/// is what decoders produce by default: it is cairo's `CAIRO_FORMAT_ARGB32` and the
/// equivalent of the premultiplied bitmaps SDWebImage's force-decode produces.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// 32-bit native-endian ARGB words with premultiplied alpha (cairo's ARGB32).
    /// On a little-endian machine the bytes in memory are B, G, R, A.
    case argb32Premultiplied
    /// Four bytes R, G, B, A with straight (unassociated) alpha.
    case rgba8
    /// Three bytes R, G, B; opaque.
    case rgb8
    /// One byte of gray; opaque.
    case gray8
    /// Two bytes, gray then straight alpha.
    case grayAlpha8

    /// Bytes one pixel occupies.
    @inlinable public var bytesPerPixel: Int {
        switch self {
        case .argb32Premultiplied, .rgba8: 4
        case .rgb8: 3
        case .gray8: 1
        case .grayAlpha8: 2
        }
    }

    /// Whether the format stores an alpha channel.
    public var hasAlphaChannel: Bool {
        switch self {
        case .argb32Premultiplied, .rgba8, .grayAlpha8: true
        case .rgb8, .gray8: false
        }
    }

    /// Whether colour channels are multiplied by alpha.
    public var isPremultiplied: Bool { self == .argb32Premultiplied }

    /// Whether the format carries colour (three channels) rather than gray.
    public var isColor: Bool {
        switch self {
        case .argb32Premultiplied, .rgba8, .rgb8: true
        case .gray8, .grayAlpha8: false
        }
    }

    /// Byte offsets of red, green, blue and alpha inside one ``argb32Premultiplied`` pixel on
    /// this machine: (2, 1, 0, 3) on little-endian (bytes B, G, R, A), (1, 2, 3, 0) on big-endian.
    public static let argbOffsets: (r: Int, g: Int, b: Int, a: Int) = {
        #if _endian(little)
        return (2, 1, 0, 3)
        #else
        return (1, 2, 3, 0)
        #endif
    }()
}

extension PixelFormat {
    /// The format that holds a still image's decoded pixels exactly, for work that neither
    /// resamples nor composites: a plain conversion to another format, a crop, a flip, quarter
    /// turns. Premultiplying 8-bit colour loses precision wherever alpha is low (a pixel of
    /// alpha 16 keeps only 17 of its 256 levels), so such work should not premultiply at all.
    ///
    /// - Returns: from the header alone, ``gray8`` or ``grayAlpha8`` for a gray source, ``rgb8``
    ///   for opaque colour and ``rgba8`` (straight alpha) for colour with transparency. An
    ///   animation gets ``argb32Premultiplied``, since its frames are composited.
    public static func exact(for info: ImageInfo) -> PixelFormat {
        if info.frameCount > 1 { return .argb32Premultiplied }
        switch (info.isGrayscale, info.hasAlpha) {
        case (true, false): return .gray8
        case (true, true): return .grayAlpha8
        case (false, false): return .rgb8
        case (false, true): return .rgba8
        }
    }
}
