// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CPNG
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// PNG decoding and encoding through libpng.
///
/// Decodes every colour type and bit depth (1–16; 16-bit is rounded to 8), palettes with
/// tRNS, Adam7 interlacing, and the colour chunks: iCCP is converted to sRGB with lcms2 and
/// gAMA is corrected when no sRGB or iCCP chunk overrides it (both only with
/// ``DecodeOptions/colorManagement`` on). The eXIf chunk gives the orientation.
///
/// APNG: our own chunk reader validates acTL, fcTL and fdAT (sequence numbers, frame
/// rectangles, chunk order, frame count, CRCs), rebuilds each frame as a standalone PNG stream
/// for libpng (YYImage's method) and composites it with its dispose and blend ops; a default
/// image outside the animation is not one of its frames; a delay denominator of 0 means 1/100 s
/// and delays of 10 ms or less show for 100 ms (as browsers). **An invalid APNG decodes as a
/// still PNG of its default image, as Firefox and Chrome show it.** Frames decode lazily with
/// ``DecodeOptions/decodesFramesLazily``.
public struct PNGCoder: ImageDecoding, ImageEncoding {
    /// Creates the coder.
    public init() {}

    /// `true` for `ImageFormat.png` and `ImageFormat.apng`.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .png || format == .apng }
    /// `true` for `ImageFormat.png` and `ImageFormat.apng`.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .png || format == .apng }

    /// Walks chunk headers (no pixels): size, bit depth, alpha or tRNS, interlacing, ICC presence,
    /// eXIf orientation, and for APNG the frame count, plays and delays.
    ///
    /// - Throws: `.truncated` or `.corrupt` for a bad signature or IHDR, `.exceedsLimit(.maxFrames, …)`
    ///   for an acTL frame count over the default limit.
    public func info(of data: Data) throws -> ImageInfo {
        try info(of: data, format: ImageFormat(sniffing: data) ?? .png)
    }

    /// ``info(of:)`` of data whose format (PNG or APNG) the caller has told.
    package func info(of data: Data, format: ImageFormat) throws -> ImageInfo {
        // The still's facts; an animation's come from the validated APNG structure below.
        var info = try PNGChunks(data).info(format: .png)
        guard format == .apng else { return info }
        info.format = .apng
        // Only a valid animation counts; an invalid APNG is shown as its still default image.
        if let structure = try APNGStructure.parse(data) {
            info.frameCount = structure.frames.count
            info.loopCount = structure.frames.count > 1 ? structure.plays : 1
            info.durations = structure.frames.count > 1 ? structure.frames.map(\.layout.duration) : [0]
        } else {
            info.frameCount = 1
            info.loopCount = 1
            info.durations = [0]
        }
        return info
    }

