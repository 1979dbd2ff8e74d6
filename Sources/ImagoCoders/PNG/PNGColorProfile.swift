// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CPNG
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keeps an ICC profile when a PNG is written, as the user asked, instead of letting libpng
/// refuse it: PNG allows a gray profile only on gray pixels and an RGB profile only on colour
/// pixels, and no other colour space at all.
///
/// - A gray profile on colour pixels that are all neutral (R = G = B, as a gray JPEG decodes)
///   writes a gray PNG, which loses nothing and keeps the profile.
/// - A gray profile on pixels with colour cannot describe them: the profile is left out and the
///   colours kept.
/// - An RGB profile on gray pixels writes RGB, which loses nothing and keeps the profile.
/// - A CMYK, Lab or other profile is left out: PNG cannot carry one.
enum PNGColorProfile {
    /// The ICC header's data colour space (bytes 16–19): `GRAY`, `RGB `, `CMYK`, …
    static func colorSpace(of icc: Data) -> String? {
        guard icc.count >= 128 else { return nil }
        let start = icc.startIndex + 16
        return String(decoding: icc[start..<start + 4], as: UTF8.self)
    }

    /// `pixels` (in `colorType`'s layout) and the profile, adjusted so libpng accepts the pair.
    static func fit(_ pixels: PixelBuffer, colorType: Int32, icc: Data?) -> (PixelBuffer, Int32, Data?) {
        guard let icc else { return (pixels, colorType, nil) }
        let hasColor = colorType == PNG_COLOR_TYPE_RGB || colorType == PNG_COLOR_TYPE_RGB_ALPHA
        let hasAlpha = colorType == PNG_COLOR_TYPE_RGB_ALPHA || colorType == PNG_COLOR_TYPE_GRAY_ALPHA
        switch colorSpace(of: icc) {
        case "GRAY":
            guard hasColor else { return (pixels, colorType, icc) }
            guard isNeutral(pixels) else { return (pixels, colorType, nil) }
            return (
                pixels.converted(to: hasAlpha ? .grayAlpha8 : .gray8),
                hasAlpha ? PNG_COLOR_TYPE_GRAY_ALPHA : PNG_COLOR_TYPE_GRAY, icc
            )
        case "RGB ":
            guard !hasColor else { return (pixels, colorType, icc) }
            return (
                pixels.converted(to: hasAlpha ? .rgba8 : .rgb8),
                hasAlpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, icc
            )
        default:
            return (pixels, colorType, nil)
        }
    }

    /// Whether every pixel of an `rgb8` or `rgba8` buffer has R = G = B.
    static func isNeutral(_ pixels: PixelBuffer) -> Bool {
        let step: Int
        switch pixels.format {
        case .rgb8: step = 3
        case .rgba8: step = 4
        default: return false
        }
        return pixels.withUnsafeBytes { raw -> Bool in
            for y in 0..<pixels.height {
                let row = y * pixels.bytesPerRow
                var x = row
                let end = row + pixels.width * step
                while x < end {
                    if raw[x] != raw[x + 1] || raw[x] != raw[x + 2] { return false }
                    x += step
                }
            }
            return true
        }
    }
}
