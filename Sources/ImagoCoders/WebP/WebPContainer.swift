// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CWebP
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What libwebp's demuxer reads from a WebP's RIFF container: canvas, flags, frames,
/// loop count, and the ICCP and EXIF chunks.
struct WebPContainer {
    var width: Int
    var height: Int
    var hasAlpha: Bool
    var isAnimated: Bool
    var frameCount: Int
    var loopCount: Int
    var durations: [Double]
    var icc: Data?
    var exif: Data?
    /// The XMP chunk, read for its orientation when EXIF has none.
    var xmp: Data?
    var lossless: Bool

    /// EXIF's orientation, else XMP's, else `.up`.
    var orientation: ImageOrientation { ImageOrientation(exif: exif, xmp: xmp) }

    /// Reads the container; `partial` accepts data still arriving.
    ///
    /// - Throws: `.truncated` or `.corrupt` when the demuxer refuses the data.
    init(_ data: Data, partial: Bool = false) throws {
        var features = WebPBitstreamFeatures()
        let status: VP8StatusCode = data.withUnsafeBytes {
            WebPGetFeatures($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &features)
        }
        try WebPContainer.check(status, during: "the header")
        lossless = features.format == 2
        var state = WEBP_DEMUX_PARSING_HEADER
        let parsed: Self? = data.withUnsafeBytes { raw -> Self? in
            var webpData = WebPData(bytes: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), size: raw.count)
            guard let demux = WebPDemuxInternal(&webpData, partial ? 1 : 0, &state, Int32(WEBP_DEMUX_ABI_VERSION)) else {
                return nil
            }
            defer { WebPDemuxDelete(demux) }
            var c = WebPContainer(empty: ())
            c.width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
            c.height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
            let flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS)
            c.hasAlpha = features.has_alpha != 0 || flags & UInt32(ALPHA_FLAG.rawValue) != 0
            c.isAnimated = flags & UInt32(ANIMATION_FLAG.rawValue) != 0
            c.frameCount = max(1, Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT)))
            c.loopCount = c.isAnimated ? Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT)) : 1
            c.durations = c.isAnimated ? [] : [0]
            if c.isAnimated, c.frameCount <= DecodingLimits.default.maxFrames {
                var iter = WebPIterator()
                if WebPDemuxGetFrame(demux, 1, &iter) != 0 {
                    repeat {
                        let ms = Int(iter.duration)
                        c.durations.append(FrameTiming.displayedDuration(Double(ms) / 1000))
                    } while WebPDemuxNextFrame(&iter) != 0
                    WebPDemuxReleaseIterator(&iter)
                }
            }
            c.icc = Self.chunk("ICCP", demux)
            c.exif = Self.chunk("EXIF", demux).map(EXIF.strippingPrefix)
            c.xmp = Self.chunk("XMP ", demux).map { Data($0.prefix(XMP.scanLimit)) }
            return c
        }
        guard let parsed else {
            // The RIFF header states the file size: fewer bytes than that is truncation.
            let riffSize = DataReader(data).u32le(4).map { $0 + 8 } ?? Int.max
            if data.count < 30 || data.count < riffSize || state == WEBP_DEMUX_PARSING_HEADER {
                throw ImageCodingError.truncated(.webp, "the RIFF container is incomplete")
            }
            throw ImageCodingError.corrupt(.webp, "the RIFF container is malformed")
        }
        self = parsed
    }

    private init(empty: Void) {
        width = 0
        height = 0
        hasAlpha = false
        isAnimated = false
        frameCount = 1
        loopCount = 1
        durations = [0]
        lossless = false
    }

    private static func chunk(_ fourcc: String, _ demux: OpaquePointer) -> Data? {
        var iter = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, fourcc, 1, &iter) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iter) }
        guard let bytes = iter.chunk.bytes, iter.chunk.size > 0 else { return nil }
        return Data(bytes: bytes, count: iter.chunk.size)
    }

    static func check(_ status: VP8StatusCode, during step: String) throws {
        switch status {
        case VP8_STATUS_OK: return
        case VP8_STATUS_NOT_ENOUGH_DATA, VP8_STATUS_SUSPENDED:
            throw ImageCodingError.truncated(.webp, "the data ends in \(step)")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            throw ImageCodingError.unsupportedFeature(.webp, "libwebp does not support a feature used in \(step)")
        case VP8_STATUS_OUT_OF_MEMORY:
            throw ImageCodingError.corrupt(.webp, "libwebp ran out of memory in \(step)")
        case VP8_STATUS_INVALID_PARAM:
            throw ImageCodingError.invalidArgument("libwebp rejected the decoding parameters for \(step)")
        default:
            throw ImageCodingError.corrupt(.webp, "bitstream error in \(step) (VP8 status \(status.rawValue))")
        }
    }

    /// The header record.
    ///
    /// - Throws: `ImageCodingError.exceedsLimit(_:found:limit:)` for more frames than
    ///   `limits.maxFrames`.
    func info(limits: DecodingLimits = .default) throws -> ImageInfo {
        try limits.check(frameCount: frameCount, framePixels: 0)
        return ImageInfo(
            format: .webp, width: width, height: height,
            orientation: orientation,
            frameCount: frameCount, loopCount: loopCount, durations: durations,
            hasAlpha: hasAlpha, bitDepth: 8, hasICCProfile: icc != nil, progressive: false)
    }
}