    /// Decodes to ``DecodeOptions/pixelFormat`` (default: premultiplied display format).
    ///
    /// - Throws: `.exceedsLimit` from IHDR before allocating; `.truncated` when the data ends before
    ///   IEND; `.corrupt` with libpng's message (bad CRC, bad IHDR, misplaced chunks, zlib errors).
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let format = options.sourceFormat ?? ImageFormat(sniffing: data) ?? .png
        if options.firstFrameOnly, format == .apng, let still = APNGStructure.leadingDefaultImage(data) {
            // Frame 0 is the default image, valid animation or not: the frames after it are not read.
            var image = try decodeStill(still, options: options)
            image.format = .apng
            return image
        }
        if format == .apng, let structure = try APNGStructure.parse(data, limits: options.limits) {
            let chunks = try? PNGChunks(data)
            let exif = chunks?.exif
            // The ICC profile is kept when it was not applied (the frames were converted with it otherwise).
            let icc = options.colorManagement ? nil : PNGPushDecoder.iccProfile(in: data)
            let animation = try APNGAnimation(data: data, structure: structure, options: options)
            return try animation.image(
                options: options, metadata: ImageMetadata(iccProfile: icc, exif: exif),
                orientation: ImageOrientation(exif: exif, xmp: chunks?.xmp))
        }
        var still = options
        still.sourceFormat = format
        return try decodeStill(data, options: still)
    }

    /// Decodes the PNG's IDAT image: the whole image of a PNG, the default image of an APNG.
    func decodeStill(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let ihdr = try PNGChunks.readIHDR(data)
        try options.limits.check(width: ihdr.width, height: ihdr.height, format: .png)
        var decoder: PNGPushDecoder?
        let rawFormat: PixelFormat = options.pixelFormat == .argb32Premultiplied ? .argb32Premultiplied : .rgba8
        var raw = try PixelBuffer(uninitializedWidth: ihdr.width, height: ihdr.height, format: rawFormat) { p in
            let d = try PNGPushDecoder(ihdr: ihdr, options: options, output: p.baseAddress, stride: ihdr.width * 4)
            decoder = d
            try data.withUnsafeBytes { try d.feed($0) }
            guard d.isFinished else {
                throw ImageCodingError.truncated(.png, "the data ends before the IEND chunk (\(d.rowsWritten) of \(ihdr.height) rows)")
            }
        }
        guard let decoder else { throw ImageCodingError.corrupt(.png, "decoder was not created") }
        let chunks = try? PNGChunks(data)
        let hasAlpha = ihdr.hasAlphaChannel || chunks?.hasTRNS == true
        return decoder.finish(
            &raw, icc: decoder.iccProfile(), exif: chunks?.exif, xmp: decoder.xmp, hasAlpha: hasAlpha,
            format: options.sourceFormat ?? ImageFormat(sniffing: data) ?? .png, incremental: false)
    }

    /// A progressive decoder: rows so far, or for Adam7 the passes so far.
    public func makeProgressiveDecoder(options: DecodeOptions) -> (any ProgressiveImageDecoding)? {
        PNGProgressiveDecoder(options: options)
    }

    /// Encodes a still as 8-bit PNG: gray, gray+alpha, RGB or RGBA, whichever keeps the pixels
    /// (alpha only when some pixel is not opaque), with iCCP and eXIf when metadata is kept. An
    /// animation (as `.png` or `.apng`) becomes an APNG of every frame (`APNGEncoder`).
    ///
    /// The ICC profile is written byte for byte, including profiles libpng knows as incorrect
    /// sRGB ones (common in camera JPEGs). A gray profile on neutral colour pixels writes a gray
    /// PNG; see `PNGColorProfile` for the pairs PNG cannot hold.
    ///
    /// - Throws: `.encoderUnavailable` for another format, `.invalidArgument` for options out of
    ///   range, `.encodingFailed` with libpng's message if encoding fails.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .png || format == .apng else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, exif, icc) = options.prepare(image)
        if img.isAnimated {
            return try APNGEncoder.encode(try img.allFrames(), loopCount: img.loopCount, options: options, icc: icc, exif: exif)
        }
        let source = img.buffer
        let keepAlpha = img.hasAlpha && !source.isOpaque
        let pixels: PixelBuffer, colorType: Int32
        switch source.format {
        case .gray8:
            pixels = source
            colorType = PNG_COLOR_TYPE_GRAY
        case .grayAlpha8:
            pixels = keepAlpha ? source : source.converted(to: .gray8)
            colorType = keepAlpha ? PNG_COLOR_TYPE_GRAY_ALPHA : PNG_COLOR_TYPE_GRAY
        default:
            pixels = source.converted(to: keepAlpha ? .rgba8 : .rgb8)
            colorType = keepAlpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB
        }
        let (fitted, fittedType, profile) = PNGColorProfile.fit(pixels, colorType: colorType, icc: icc)
        return try Self.write(
            fitted, colorType: fittedType, level: options.compressionLevel, interlace: options.progressive,
            icc: profile, exif: exif)
    }

    /// libpng's encoder over 8-bit pixels already in the layout of `colorType`.
    static func write(_ pixels: PixelBuffer, colorType: Int32, level: Int, interlace: Bool, icc: Data?, exif: Data?) throws -> Data {
        try pixels.withUnsafeBytes { px in
            try withOptionalBytes(icc) { iccPtr, iccLen in
                try withOptionalBytes(exif) { exifPtr, exifLen in
                    var params = imago_png_encode_params()
                    params.pixels = px.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    params.width = UInt32(pixels.width)
                    params.height = UInt32(pixels.height)
                    params.stride = pixels.bytesPerRow
                    params.color_type = colorType
                    params.compression_level = Int32(level)
                    params.interlace = interlace ? 1 : 0
                    params.icc = iccPtr
                    params.icc_length = UInt32(iccLen)
                    params.exif = exifPtr
                    params.exif_length = UInt32(exifLen)
                    return try runEncoder(.png) { out, length, message, capacity in
                        imago_png_encode(&params, out, length, message, capacity)
                    }
                }
            }
        }
    }
}
