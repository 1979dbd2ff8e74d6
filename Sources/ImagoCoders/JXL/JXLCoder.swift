// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CJXL
import CLCMS2
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// JPEG XL through libjxl 0.7 (Debian's `libjxl0.7`), loaded on first use.
///
/// **Decoding.** Still images and animations (frames composited by libjxl onto the canvas, with
/// their durations from the animation's tick rate and its loop count), decoded frame by frame on
/// demand like GIF, APNG and WebP. Alpha comes out straight; 16-bit and float samples are
/// reduced to 8 bits by libjxl. The orientation is kept as stored and reported (Imago applies
/// it, as for JPEG). Colour: where libjxl may choose (XYB images) it is asked for sRGB; any
/// other colour space, encoded or ICC, is converted to sRGB with lcms2 through the same
/// colour management as the other coders (with ``DecodeOptions/colorManagement`` off, the
/// profile is kept as metadata instead). The `Exif` box is kept as metadata. Decoding as bytes
/// arrive is ``makeProgressiveDecoder(options:)``'s.
///
/// **Encoding.** Lossy at ``EncodeOptions/quality`` (mapped to libjxl's butteraugli distance
/// as `cjxl -q` maps it) or lossless (``EncodeOptions/lossless``), at
/// ``EncodeOptions/effort`` (libjxl's 1–9, default 7); animations with their durations and
/// loop count; the ICC profile and EXIF when metadata is kept. ``recompress(jpeg:effort:)``
/// and ``reconstructedJPEG(from:maxBytes:)`` give lossless JPEG recompression both ways.
///
/// ``canDecode(_:)`` and ``canEncode(_:)`` answer `false` when libjxl is not installed.
public struct JXLCoder: ImageDecoding, ImageEncoding {
    /// Creates the coder. libjxl itself is loaded only when a JPEG XL image is first met.
    public init() {}

    /// Whether the format is JPEG XL and libjxl can be loaded.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .jxl && imago_jxl_available() != 0 }

    /// Whether the format is JPEG XL and libjxl can be loaded.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .jxl && imago_jxl_available() != 0 }

    // MARK: Header

    /// The size (as stored), orientation, alpha, bit depth, gray, ICC presence, and for an
    /// animation its frame count, durations and loop count, read from the frame headers without
    /// decoding pixels. Counts at most 100 000 frames.
    ///
    /// - Throws: `.unsupportedFeature` without libjxl; `.truncated` or `.corrupt` for a file
    ///   libjxl cannot read.
    public func info(of data: Data) throws -> ImageInfo {
        try data.withUnsafeBytes { raw in
            let scan = try JXLFrameScan(input: raw, limits: .unlimited, maxFrames: 100_000, readsAllFrames: true)
            return scan.info
        }
    }

    // MARK: Decoding

    /// Decodes the image: a still, or an animation (every frame, frame 0 alone with
    /// ``DecodeOptions/firstFrameOnly``, or frames on demand with
    /// ``DecodeOptions/decodesFramesLazily``), in ``DecodeOptions/pixelFormat``.
    ///
    /// - Throws: `.exceedsLimit` from the header before any pixel is allocated (size, frames,
    ///   total frame pixels, input bytes); `.truncated` or `.corrupt` for a damaged file;
    ///   `.unsupportedFeature` without libjxl.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let header = try data.withUnsafeBytes { raw in
            try JXLFrameScan(
                input: raw, limits: options.limits, maxFrames: options.limits.maxFrames,
                readsAllFrames: !options.firstFrameOnly)
        }
        if header.info.frameCount > 1 || (header.isAnimated && !options.firstFrameOnly) {
            let animation = try JXLAnimation(data: data, header: header, options: options)
            return try animation.image(options: options)
        }
        return try data.withUnsafeBytes { raw in try Self.decodeStill(raw, header: header, options: options) }
    }

    /// The first frame of `input` as an image, colour managed as `options` asks.
    private static func decodeStill(_ input: UnsafeRawBufferPointer, header: JXLFrameScan, options: DecodeOptions) throws -> Image {
        let events =
            JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue
            | JXL_DEC_FULL_IMAGE.rawValue | JXL_DEC_BOX.rawValue
        let session = try JXLSession(
            input: input, events: events,
            threads: CodecThreads.limit(options.maxThreads, pixels: header.info.pixelSize.pixelCount ?? 0), mapsHDR: options.colorManagement)
        _ = JxlDecoderSetDecompressBoxes(session.decoder, JXL_TRUE)
        var color = JXLColorPlan(
            manages: options.colorManagement, gray: header.isGray, alpha: header.hasAlpha,
            threads: CodecThreads.limit(options.maxThreads))
        var buffer: PixelBuffer?
        decoding: while true {
            let status = try session.next(during: "reading the image")
            switch status {
            case JXL_DEC_BASIC_INFO:
                try options.limits.check(width: session.storedSize.width, height: session.storedSize.height, format: .jxl)
            case JXL_DEC_COLOR_ENCODING:
                color.decide(session)
            case JXL_DEC_BOX:
                session.beginBox()
            case JXL_DEC_BOX_NEED_MORE_OUTPUT:
                session.continueBox()
            case JXL_DEC_FRAME:
                session.finishBox()
                guard buffer == nil else { break decoding }  // a second frame: the first is all a still needs
                let size = session.storedSize
                // An opaque image wanted as premultiplied BGRA is decoded as RGBA into that
                // very buffer and its bytes swapped there: no second full-size copy.
                let inPlace = !header.hasAlpha && options.pixelFormat == .argb32Premultiplied && color.bufferFormat.isColor
                let channels = inPlace ? 4 : color.bufferFormat.bytesPerPixel
                buffer = try PixelBuffer(
                    uninitializedWidth: size.width, height: size.height,
                    format: inPlace ? .argb32Premultiplied : color.bufferFormat
                ) { out in
                    guard try session.decodeFrame(into: out, channels: channels, step: "decoding the image", hdr: color.hdr) else {
                        throw ImageCodingError.truncated(.jxl, "the file ends inside the image")
                    }
                    if inPlace {
                        color.convert(out, width: size.width, height: size.height, layout: IMAGO_TYPE_RGBA_8)
                        JXLColorPlan.rgbaToPremultipliedARGB(out)
                    }
                }
            case JXL_DEC_SUCCESS:
                session.finishBox()
                break decoding
            default:
                continue
            }
        }
        guard var pixels = buffer else { throw ImageCodingError.corrupt(.jxl, "the file holds no frame") }
        if pixels.format != .argb32Premultiplied || options.pixelFormat != .argb32Premultiplied { color.convert(&pixels) }
        return Image(
            buffer: pixels.converted(to: options.pixelFormat), orientation: session.orientation, scale: options.scale,
            format: .jxl, metadata: ImageMetadata(iccProfile: color.keptProfile, exif: session.exif),
            hasAlpha: header.hasAlpha)
    }

    /// Decodes a JPEG XL as its bytes arrive: libjxl's DC pass first, then refinements, each
    /// shown with the rest of the image upscaled, as libjxl renders it.
    public func makeProgressiveDecoder(options: DecodeOptions) -> (any ProgressiveImageDecoding)? {
        imago_jxl_available() != 0 ? JXLProgressiveDecoder(options: options) : nil
    }
}

