// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CAVIF
import CImagoGlue
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AVIFCoder: ImageEncoding {
    /// The libavif speed used when ``EncodeOptions/effort`` is not given.
    ///
    /// AV1 encoding is slow, the complaint imgproxy's users raise most about AVIF. On a 4032×3024
    /// photo on this project's 2-core machine, aom at speed 9 encodes in a fraction of the time
    /// of its default (6) for files a few percent larger (the README's AVIF encoding table), so
    /// 9 is the default, as imgproxy's `IMGPROXY_AVIF_SPEED` is.
    public static let defaultSpeed = 9

    /// libavif's speed for an effort: effort 1 (fastest) is speed 10, effort 9 (smallest) speed 2.
    package static func speed(forEffort effort: Int?) -> Int {
        guard let effort else { return defaultSpeed }
        return max(0, min(10, 11 - effort))
    }

    /// The AV1 quantizer for a quality from 0 to 100, as libavif 1.x maps its `quality`:
    /// ((100 − q) × 63 + 50) / 100, so 100 is lossless-grade 0 and 0 is the worst, 63.
    package static func quantizer(forQuality quality: Double) -> Int {
        let q = Int(min(100, max(0, quality)).rounded())
        return ((100 - q) * 63 + 50) / 100
    }

    /// Whether the format is AVIF and libavif, with an AV1 encoder, can be loaded.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .avif && imago_avif_available() != 0
            && avifCodecName(AVIF_CODEC_CHOICE_AUTO, AVIF_CODEC_FLAG_CAN_ENCODE.rawValue) != nil
    }

    /// Encodes the image, or every frame of an animation as an AVIF image sequence, with
    /// libavif: lossy at ``EncodeOptions/quality`` (4:2:0, BT.601 matrix, full range), or
    /// lossless with ``EncodeOptions/lossless`` (4:4:4 with the identity matrix, quantizer 0),
    /// at the speed ``EncodeOptions/effort`` gives (default ``defaultSpeed``). Alpha is kept
    /// when any pixel uses it; the ICC profile and EXIF when metadata is kept; the orientation is
    /// baked into the pixels.
    ///
    /// - Throws: `.encoderUnavailable` for another format or without an AV1 encoder;
    ///   `.invalidArgument` for options out of range; `.encodingFailed` with libavif's reason.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard canEncode(format) else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, exif, icc) = options.prepareBakingOrientation(image)
        let frames = img.frameCount
        guard let encoder = avifEncoderCreate() else { throw ImageCodingError.encoderUnavailable(.avif) }
        defer { avifEncoderDestroy(encoder) }
        Self.configure(encoder, options: options)
        for index in 0..<frames {
            let frame = try img.frame(at: index)
            let alpha = img.hasAlpha && !frame.buffer.isOpaque
            try Self.addFrame(
                frame.buffer, duration: frame.duration, index: index, alpha: alpha, single: frames == 1,
                to: encoder, options: options, icc: icc, exif: exif)
        }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let finished = avifEncoderFinish(encoder, &output)
        guard finished == AVIF_RESULT_OK, let bytes = output.data else { throw Self.encodingFailure(finished, encoder, "finishing the file") }
        return Data(bytes: bytes, count: output.size)
    }

    /// Sets the encoder's threads, speed, quantizers (alpha's 10 finer when lossy) and millisecond timescale.
    private static func configure(_ encoder: UnsafeMutablePointer<avifEncoder>, options: EncodeOptions) {
        encoder.pointee.maxThreads = Int32(CodecThreads.limit(options.maxThreads))
        encoder.pointee.speed = Int32(Self.speed(forEffort: options.effort))
        let quantizer = options.lossless ? 0 : Self.quantizer(forQuality: options.quality * 100)
        encoder.pointee.minQuantizer = Int32(quantizer)
        encoder.pointee.maxQuantizer = Int32(quantizer)
        encoder.pointee.minQuantizerAlpha = options.lossless ? 0 : Int32(max(0, quantizer - 10))
        encoder.pointee.maxQuantizerAlpha = options.lossless ? 0 : Int32(max(0, quantizer - 10))
        encoder.pointee.timescale = 1000
    }

    /// Converts one frame to YUV and adds it to the encoder (as the only image when `single`).
    private static func addFrame(
        _ buffer: PixelBuffer, duration seconds: Double, index: Int, alpha: Bool, single: Bool,
        to encoder: UnsafeMutablePointer<avifEncoder>, options: EncodeOptions, icc: Data?, exif: Data?
    ) throws {
        // libavif reads the layouts Imago keeps (through libyuv): no copy of the frame first.
        let layout: (format: avifRGBFormat, premultiplied: Bool)?
        switch buffer.format {
        case .argb32Premultiplied: layout = (AVIF_RGB_FORMAT_BGRA, true)
        case .rgba8: layout = (AVIF_RGB_FORMAT_RGBA, false)
        case .rgb8: layout = (AVIF_RGB_FORMAT_RGB, false)
        case .gray8, .grayAlpha8: layout = nil
        }
        let pixels = layout == nil ? buffer.converted(to: .rgba8) : buffer
        let avif = try makeImage(width: pixels.width, height: pixels.height, lossless: options.lossless, icc: icc, exif: exif)
        defer { avifImageDestroy(avif) }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, avif)
        rgb.format = layout?.format ?? AVIF_RGB_FORMAT_RGBA
        rgb.ignoreAlpha = alpha ? AVIF_FALSE : AVIF_TRUE  // an opaque frame gets no alpha plane
        // Premultiplied colour is divided back by libavif, for a frame whose alpha is kept.
        rgb.alphaPremultiplied = alpha && layout?.premultiplied == true ? AVIF_TRUE : AVIF_FALSE
        rgb.depth = 8
        rgb.rowBytes = UInt32(pixels.bytesPerRow)
        let converted = pixels.withUnsafeBytes { raw -> avifResult in
            rgb.pixels = UnsafeMutablePointer(mutating: raw.baseAddress?.assumingMemoryBound(to: UInt8.self))
            defer { rgb.pixels = nil }
            return avifImageRGBToYUV(avif, &rgb)
        }
        guard converted == AVIF_RESULT_OK else { throw Self.encodingFailure(converted, encoder, "converting frame \(index) to YUV") }
        let duration = UInt64(max(1, (seconds * 1000).rounded()))
        let flags = single ? AVIF_ADD_IMAGE_FLAG_SINGLE.rawValue : AVIF_ADD_IMAGE_FLAG_NONE.rawValue
        let added = avifEncoderAddImage(encoder, avif, duration, flags)
        guard added == AVIF_RESULT_OK else { throw Self.encodingFailure(added, encoder, "encoding frame \(index)") }
    }

    /// A libavif image of the frame's size (4:4:4 identity matrix when lossless, 4:2:0 BT.601
    /// otherwise, full range) with the ICC profile, or sRGB's primaries and transfer, and EXIF.
    /// The caller destroys it.
    private static func makeImage(
        width: Int, height: Int, lossless: Bool, icc: Data?, exif: Data?
    ) throws -> UnsafeMutablePointer<avifImage> {
        guard
            let avif = avifImageCreate(
                UInt32(width), UInt32(height), 8,
                lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420)
        else {
            throw ImageCodingError.encodingFailed(.avif, "libavif could not make an image")
        }
        avif.pointee.yuvRange = AVIF_RANGE_FULL
        avif.pointee.matrixCoefficients = avifMatrixCoefficients(
            lossless
                ? AVIF_MATRIX_COEFFICIENTS_IDENTITY
                : AVIF_MATRIX_COEFFICIENTS_BT601)
        if let icc {
            icc.withUnsafeBytes { avifImageSetProfileICC(avif, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        } else {
            avif.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
            avif.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        }
        if let exif {
            exif.withUnsafeBytes { avifImageSetMetadataExif(avif, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count) }
        }
        return avif
    }

    private static func encodingFailure(_ status: avifResult, _ encoder: UnsafeMutablePointer<avifEncoder>, _ step: String) -> ImageCodingError {
        let detail = withUnsafeBytes(of: encoder.pointee.diag.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let reason = String(cString: avifResultToString(status))
        return .encodingFailed(.avif, detail.isEmpty ? "\(reason) (\(step))" : "\(reason): \(detail) (\(step))")
    }
}
