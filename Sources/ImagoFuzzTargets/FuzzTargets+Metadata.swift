// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension FuzzTargets {
    /// An EXIF block (with or without its `Exif\0\0` prefix): Imago's orientation reader and
    /// writer and its copyright-keeping rewrite, then libexif's fields behind the C glue, by
    /// title and by tag name.
    public static func exif(_ data: Data) {
        _ = EXIF.orientation(in: data)
        _ = EXIF.settingOrientation(.right, in: data)
        _ = EXIF.keepingTextTags(of: data)
        _ = ImageOrientation(exif: data, xmp: nil)
        let block = EXIF.strippingPrefix(data)
        _ = EXIFFields.fields(of: block)
        _ = EXIFFields.fields(of: block, canonicalNames: true)
    }

    /// IPTC-IIM records as they are, and the same bytes as Photoshop's image resources (`8BIM`)
    /// in a JPEG's APP13 segment, walked for their IPTC and resolution records.
    public static func iptc(_ data: Data) {
        _ = IPTC.fields(in: data)
        let payload = Array("Photoshop 3.0".utf8) + [0] + [UInt8](data.prefix(65_000))
        let length = payload.count + 2
        var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xED, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
        jpeg += payload
        jpeg += [0xFF, 0xD9]
        let blocks = MetadataBlocks(reading: Data(jpeg))
        if let records = blocks.iptc { _ = IPTC.fields(in: records) }
    }

    /// An XMP packet: Imago's orientation scan, then libxml2's reader behind the C glue for its
    /// properties by namespace.
    public static func xmp(_ data: Data) {
        _ = XMP.orientation(in: data)
        _ = ImageOrientation(exif: nil, xmp: data)
        _ = XMPFields.properties(of: data)
    }

    /// The metadata walk of a JPEG's segments, PNG's chunks or WebP's chunks, then every block
    /// it finds read as the ``exif(_:)``, ``iptc(_:)`` and ``xmp(_:)`` targets read them.
    public static func metadataBlocks(_ data: Data) {
        let blocks = MetadataBlocks(reading: data)
        if let block = blocks.exif { exif(block) }
        if let block = blocks.iptc { _ = IPTC.fields(in: block) }
        if let block = blocks.xmp { xmp(block) }
    }

    /// Four pixels of each primary and grey, for the colour conversions of ``iccProfile(_:)``.
    static let swatch: PixelBuffer? = try? PixelBuffer(
        width: 4, height: 2, format: .rgba8,
        bytes: [
            255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 128, 255, 255, 255, 255,
            0, 0, 0, 255, 128, 128, 128, 0, 255, 255, 0, 255, 0, 255, 255, 64
        ])

    /// An ICC profile, read by lcms2: as a source brought to sRGB (where Imago's matrix-shaper
    /// fast path in the C glue is tried) and as a target from sRGB.
    public static func iccProfile(_ data: Data) {
        _ = ColorProfiles.isRGB(data)
        guard let swatch = Self.swatch else { return }
        attempt { try ColorProfiles.convert(swatch, from: data, to: ColorProfiles.sRGB) }
        attempt { try ColorProfiles.convert(swatch, fromSRGBTo: data) }
    }
}
