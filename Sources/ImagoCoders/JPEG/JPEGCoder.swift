// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CJPEG
import CLCMS2
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// JPEG decoding and encoding through libjpeg-turbo.
///
/// Decodes baseline, progressive and arithmetic-coded JPEGs, grayscale, RGB, CMYK and YCCK
/// (Adobe-inverted CMYK recognised from the APP14 marker), with restart markers. With
/// ``DecodeOptions/thumbnailPixelSize`` it decodes at 1/2, 1/4 or 1/8 scale in the DCT
/// domain, the largest reduction that still covers the requested size. EXIF orientation is
/// read from APP1 and the ICC profile reassembled from APP2 chunks. Asked for
/// `PixelFormat.rgb8` (or `.gray8` for a gray JPEG), libjpeg writes that format
/// directly, which moves a quarter less memory than 4-byte pixels. 12-bit and lossless
/// JPEGs are reported as `ImageCodingError.unsupportedFeature(_:_:)` because Debian's
/// libjpeg-turbo is built for 8-bit samples.
public struct JPEGCoder: ImageDecoding, ImageEncoding {
    /// Most scans a progressive JPEG may have before it is refused as hostile (libjpeg-turbo's
    /// advice against scan-count denial of service). Default 500.
    public var maxScans: Int

    /// Creates the coder.
    public init(maxScans: Int = 500) { self.maxScans = maxScans }

    /// `true` for `ImageFormat.jpeg` only.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .jpeg }
    /// `true` for `ImageFormat.jpeg` only.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .jpeg }

    /// Reads the JPEG header and saved APP1/APP2 markers: size, orientation, progressive, ICC presence.
    ///
    /// - Throws: `.truncated` when the data ends inside the header, `.corrupt` with libjpeg's message,
    ///   `.unsupportedFeature` for 12-bit or lossless JPEGs.
    public func info(of data: Data) throws -> ImageInfo {
        let d = try JPEGDecompressor()
        return try data.withUnsafeBytes { raw in
            imago_jpeg_decoder_set_input(d.handle, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, 1)
            _ = try d.check(imago_jpeg_read_header(d.handle), during: "inside the header")
            return try d.header().info()
        }
    }

