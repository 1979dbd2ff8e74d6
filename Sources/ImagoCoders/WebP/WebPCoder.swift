// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CLCMS2
import CWebP
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// WebP decoding and encoding through libwebp.
///
/// Decodes lossy, lossless and alpha WebP; with ``DecodeOptions/thumbnailPixelSize`` a still
/// decodes straight to the reduced size using libwebp's scaled decoding. EXIF and ICC come
/// from the RIFF chunks. Animated WebP decodes every frame (or lazily, with
/// ``DecodeOptions/decodesFramesLazily``): frames located by libwebp's demuxer, decoded alone and
/// composited with their blend and dispose methods; "dispose to background" clears to
/// transparent and durations of 10 ms or less show for 100 ms, as browsers do.
public struct WebPCoder: ImageDecoding, ImageEncoding {
    /// Encoder effort, 0 (fastest) to 6 (smallest). Default 4, libwebp's own default.
    public var method: Int

    /// Creates the coder.
    public init(method: Int = 4) { self.method = method }

    /// `true` for `ImageFormat.webp` only.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .webp }
    /// `true` for `ImageFormat.webp` only.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .webp }

    /// Reads the RIFF container with libwebp's demuxer: canvas, alpha, animation frames, loop count
    /// and durations, ICC and EXIF presence.
    ///
    /// - Throws: `.truncated` when the data is shorter than its RIFF size, `.corrupt` for a malformed
    ///   container, `.exceedsLimit(.maxFrames, …)` for too many frames.
    public func info(of data: Data) throws -> ImageInfo {
        try WebPContainer(data).info()
    }

