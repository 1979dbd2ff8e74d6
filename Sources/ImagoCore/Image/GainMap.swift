// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

/// An HDR gain map (Ultra HDR, ISO 21496-1): a second, usually smaller picture stored beside an
/// SDR image that tells an HDR display how much brighter each part may be shown. Its pixels cover
/// the whole image at their own resolution, so any change of the image's geometry (a crop, a
/// turn, padding) must be made to the gain map too; a plain resize need not, since readers
/// scale the map to the image.
///
/// `JPEGCoder` reads one into `ImageMetadata.gainMap` when asked (`DecodeOptions.gainMap`)
/// and writes it back (MPF and `hdrgm` XMP rewritten for the new sizes) when an image carries
/// one. The service's transformer applies its geometry to the map; other transformers drop it.
public struct GainMap: Sendable, Hashable {
    /// The map's pixels: one channel (`PixelFormat.gray8`) or three (`PixelFormat.rgb8`).
    public var pixels: PixelBuffer
    /// The map image's XMP packet (its `hdrgm:` values: gain range, gamma, offsets, HDR
    /// capacity), kept as it was read; `nil` when it had none.
    public var xmp: Data?
    /// The map image's ISO 21496-1 metadata block (APP2 after its identifier), kept as read;
    /// `nil` when it had none.
    public var iso21496: Data?

    /// Creates a gain map; the metadata blocks default to absent.
    public init(pixels: PixelBuffer, xmp: Data? = nil, iso21496: Data? = nil) {
        self.pixels = pixels
        self.xmp = xmp
        self.iso21496 = iso21496
    }

    /// The same metadata blocks and the same pixels: size, format and bytes.
    public static func == (a: GainMap, b: GainMap) -> Bool {
        a.xmp == b.xmp && a.iso21496 == b.iso21496 && a.pixels.width == b.pixels.width && a.pixels.height == b.pixels.height
            && a.pixels.format == b.pixels.format && a.pixels.bytes == b.pixels.bytes
    }

    /// Hashes the XMP packet and the map's size, not its pixels.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(xmp)
        hasher.combine(pixels.width)
        hasher.combine(pixels.height)
    }
}