    /// Decodes to ``DecodeOptions/pixelFormat`` (default: premultiplied display format), scaled in
    /// the DCT domain when ``DecodeOptions/thumbnailPixelSize`` allows, CMYK and ICC converted to sRGB
    /// unless ``DecodeOptions/colorManagement`` is off.
    ///
    /// - Throws: `.exceedsLimit` from the header before allocating; `.truncated` when the data ends
    ///   before the end-of-image marker; `.corrupt` with libjpeg's message; `.unsupportedFeature`
    ///   for 12-bit and lossless JPEGs; `.corrupt` for more than ``maxScans`` scans.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        var image = try data.withUnsafeBytes { raw in
            let (d, header) = try readHeader(raw)
            return try decodePixels(d, header: header, options: options)
        }
        // A map that cannot be read leaves the image as an SDR one, never the decode failed.
        if options.gainMap { image.metadata.gainMap = try? UltraHDR.gainMap(in: data, limits: options.limits) }
        return image
    }

    /// Decodes what `source` gives as ``decode(_:options:)-(Data,_)`` decodes the same bytes, reading them
    /// 64 KiB at a time into one buffer: the input is never held whole, so a DCT-scaled decode
    /// of a large file holds the reduced bitmap and a piece of the file.
    ///
    /// - Throws: as ``decode(_:options:)-(Data,_)``; the source's own read errors, unchanged;
    ///   `.exceedsLimit(.maxBytes, …)` once more than `maxBytes` have been read.
    public func decode(from source: any ImageByteSource, options: DecodeOptions) throws -> Image {
        let (d, header) = try readHeader(from: source, limits: options.limits)
        return try d.rethrowingReadFailure { try decodePixels(d, header: header, options: options) }
    }

    /// The pixels of a decompressor whose header is read, as ``decode(_:options:)`` makes them.
    func decodePixels(_ d: JPEGDecompressor, header: JPEGHeader, options: DecodeOptions) throws -> Image {
        let plan = JPEGOutputPlan(header: header, options: options)
        try plan.checkLimits(d)
        plan.configure(d.cinfo)
        _ = try d.check(imago_jpeg_start_decompress(d.handle), during: "before the first scan")
        let width = Int(d.cinfo.pointee.output_width), height = Int(d.cinfo.pointee.output_height)
        let stride = width * plan.bufferFormat.bytesPerPixel
        var buffer = try PixelBuffer(uninitializedWidth: width, height: height, format: plan.bufferFormat) { p in
            var rows: UInt32 = 0
            let base = p.baseAddress?.assumingMemoryBound(to: UInt8.self)
            _ = try d.check(imago_jpeg_read_rows(d.handle, base, stride, &rows), during: "in the image data")
        }
        _ = try d.check(imago_jpeg_finish_decompress(d.handle), during: "before the end marker")
        if d.hitEnd {
            throw ImageCodingError.truncated(.jpeg, "the data ends before the end-of-image marker")
        }
        buffer = plan.finish(buffer)
        return plan.image(from: buffer, header: header)
    }

    /// A progressive decoder: rows so far for baseline JPEGs, the best complete scan for progressive ones.
    public func makeProgressiveDecoder(options: DecodeOptions) -> (any ProgressiveImageDecoding)? {
        JPEGProgressiveDecoder(options: options, maxScans: maxScans)
    }

    /// A decompressor over all of `raw` (which must outlive it) with the header read.
    func readHeader(_ raw: UnsafeRawBufferPointer) throws -> (JPEGDecompressor, JPEGHeader) {
        let d = try JPEGDecompressor()
        imago_jpeg_decoder_set_max_scans(d.handle, Int32(clamping: maxScans))
        imago_jpeg_decoder_set_input(d.handle, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, 1)
        _ = try d.check(imago_jpeg_read_header(d.handle), during: "inside the header")
        return (d, try d.header())
    }

    /// A decompressor pulling its input from `source` (64 KiB at a time, at most
    /// `limits.maxBytes` in all) with the header read. Read failures surface as the source's own
    /// error through ``JPEGDecompressor/rethrowingReadFailure(_:)``.
    func readHeader(from source: any ImageByteSource, limits: DecodingLimits) throws -> (JPEGDecompressor, JPEGHeader) {
        let d = try JPEGDecompressor()
        imago_jpeg_decoder_set_max_scans(d.handle, Int32(clamping: maxScans))
        try d.pull(from: source, maxBytes: limits.maxBytes)
        return try d.rethrowingReadFailure {
            _ = try d.check(imago_jpeg_read_header(d.handle), during: "inside the header")
            return (d, try d.header())
        }
    }

    /// Encodes the first frame as a baseline (or, with ``EncodeOptions/progressive``, progressive)
    /// JPEG, with optimized Huffman tables up to 4 megapixels (see
    /// ``EncodeOptions/optimizesHuffmanTables``); 4:2:0 chroma below quality 0.9, 4:4:4 from there. Alpha
    /// is flattened over ``EncodeOptions/backgroundColor``; gray stays gray.
    ///
    /// An image whose metadata holds a gain map (`ImageMetadata.gainMap`) is written as an
    /// Ultra HDR JPEG (``UltraHDR/write(primary:gainMap:quality:)``).
    ///
    /// - Throws: `.encoderUnavailable` for another format, `.invalidArgument` for options out of
    ///   range, `.corrupt` with libjpeg's message if encoding fails.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .jpeg else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, exif, icc) = options.prepare(image)
        let source = img.buffer
        // JPEG has no alpha: flatten against the background; keep gray as gray.
        let pixels: PixelBuffer, space: J_COLOR_SPACE
        switch source.format {
        case .gray8:
            pixels = source
            space = JCS_GRAYSCALE
        case .grayAlpha8:
            pixels = source.flattened(over: options.backgroundColor).converted(to: .gray8)
            space = JCS_GRAYSCALE
        case .rgb8:
            pixels = source
            space = JCS_RGB
        case .argb32Premultiplied where !img.hasAlpha || source.isOpaque, .rgba8 where !img.hasAlpha || source.isOpaque:
            // Opaque 4-byte pixels go to libjpeg as they are, the fourth byte ignored: no copy.
            pixels = source
            space = source.format == .rgba8 ? JCS_EXT_RGBX : (PixelFormat.argbOffsets.b == 0 ? JCS_EXT_BGRX : JCS_EXT_XRGB)
        default:
            pixels = img.hasAlpha && !source.isOpaque ? source.flattened(over: options.backgroundColor) : source.converted(to: .rgb8)
            space = JCS_RGB
        }
        let quality = Int32(max(1, min(100, (options.quality * 100).rounded())))
        let primary = try pixels.withUnsafeBytes { px in
            try withOptionalBytes(icc) { iccPtr, iccLen in
                try withOptionalBytes(exif) { exifPtr, exifLen in
                    var params = imago_jpeg_encode_params()
                    params.pixels = px.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    params.width = UInt32(pixels.width)
                    params.height = UInt32(pixels.height)
                    params.stride = pixels.bytesPerRow
                    params.in_color_space = Int32(bitPattern: space.rawValue)
                    params.components = Int32(pixels.format.bytesPerPixel)
                    params.quality = quality
                    params.progressive = options.progressive ? 1 : 0
                    params.optimize_coding = options.optimizesHuffman(pixels: pixels.width * pixels.height) ? 1 : 0
                    params.chroma_subsample = quality < 90 ? 1 : 0
                    params.quant_table = options.jpegQuantization == .robidoux ? 1 : 0
                    params.icc = iccPtr
                    params.icc_length = UInt32(iccLen)
                    params.exif = exifPtr
                    params.exif_length = UInt32(exifLen)
                    return try runEncoder(.jpeg) { out, length, message, capacity in
                        imago_jpeg_encode(&params, out, length, message, capacity)
                    }
                }
            }
        }
        // An Ultra HDR image keeps its gain map: appended, with MPF and hdrgm written for it.
        guard let map = img.metadata.gainMap else { return primary }
        return try UltraHDR.write(primary: primary, gainMap: map, quality: max(0.85, options.quality))
    }
}

