// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CAVIF
import CImagoGlue
import CLCMS2
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One libavif decoder over bytes that stay valid while it lives (copied in and owned here when
/// `owning`), parsed, with the limits set before any image is decoded, and the conversion of its
/// current image to an upright sRGB buffer.
final class AVIFDecoderHandle {
    let decoder: UnsafeMutablePointer<avifDecoder>
    private let owned: UnsafeMutableRawBufferPointer?
    /// The bytes libavif reads (`data`, or the owned copy without a copy of its own), for the
    /// content light level (``hdrConversion``).
    private let source: Data

    /// Parses `data` (the container and every item's properties, no pixels).
    ///
    /// - Throws: `.unsupportedFeature` without libavif or an AV1 decoder; `.exceedsLimit` from
    ///   the size or frame count; `.truncated` or `.corrupt` with libavif's reason.
    init(data: Data, limits: DecodingLimits, owning: Bool) throws {
        guard imago_avif_available() != 0, avifCodecName(AVIF_CODEC_CHOICE_AUTO, AVIF_CODEC_FLAG_CAN_DECODE.rawValue) != nil,
            let decoder = avifDecoderCreate()
        else {
            throw ImageCodingError.unsupportedFeature(.avif, "libavif (libavif15) with an AV1 decoder is not installed")
        }
        self.decoder = decoder
        decoder.pointee.maxThreads = 1
        // Browsers read files that bend the rules (no pixi, an odd clap); so does Imago.
        decoder.pointee.strictFlags = AVIF_STRICT_DISABLED.rawValue
        decoder.pointee.ignoreXMP = AVIF_TRUE
        // libavif refuses limits above its own defaults (16384² pixels, 12 hours of frames at 60/s).
        decoder.pointee.imageSizeLimit = UInt32(clamping: min(max(1, limits.maxPixels), 16384 * 16384))
        decoder.pointee.imageCountLimit = UInt32(clamping: min(max(1, limits.maxFrames), 12 * 3600 * 60))
        if owning {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
            _ = data.copyBytes(to: copy.bindMemory(to: UInt8.self))
            owned = copy
            source = copy.baseAddress.map { Data(bytesNoCopy: $0, count: data.count, deallocator: .none) } ?? Data()
            let status = avifDecoderSetIOMemory(decoder, copy.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count)
            guard status == AVIF_RESULT_OK else {
                avifDecoderDestroy(decoder)
                copy.deallocate()
                throw Self.failure(status, decoder: nil, during: "reading the file")
            }
        } else {
            owned = nil
            source = data
        }
    }

    deinit {
        avifDecoderDestroy(decoder)
        owned?.deallocate()
    }

    /// Parses bytes the caller keeps valid until the handle is gone (a handle made with
    /// `owning: false`), or the owned copy.
    func parse(_ bytes: UnsafeRawBufferPointer?) throws {
        if let bytes {
            let status = avifDecoderSetIOMemory(decoder, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
            guard status == AVIF_RESULT_OK else { throw Self.failure(status, decoder: decoder, during: "reading the file") }
        }
        let status = avifDecoderParse(decoder)
        guard status == AVIF_RESULT_OK else { throw Self.failure(status, decoder: decoder, during: "parsing the container") }
    }

    static func failure(_ status: avifResult, decoder: UnsafeMutablePointer<avifDecoder>?, during step: String) -> ImageCodingError {
        let reason = String(cString: avifResultToString(status))
        let detail: String =
            decoder.map { d in
                withUnsafeBytes(of: d.pointee.diag.error) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
            } ?? ""
        let message = detail.isEmpty ? "\(reason) (\(step))" : "\(reason): \(detail) (\(step))"
        switch status {
        case AVIF_RESULT_TRUNCATED_DATA: return .truncated(.avif, message)
        case AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_NOT_IMPLEMENTED: return .unsupportedFeature(.avif, message)
        default: return .corrupt(.avif, message)
        }
    }

    // MARK: The parsed header

    var image: UnsafeMutablePointer<avifImage>? { decoder.pointee.image }

    var frameCount: Int { Int(decoder.pointee.imageCount) }

    var hasAlpha: Bool { decoder.pointee.alphaPresent != 0 }

    /// The clean aperture as a crop of the coded image, when there is a valid one.
    func cropRect() -> avifCropRect? {
        guard let image, image.pointee.transformFlags & AVIF_TRANSFORM_CLAP.rawValue != 0 else { return nil }
        var rect = avifCropRect()
        var clap = image.pointee.clap
        var diag = avifDiagnostics()
        guard
            avifCropRectConvertCleanApertureBox(
                &rect, &clap, image.pointee.width, image.pointee.height,
                image.pointee.yuvFormat, &diag) != 0,
            rect.width > 0, rect.height > 0
        else { return nil }
        return rect
    }

    /// `irot` then `imir`, as the EXIF orientation that turns the coded pixels upright.
    var orientation: ImageOrientation {
        guard let image else { return .up }
        let flags = image.pointee.transformFlags
        let angle = flags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(image.pointee.irot.angle % 4) : 0
        let mirror: Int? = flags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? Int(image.pointee.imir.mode) : nil
        // irot turns anticlockwise; imir mode 1 swaps left and right, mode 0 top and bottom.
        switch (angle, mirror) {
        case (0, nil): return .up
        case (1, nil): return .left
        case (2, nil): return .down
        case (3, nil): return .right
        case (0, 1), (2, 0): return .upMirrored
        case (0, 0), (2, 1): return .downMirrored
        case (1, 1), (3, 0): return .rightMirrored
        case (1, 0), (3, 1): return .leftMirrored
        default: return .up
        }
    }

    /// The displayed size: after the clean aperture and the rotation.
    var displayedSize: PixelSize {
        guard let image else { return PixelSize(width: 0, height: 0) }
        let rect = cropRect()
        let w = Int(rect?.width ?? image.pointee.width), h = Int(rect?.height ?? image.pointee.height)
        return orientation.swapsDimensions ? PixelSize(width: h, height: w) : PixelSize(width: w, height: h)
    }

    var icc: Data? {
        guard let image, image.pointee.icc.size > 0, image.pointee.icc.size < 4 << 20, let bytes = image.pointee.icc.data else { return nil }
        return Data(bytes: bytes, count: image.pointee.icc.size)
    }

    /// The EXIF block, from its TIFF header on.
    var exif: Data? {
        guard let image, image.pointee.exif.size > 8, image.pointee.exif.size < 1 << 20, let bytes = image.pointee.exif.data else { return nil }
        var data = Data(bytes: bytes, count: image.pointee.exif.size)
        let tiff = data.prefix(2) == Data("II".utf8) || data.prefix(2) == Data("MM".utf8)
        if !tiff {
            // An Exif item's payload begins with the offset of its TIFF header.
            let offset = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
            guard offset >= 0, 4 + offset < data.count else { return nil }
            data = data.dropFirst(4 + offset)
        }
        return EXIF.strippingPrefix(Data(data))
    }

    // MARK: Pixels

    /// The decoder's current image as upright straight RGBA: YUV to RGB by libavif (every
    /// matrix and range, monochrome included), clean aperture, rotation and mirroring applied,
    /// an ICC profile converted to sRGB when `manages` (or returned to keep as metadata).
    ///
    /// With `wanted` premultiplied ARGB and an opaque image, libavif writes BGRA, which is that
    /// format's byte order when alpha is 255: no second full-size copy.
    func currentFrame(manages: Bool, wanted: PixelFormat = .rgba8, threads: Int) throws -> (buffer: PixelBuffer, keptProfile: Data?) {
        guard let image else { throw ImageCodingError.corrupt(.avif, "libavif gave no image") }
        let w = Int(image.pointee.width), h = Int(image.pointee.height)
        // PQ or HLG (HDR): from 16-bit samples, tone-mapped to sRGB, unless colour is not managed.
        if manages, icc == nil, let hdr = hdrConversion {
            return (try oriented(try mappedFrame(image, hdr: hdr), format: .rgba8), nil)
        }
        let direct = wanted == .argb32Premultiplied && !hasAlpha && PixelFormat.argbOffsets.b == 0 && PixelFormat.argbOffsets.a == 3
        let format: PixelFormat = direct ? .argb32Premultiplied : .rgba8
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = direct ? AVIF_RGB_FORMAT_BGRA : AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        rgb.alphaPremultiplied = AVIF_FALSE
        // libyuv's 8-bit monochrome path leaves limited range unexpanded (avifdec 0.11 shows
        // the same flaw at 8 bits, not at 10 or 12); libavif's own conversion expands it.
        if image.pointee.yuvFormat == AVIF_PIXEL_FORMAT_YUV400 { rgb.avoidLibYUV = AVIF_TRUE }
        rgb.rowBytes = UInt32(w * 4)
        var buffer = try PixelBuffer(uninitializedWidth: w, height: h, format: format) { out in
            rgb.pixels = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            let status = avifImageYUVToRGB(image, &rgb)
            rgb.pixels = nil
            guard status == AVIF_RESULT_OK else { throw Self.failure(status, decoder: decoder, during: "converting to RGB") }
        }
        buffer = try oriented(buffer, format: format)
        var kept: Data?
        if let icc {
            if manages {
                let bw = buffer.width, bh = buffer.height, row = buffer.bytesPerRow
                buffer.withUnsafeMutableBytes { p in
                    _ = ColorManagement.convertToSRGB(
                        p, width: bw, height: bh, bytesPerRow: row, profile: icc,
                        layout: direct ? IMAGO_TYPE_BGRA_8 : IMAGO_TYPE_RGBA_8, threads: threads)
                }
            } else {
                kept = icc
            }
        }
        return (buffer, kept)
    }

    /// How the image's samples reach sRGB when its colour (nclx) says PQ (transfer 16) or HLG
    /// (18), or `nil`. PQ light is mapped from the file's maximum content light level, else
    /// from 10,000 nits.
    var hdrConversion: HDRToSDR? {
        guard let image else { return nil }
        let transfer = Int(image.pointee.transferCharacteristics)
        // The primary item's clli box, which libavif 0.11 does not read: only PQ needs it.
        let peak = HDRToSDR.Transfer(cicp: transfer) == .pq ? AVIFContentLight.maximum(in: source) : nil
        return HDRToSDR(cicpTransfer: transfer, primaries: Int(image.pointee.colorPrimaries), contentPeak: peak)
    }

    /// The image as 8-bit straight RGBA mapped by `hdr` from libavif's 16-bit RGB.
    private func mappedFrame(_ image: UnsafeMutablePointer<avifImage>, hdr: HDRToSDR) throws -> PixelBuffer {
        let w = Int(image.pointee.width), h = Int(image.pointee.height)
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 16
        rgb.alphaPremultiplied = AVIF_FALSE
        if image.pointee.yuvFormat == AVIF_PIXEL_FORMAT_YUV400 { rgb.avoidLibYUV = AVIF_TRUE }
        rgb.rowBytes = UInt32(w * 8)
        return try PixelBuffer(uninitializedWidth: w, height: h, format: .rgba8) { out in
            let wide = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: max(1, w * h * 4))
            defer { wide.deallocate() }
            rgb.pixels = UnsafeMutableRawPointer(wide.baseAddress)?.assumingMemoryBound(to: UInt8.self)
            let status = avifImageYUVToRGB(image, &rgb)
            rgb.pixels = nil
            guard status == AVIF_RESULT_OK else { throw Self.failure(status, decoder: decoder, during: "converting to RGB") }
            guard let source = wide.baseAddress, let target = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            hdr.convert(source, into: target, count: w * h, channels: 4)
        }
    }

    /// `buffer` cut to the clean aperture and turned upright.
    private func oriented(_ buffer: PixelBuffer, format: PixelFormat) throws -> PixelBuffer {
        var buffer = buffer
        let w = buffer.width, h = buffer.height
        if let rect = cropRect(), Int(rect.x) + Int(rect.width) <= w, Int(rect.y) + Int(rect.height) <= h,
            Int(rect.width) < w || Int(rect.height) < h
        {
            let source = buffer
            let x = Int(rect.x), y = Int(rect.y), cw = Int(rect.width), ch = Int(rect.height)
            buffer = try PixelBuffer(uninitializedWidth: cw, height: ch, format: format) { out in
                source.withUnsafeBytes { src in
                    guard let from = src.baseAddress, let to = out.baseAddress else { return }
                    for row in 0..<ch {
                        (to + row * cw * 4).copyMemory(from: from + (y + row) * source.bytesPerRow + x * 4, byteCount: cw * 4)
                    }
                }
            }
        }
        let turn = orientation
        if turn != .up { buffer = buffer.applyingOrientation(turn) }
        return buffer
    }
}