    /// Decodes to ``DecodeOptions/pixelFormat``; a still is scaled while decoding when
    /// ``DecodeOptions/thumbnailPixelSize`` allows.
    ///
    /// - Throws: `.exceedsLimit` before allocating, `.truncated`, `.corrupt` (bitstream errors),
    ///   `.exceedsLimit` for an animation's frames together over `limits.maxTotalPixels`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let container = try WebPContainer(data)
        if container.isAnimated {
            return try WebPAnimation(data: data, container: container, options: options).image(options: options)
        }
        let plan = WebPOutputPlan(container: container, options: options, oneShot: true)
        try options.limits.check(
            width: container.width, height: container.height,
            decoded: PixelSize(width: plan.width, height: plan.height), format: .webp)
        let raw = try PixelBuffer(uninitializedWidth: plan.width, height: plan.height, format: plan.rawFormat) { p in
            var config = plan.makeConfig(output: p)
            let status = data.withUnsafeBytes { WebPDecode($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &config) }
            try WebPContainer.check(status, during: "the image data")
        }
        return plan.finish(raw, incremental: false)
    }

    /// An incremental decoder over `WebPIDecoder`: the rows decoded so far.
    public func makeProgressiveDecoder(options: DecodeOptions) -> (any ProgressiveImageDecoding)? {
        WebPProgressiveDecoder(options: options)
    }

    /// Encodes a still, or every frame of an animation (libwebp's animation encoder, with the
    /// durations in milliseconds and the loop count), lossy at ``EncodeOptions/quality`` or
    /// lossless (exact colours under transparent pixels), with ICCP and EXIF chunks when metadata
    /// is kept.
    ///
    /// - Throws: `.encoderUnavailable` for another format, `.invalidArgument` for options out of
    ///   range, `.corrupt` when libwebp fails.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .webp else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, exif, icc) = options.prepare(image)
        if img.isAnimated {
            return try WebPAnimationEncoder.encode(
                try img.allFrames(), loopCount: img.loopCount, options: options,
                method: method, icc: icc, exif: exif)
        }
        let keepAlpha = img.hasAlpha && !img.buffer.isOpaque
        let pixels = img.buffer.converted(to: keepAlpha ? .rgba8 : .rgb8)
        guard var config = Self.makeConfig(options: options, method: method) else {
            throw ImageCodingError.invalidArgument("libwebp rejected the encoder configuration")
        }
        var picture = WebPPicture()
        guard WebPPictureInitInternal(&picture, WEBP_ENCODER_ABI_VERSION) != 0 else {
            throw ImageCodingError.encoderUnavailable(.webp)
        }
        defer { WebPPictureFree(&picture) }
        picture.use_argb = options.lossless ? 1 : 0
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        let imported = pixels.withUnsafeBytes { p -> Int32 in
            let base = p.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return keepAlpha
                ? WebPPictureImportRGBA(&picture, base, Int32(pixels.bytesPerRow))
                : WebPPictureImportRGB(&picture, base, Int32(pixels.bytesPerRow))
        }
        guard imported != 0 else { throw ImageCodingError.corrupt(.webp, "libwebp could not import the pixels (out of memory)") }
        return try Self.encode(&picture, config: &config, icc: icc, exif: exif)
    }

    /// Encodes a picture whose pixels are in, with the ICC profile and EXIF muxed in when given.
    ///
    /// - Throws: `.encodingFailed` with libwebp's error code.
    static func encode(_ picture: inout WebPPicture, config: inout WebPConfig, icc: Data?, exif: Data?) throws -> Data {
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        picture.writer = WebPMemoryWrite
        withUnsafeMutablePointer(to: &writer) { picture.custom_ptr = UnsafeMutableRawPointer($0) }
        let ok = withExtendedLifetime(writer) { WebPEncode(&config, &picture) }
        guard ok != 0, let mem = writer.mem else {
            throw ImageCodingError.encodingFailed(.webp, "libwebp failed to encode (error \(picture.error_code.rawValue))")
        }
        let bitstream = Data(bytes: mem, count: writer.size)
        guard icc != nil || exif != nil else { return bitstream }
        return try WebPMuxing.attach(icc: icc, exif: exif, to: bitstream)
    }

    /// libwebp's method for an ``EncodeOptions/effort``: effort 3 or less is method 0, effort 7
    /// (JPEG XL's default) method 4 (libwebp's), effort 9 method 6; `nil` for none.
    package static func method(forEffort effort: Int?) -> Int? {
        effort.map { max(0, min(6, $0 - 3)) }
    }

    /// libwebp's configuration for `options`, at `method` unless the options' effort names one.
    static func makeConfig(options: EncodeOptions, method: Int) -> WebPConfig? {
        var config = WebPConfig()
        guard WebPConfigInitInternal(&config, WEBP_PRESET_DEFAULT, Float(options.quality * 100), WEBP_ENCODER_ABI_VERSION) != 0 else {
            return nil
        }
        config.method = Int32(Self.method(forEffort: options.effort) ?? max(0, min(6, method)))
        // libwebp's one helper thread (analysis and alpha beside the main pass): the output is
        // the same bytes, the wall time shorter when a core is free. Not with maxThreads 1.
        config.thread_level = CodecThreads.limit(options.maxThreads) > 1 ? 1 : 0
        if options.lossless {
            config.lossless = 1
            config.exact = 1
        }
        return WebPValidateConfig(&config) != 0 ? config : nil
    }
}

/// Output settings for one WebP decode, shared by one-shot and incremental decoding.
struct WebPOutputPlan {
    let container: WebPContainer
    let options: DecodeOptions
    let width: Int
    let height: Int
    /// ICC conversion needs straight alpha first; otherwise libwebp premultiplies itself.
    let convertsICC: Bool
    /// libwebp writes three bytes a pixel itself: RGB asked for, no alpha in the file, no ICC
    /// conversion (which works on four-byte layouts) and a one-shot decode (partial images of an
    /// incremental one show what is missing as transparent). An opaque photo then needs no
    /// RGBA buffer converted afterwards: a quarter less memory, and no pass over every pixel.
    let decodesRGB: Bool