/// How the decoded pixels reach sRGB: the buffer layout libjxl writes, and the profile to convert
/// from (or keep as metadata).
struct JXLColorPlan {
    let manages: Bool
    let gray: Bool
    let alpha: Bool
    /// The threads a conversion through a profile may use (``CodecThreads``).
    let threads: Int
    /// The profile to convert the pixels from, when they are not sRGB and colour is managed.
    private(set) var convertFrom: Data?
    /// The profile kept as metadata, when colour is not managed.
    private(set) var keptProfile: Data?
    /// The mapping of PQ or HLG samples to sRGB, for an HDR image libjxl gives in its own
    /// colour space (one that is not XYB), when colour is managed.
    private(set) var hdr: HDRToSDR?

    init(manages: Bool, gray: Bool, alpha: Bool, threads: Int) {
        self.manages = manages
        self.threads = threads
        self.gray = gray
        self.alpha = alpha
    }

    /// Decides at `JXL_DEC_COLOR_ENCODING`.
    mutating func decide(_ session: JXLSession) {
        if manages {
            _ = session.preferSRGB()
            // An HDR image's samples are mapped from 16 bits, not through the profile libjxl
            // 0.7 gives for PQ and HLG (which puts 10,000 nits at white, with no tone mapping).
            if !session.outputIsSRGB() {
                hdr = session.hdrConversion()
                if hdr == nil { convertFrom = session.outputProfile() }
            }
        } else if !session.outputIsSRGB() {
            keptProfile = session.originalProfile() ?? session.outputProfile()
        }
    }

    /// Gray stays gray unless its profile must be converted (lcms2's gray tables write RGB).
    var bufferFormat: PixelFormat {
        if gray, convertFrom == nil { return alpha ? .grayAlpha8 : .gray8 }
        return alpha || gray ? .rgba8 : .rgb8
    }

    /// Converts a partial image of a progressive decode, which libjxl writes at 8 bits: through
    /// the profile, or, for HDR, from the 8-bit samples (``hdr``'s 16-bit mapping otherwise).
    func convertPartial(_ buffer: inout PixelBuffer) {
        guard let hdr else { return convert(&buffer) }
        let channels = buffer.format.bytesPerPixel, count = buffer.width * buffer.height
        buffer.withUnsafeMutableBytes { p in
            guard let base = p.baseAddress?.assumingMemoryBound(to: UInt8.self), count * channels <= p.count else { return }
            hdr.convert(base, count: count, channels: channels)
        }
    }

    func convert(_ buffer: inout PixelBuffer) {
        guard convertFrom != nil else { return }
        let w = buffer.width, h = buffer.height
        let layout = buffer.format == .rgb8 ? IMAGO_TYPE_RGB_8 : IMAGO_TYPE_RGBA_8
        buffer.withUnsafeMutableBytes { p in convert(p, width: w, height: h, layout: layout) }
    }

    /// Converts tight rows of `layout` pixels in place.
    func convert(_ pixels: UnsafeMutableRawBufferPointer, width: Int, height: Int, layout: cmsUInt32Number) {
        guard let icc = convertFrom else { return }
        let row = width * (layout == IMAGO_TYPE_RGB_8 ? 3 : 4)
        _ = ColorManagement.convertToSRGB(
            pixels, width: width, height: height, bytesPerRow: row, profile: icc, layout: layout, threads: threads)
    }

    /// Opaque RGBA to ``PixelFormat/argb32Premultiplied`` in place: with alpha 255 the colour
    /// is already premultiplied, so only the byte order changes.
    static func rgbaToPremultipliedARGB(_ pixels: UnsafeMutableRawBufferPointer) {
        let off = PixelFormat.argbOffsets
        guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var i = 0
        while i + 3 < pixels.count {
            let r = base[i], g = base[i + 1], b = base[i + 2], a = base[i + 3]
            base[i + off.r] = r
            base[i + off.g] = g
            base[i + off.b] = b
            base[i + off.a] = a
            i += 4
        }
    }
}