/// How one decode maps the header and options to libjpeg output settings.
struct JPEGOutputPlan {
    let header: JPEGHeader
    let options: DecodeOptions
    let denominator: Int

    /// The size libjpeg will produce: the stored size divided by ``denominator``, rounded up.
    var decodedSize: PixelSize {
        PixelSize(width: (header.width + denominator - 1) / denominator, height: (header.height + denominator - 1) / denominator)
    }

    /// Checks the limits before anything is allocated, and bounds what libjpeg may allocate.
    ///
    /// A DCT-scaled decode allocates the reduced size, so `maxPixels` applies to that and
    /// `maxSourcePixels` to the declared size. A progressive JPEG is the exception: libjpeg
    /// keeps every coefficient of the full image until the last scan, so its declared size
    /// must fit `maxPixels` whatever the scale. libjpeg's own memory ceiling (8 bytes a pixel
    /// of `maxPixels`, enough for four components' coefficients, plus 64 MiB) catches the
    /// other multi-scan files, which need the same buffer.
    func checkLimits(_ decompressor: JPEGDecompressor) throws {
        let limits = options.limits
        try limits.check(width: header.width, height: header.height, decoded: decodedSize, format: .jpeg)
        let declared = header.width.multipliedReportingOverflow(by: header.height)
        if header.progressive, declared.overflow || declared.partialValue > limits.maxPixels {
            throw ImageCodingError.exceedsLimit(
                .maxPixels, found: declared.overflow ? Int.max : declared.partialValue,
                limit: limits.maxPixels)
        }
        let (bytes, overflow) = limits.maxPixels.multipliedReportingOverflow(by: 8)
        if !overflow, bytes < Int.max - (64 << 20) {
            imago_jpeg_decoder_set_max_memory(decompressor.handle, bytes + (64 << 20))
        }
    }