    init(container: WebPContainer, options: DecodeOptions, oneShot: Bool = false) {
        self.container = container
        self.options = options
        let size = PixelSize(width: container.width, height: container.height)
        let d = options.shrinkFactor(for: size, choices: [2, 3, 4, 5, 6, 7, 8])
        if d > 1 {
            width = max(1, (container.width + d - 1) / d)
            height = max(1, (container.height + d - 1) / d)
        } else {
            width = container.width
            height = container.height
        }
        convertsICC = options.colorManagement && container.icc != nil
        decodesRGB = oneShot && options.pixelFormat == .rgb8 && !container.hasAlpha && !convertsICC
    }

    var scaled: Bool { width != container.width || height != container.height }
    var display: Bool { options.pixelFormat == .argb32Premultiplied }
    var rawFormat: PixelFormat { display ? .argb32Premultiplied : decodesRGB ? .rgb8 : .rgba8 }

    var colorspace: WEBP_CSP_MODE { decodesRGB ? MODE_RGB : Self.colorspace(display: display, convertsICC: convertsICC) }

    /// libwebp's output mode: the display format (premultiplied by libwebp, or straight when an
    /// ICC conversion must come first), or straight RGBA.
    static func colorspace(display: Bool, convertsICC: Bool) -> WEBP_CSP_MODE {
        #if _endian(little)
        if display { return convertsICC ? MODE_BGRA : MODE_bgrA }
        #else
        if display { return convertsICC ? MODE_ARGB : MODE_Argb }
        #endif
        return MODE_RGBA
    }

    /// Converts straight pixels decoded for an ICC conversion to sRGB, then premultiplies them
    /// when they are in the display format; on up to `threads` threads.
    static func applyICC(_ icc: Data, to buffer: inout PixelBuffer, display: Bool, threads: Int) {
        let w = buffer.width, h = buffer.height, stride = buffer.bytesPerRow
        let layout = display && PixelFormat.argbOffsets.b == 0 ? IMAGO_TYPE_BGRA_8 : display ? IMAGO_TYPE_ARGB_8 : IMAGO_TYPE_RGBA_8
        buffer.withUnsafeMutableBytes { p in
            _ = ColorManagement.convertToSRGB(p, width: w, height: h, bytesPerRow: stride, profile: icc, layout: layout, threads: threads)
            if display { PixelBuffer.premultiplyARGB32InPlace(p, width: w, height: h, bytesPerRow: stride) }
        }
    }

    func makeConfig(output: UnsafeMutableRawBufferPointer) -> WebPDecoderConfig {
        var config = WebPDecoderConfig()
        _ = WebPInitDecoderConfigInternal(&config, WEBP_DECODER_ABI_VERSION)
        if scaled {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(width)
            config.options.scaled_height = Int32(height)
        }
        // libwebp's own threading: the in-loop filter runs beside the decoding of the next rows
        // (dwebp -mt, libvips), with the same pixels.
        config.options.use_threads = CodecThreads.limit(options.maxThreads) > 1 ? 1 : 0
        config.output.colorspace = colorspace
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(width * rawFormat.bytesPerPixel)
        config.output.u.RGBA.size = output.count
        return config
    }

    /// Consumes the decoded buffer so in-place colour conversion never copies it.
    func finish(_ raw: consuming PixelBuffer, incremental: Bool) -> Image {
        var buffer = raw
        if convertsICC, let icc = container.icc { Self.applyICC(icc, to: &buffer, display: display, threads: CodecThreads.limit(options.maxThreads)) }
        buffer = buffer.converted(to: options.pixelFormat)
        return Image(
            buffer: buffer, orientation: container.orientation,
            scale: options.scale, format: .webp,
            metadata: ImageMetadata(iccProfile: convertsICC ? nil : container.icc, exif: container.exif),
            hasAlpha: container.hasAlpha || incremental, isIncremental: incremental)
    }
}
