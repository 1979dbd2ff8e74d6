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
    /// Format sniffing (from `Data` and from raw bytes, the image-sequence brands, the video
    /// test) and the header read of whatever format the bytes name by the container walkers
    /// that stand in for missing decoders (``headerOnly``), directly and through `ImageInput`.
    public static func header(_ data: Data) {
        _ = ImageFormat(sniffing: data)
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in _ = ImageFormat(sniffing: raw) }
        _ = ImageFormat.sequenceBrand(in: data)
        _ = VideoFrames.looksLikeVideo(data)
        attempt { try headerOnly.info(of: data) }
        let input = ImageInput(data)
        attempt { try input.format() }
        attempt { try input.info(coders: headerOnly) }
    }

    /// The signatures a TIFF starts with: classic and BigTIFF, little- and big-endian.
    static let tiffSignatures: [[UInt8]] = [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]]

    /// The TIFF header and directory walk (`TIFFHeader`, through ``headerOnly``): the bytes as
    /// they are when they start like a TIFF, otherwise after the signature their first byte
    /// picks, so that every input reaches the directories.
    public static func tiffHeader(_ data: Data) {
        var tiff = data
        if !tiffSignatures.contains(where: { data.starts(with: $0) }) {
            tiff = Data(tiffSignatures[Int(data.first ?? 0) % tiffSignatures.count]) + data
        }
        attempt { try headerOnly.info(of: tiff) }
    }

    /// Imago's own reading of ISO boxes in AVIF files, which libavif 0.11 leaves out: an image
    /// sequence's repetition (`AVIFRepetition`: moov, trak, tkhd, edts, elst) and the primary
    /// item's content light level (`AVIFContentLight`: meta, pitm, iprp, ipco, ipma, clli).
    public static func isoBoxes(_ data: Data) {
        _ = AVIFRepetition.plays(in: data)
        _ = AVIFContentLight.maximum(in: data)
    }

    /// Imago's PNG chunk walk (`PNGChunks`) and APNG reader (`APNGStructure`: acTL, fcTL, fdAT
    /// and their sequence), through the header read of a PNG and of an APNG, and the metadata
    /// walk of PNG chunks; no pixels.
    public static func pngChunks(_ data: Data) {
        let coder = PNGCoder()
        attempt { try coder.info(of: data, format: .png) }
        attempt { try coder.info(of: data, format: .apng) }
        _ = MetadataBlocks(reading: data)
    }

    /// Imago's GIF block walk (`GIFStructure`) through the header read, and giflib behind the
    /// coder's decodes: frame 0, every frame with the lazy animation's compositing, progressive.
    public static func gif(_ data: Data) {
        exercise(GIFCoder(), data)
    }

    /// Imago's BMP reader: headers, palettes, bit fields, RLE.
    public static func bmp(_ data: Data) {
        exercise(BMPCoder(), data)
    }

    /// Imago's ICO and CUR directory reader, then the chosen entry decoded (a PNG, or a BMP
    /// without its file header, with its AND mask).
    public static func ico(_ data: Data) {
        attempt { try ICOCoder.entries(of: data) }
        exercise(ICOCoder(), data)
    }

    /// Imago's ICNS element walk, then the chosen element decoded (PNG, JPEG 2000).
    public static func icns(_ data: Data) {
        attempt { try ICNSCoder.entries(of: data) }
        exercise(ICNSCoder(), data)
    }

    /// Imago's RIFF walk of WebP (`WebPContainer`: VP8X, ANIM, ANMF, ALPH, ICCP, EXIF, XMP),
    /// then libwebp behind the coder's decodes, and the metadata walk of WebP chunks.
    public static func webp(_ data: Data) {
        exercise(WebPCoder(), data)
        _ = MetadataBlocks(reading: data)
    }

    /// The Ultra HDR reader: the JPEG's APP segments, its MPF segment (CIPA DC-007) and entries,
    /// the gain map JPEG they point at, that map's `hdrgm` XMP and ISO 21496-1 blocks and its
    /// decode; then a decode of the whole file that keeps the gain map.
    public static func ultraHDR(_ data: Data) {
        _ = UltraHDR.multiPicture(in: data)
        _ = UltraHDR.gainMapJPEG(in: data)
        attempt { try UltraHDR.gainMap(in: data, limits: limits) }
        var options = stillOptions
        options.gainMap = true
        attempt { try JPEGCoder().decode(data, options: options) }
    }

    /// The SVG sanitiser (preflight, entity checks, libxml2's reader behind the C glue, the
    /// writer), then its own output sanitised again.
    public static func svgSanitizer(_ data: Data) {
        guard let clean = try? SVGSanitizer.sanitize(data, limits: limits) else { return }
        attempt { try SVGSanitizer.sanitize(clean, limits: limits) }
    }

    /// The SVG render fixes through the markup writer (`data:` payloads read, sniffed, decoded
    /// and embedded again; `feDropShadow` expanded), then the rewritten document read again.
    public static func svgFixes(_ data: Data) {
        guard let fixed = SVGRenderFixes.apply(to: [UInt8](data), scale: 1, limits: limits, started: .now) else { return }
        attempt { try SVGSanitizer.sanitize(Data(fixed), limits: limits) }
    }

    /// A `data:` URL read (the `data:` loader's and the SVG fixes' reader), then written again in
    /// base64 and read back: its media type and payload must come back unchanged.
    public static func dataURL(_ data: Data) {
        guard let url = DataURL(String(decoding: data, as: UTF8.self), maxBytes: limits.maxBytes) else { return }
        let again = DataURL(url.base64String)
        precondition(again?.payload == url.payload && again?.mediaType == url.mediaType, "a data: URL changed when written again")
    }
}
