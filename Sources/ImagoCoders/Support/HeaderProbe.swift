// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Header facts for recognised formats that no registered decoder handles yet.
///
/// Reads only headers and block structure: GIF's blocks (frames, delays, loop count),
/// BMP's DIB header, ICO's first directory entry, TIFF's IFDs (classic and BigTIFF), JPEG 2000's
/// `ihdr` box or codestream `SIZ` marker. Other formats report their format with a size of 0×0.
enum HeaderProbe {
    static func info(of data: Data, format: ImageFormat) throws -> ImageInfo {
        let r = DataReader(data)
        switch format {
        case .gif:
            return try GIFStructure(data).info()
        case .bmp:
            guard let dib = r.u32le(14) else { throw ImageCodingError.truncated(.bmp, "the DIB header is missing") }
            if dib == 12 {
                guard let w = r.u16le(18), let h = r.u16le(20), let bpp = r.u16le(24) else {
                    throw ImageCodingError.truncated(.bmp, "the core header is incomplete")
                }
                return ImageInfo(format: .bmp, width: w, height: h, bitDepth: min(bpp, 8))
            }
            guard let w = r.u32le(18), let hRaw = r.u32le(22), let bpp = r.u16le(28) else {
                throw ImageCodingError.truncated(.bmp, "the info header is incomplete")
            }
            let h = Int(Int32(truncatingIfNeeded: hRaw)).magnitude
            return ImageInfo(
                format: .bmp, width: Int(Int32(truncatingIfNeeded: w)), height: Int(h),
                hasAlpha: bpp == 32, bitDepth: bpp >= 24 ? 8 : bpp)
        case .ico, .cur:
            guard let count = r.u16le(4), count > 0, let w = r.u8(6), let h = r.u8(7) else {
                throw ImageCodingError.truncated(format, "the icon directory is incomplete")
            }
            return ImageInfo(
                format: format, width: w == 0 ? 256 : Int(w), height: h == 0 ? 256 : Int(h),
                frameCount: 1, hasAlpha: true)
        case .tiff:
            return try TIFFHeader(r).info()
        case .jp2:
            return try JPEG2000Header(r).info()
        default:
            return ImageInfo(format: format, width: 0, height: 0)
        }
    }
}