    init(header: JPEGHeader, options: DecodeOptions) {
        self.header = header
        self.options = options
        denominator = options.shrinkFactor(for: PixelSize(width: header.width, height: header.height), choices: [2, 4, 8])
    }

    /// Display format unless another was asked for.
    var wantsDisplay: Bool { options.pixelFormat == .argb32Premultiplied }

    /// What libjpeg writes: the requested format itself where libjpeg can produce it (display
    /// BGRA/ARGB, RGBA, RGB, and gray from a gray JPEG), otherwise 4-byte pixels converted after.
    var bufferFormat: PixelFormat {
        if header.isCMYK { return wantsDisplay ? .argb32Premultiplied : .rgba8 }
        switch options.pixelFormat {
        case .argb32Premultiplied, .rgba8, .rgb8: return options.pixelFormat
        case .gray8: return header.colorSpace == JCS_GRAYSCALE ? .gray8 : .rgba8
        case .grayAlpha8: return .rgba8
        }
    }

    func configure(_ cinfo: UnsafeMutablePointer<jpeg_decompress_struct>) {
        if header.isCMYK {
            cinfo.pointee.out_color_space = JCS_CMYK
        } else if bufferFormat == .rgb8 {
            cinfo.pointee.out_color_space = JCS_RGB
        } else if bufferFormat == .gray8 {
            cinfo.pointee.out_color_space = JCS_GRAYSCALE
        } else if wantsDisplay {
            #if _endian(little)
            cinfo.pointee.out_color_space = JCS_EXT_BGRA
            #else
            cinfo.pointee.out_color_space = JCS_EXT_ARGB
            #endif
        } else {
            cinfo.pointee.out_color_space = JCS_EXT_RGBA
        }
        cinfo.pointee.scale_num = 1
        cinfo.pointee.scale_denom = UInt32(denominator)
    }

    /// CMYK to RGB, then ICC to sRGB, then the requested pixel format.
    /// Consumes the decoded buffer so in-place colour conversion never copies it.
    func finish(_ decoded: consuming PixelBuffer) -> PixelBuffer {
        var buffer = decoded
        let bgra = bufferFormat == .argb32Premultiplied && PixelFormat.argbOffsets.b == 0
        if header.isCMYK {
            let cmyk = buffer
            let profile = options.colorManagement ? header.icc : nil
            buffer.withUnsafeMutableBytes { dst in
                cmyk.withUnsafeBytes { src in
                    ColorManagement.convertCMYK(
                        src, to: dst, width: cmyk.width, height: cmyk.height,
                        inverted: header.adobeInverted, profile: profile, bgra: bgra)
                }
            }
        } else if options.colorManagement, let icc = header.icc, buffer.format != .gray8 {
            let w = buffer.width, h = buffer.height, stride = buffer.bytesPerRow
            let layout = buffer.format == .rgb8 ? IMAGO_TYPE_RGB_8 : bgra ? IMAGO_TYPE_BGRA_8 : IMAGO_TYPE_RGBA_8
            buffer.withUnsafeMutableBytes { p in
                _ = ColorManagement.convertToSRGB(
                    p, width: w, height: h, bytesPerRow: stride, profile: icc, layout: layout,
                    threads: CodecThreads.limit(options.maxThreads))
            }
        }
        return buffer.converted(to: options.pixelFormat)
    }

    func image(from buffer: PixelBuffer, header: JPEGHeader, incremental: Bool = false) -> Image {
        let keepProfile = !options.colorManagement && !header.isCMYK
        return Image(
            buffer: buffer, orientation: header.orientation, scale: options.scale, format: .jpeg,
            metadata: ImageMetadata(iccProfile: keepProfile ? header.icc : nil, exif: header.exif),
            hasAlpha: false, isIncremental: incremental)
    }
}
