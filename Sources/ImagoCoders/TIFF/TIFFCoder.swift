// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CLCMS2
import CTIFF
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// TIFF through libtiff: strips and tiles; 1, 8 and 16 bits per sample (16 reduced to 8); gray,
/// RGB, RGBA, palette, CMYK and YCbCr; no compression, LZW, Deflate, PackBits and JPEG — whatever
/// libtiff's RGBA interface reads. Multi-page files are frames (pages of different sizes are drawn
/// at the top left of a canvas as large as the largest). The Orientation tag sets
/// `Image.orientation`; an ICC profile is converted to sRGB with colour management on.
///
/// Encoding writes 8-bit RGB or RGBA (unassociated alpha), Deflate-compressed, one page per frame.
public struct TIFFCoder: ImageDecoding, ImageEncoding, PageDecoding {
    /// Creates the coder.
    public init() {}

    /// `true` for `ImageFormat.tiff`.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .tiff }
    /// `true` for `ImageFormat.tiff`.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .tiff }

    private struct Page {
        var width: Int
        var height: Int
        var orientation: ImageOrientation
        var hasAlpha: Bool
        var bitsPerSample: Int
        var icc: Data?
    }

    /// An open file and its pages' facts.
    private final class File {
        let handle: OpaquePointer
        let tif: OpaquePointer
        let data: Data
        var pages: [Page] = []

        init(_ data: Data, limits: DecodingLimits) throws {
            self.data = data
            guard
                let h = data.withUnsafeBytes({ raw in
                    // No single libtiff allocation may exceed a 16-bit RGBA frame of the pixel limit.
                    let (bytes, overflow) = limits.maxPixels.multipliedReportingOverflow(by: 8)
                    return imago_tiff_open_memory(
                        raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count,
                        UInt64(overflow ? Int.max : max(1 << 20, bytes)))
                })
            else { throw ImageCodingError.corrupt(.tiff, "could not allocate a libtiff reader") }
            handle = h
            guard let t = imago_tiff_handle(h) else {
                let message = String(cString: imago_tiff_message(h))
                imago_tiff_close(h)
                if data.count < 8 || message.contains("Cannot read") || message.contains("end of file") {
                    throw ImageCodingError.truncated(.tiff, message.isEmpty ? "the header is incomplete" : message)
                }
                throw ImageCodingError.corrupt(.tiff, message.isEmpty ? "libtiff could not read the header" : message)
            }
            tif = t
            let count = Int(imago_tiff_directory_count(t))
            guard count > 0 else { throw ImageCodingError.corrupt(.tiff, "the file has no image directory") }
            try limits.check(frameCount: count, framePixels: 0)
            for index in 0..<count {
                guard imago_tiff_set_directory(t, Int32(index)) != 0 else { break }
                var w: UInt32 = 0, h: UInt32 = 0, orientation: UInt16 = 1, bits: UInt16 = 1, samples: UInt16 = 1
                _ = imago_tiff_get_u32(t, UInt32(TIFFTAG_IMAGEWIDTH), &w)
                _ = imago_tiff_get_u32(t, UInt32(TIFFTAG_IMAGELENGTH), &h)
                _ = imago_tiff_get_u16_defaulted(t, UInt32(TIFFTAG_ORIENTATION), &orientation)
                _ = imago_tiff_get_u16_defaulted(t, UInt32(TIFFTAG_BITSPERSAMPLE), &bits)
                _ = imago_tiff_get_u16_defaulted(t, UInt32(TIFFTAG_SAMPLESPERPIXEL), &samples)
                var extraCount: UInt16 = 0
                var extras: UnsafePointer<UInt16>?
                _ = imago_tiff_get_extra_samples(t, &extraCount, &extras)
                var iccLength: UInt32 = 0
                var iccBytes: UnsafePointer<UInt8>?
                let icc =
                    imago_tiff_get_icc(t, &iccLength, &iccBytes) != 0 && iccLength > 0 && iccLength < 16 << 20
                    ? iccBytes.map { Data(bytes: $0, count: Int(iccLength)) } : nil
                pages.append(
                    Page(
                        width: Int(w), height: Int(h), orientation: ImageOrientation(exifValue: Int(orientation)) ?? .up,
                        hasAlpha: extraCount > 0, bitsPerSample: Int(bits), icc: icc))
            }
            guard !pages.isEmpty else { throw ImageCodingError.corrupt(.tiff, "the first directory cannot be read") }
        }

        deinit { imago_tiff_close(handle) }

        var message: String { String(cString: imago_tiff_message(handle)) }

        /// Page `index`'s pixels as stored (no orientation applied), premultiplied ARGB32; colour
        /// converted on up to `threads` threads.
        func decodePage(_ index: Int, limits: DecodingLimits, colorManagement: Bool, threads: Int) throws -> PixelBuffer {
            let page = pages[index]
            try limits.check(width: page.width, height: page.height, format: .tiff)
            guard imago_tiff_set_directory(tif, Int32(index)) != 0 else { throw ImageCodingError.corrupt(.tiff, "page \(index): \(message)") }
            // Asking for the file's own orientation makes libtiff keep the stored row order
            // (it handles only flips, not transposes); Imago applies all eight orientations itself.
            let requested = Int32(max(1, min(8, page.orientation.rawValue)))
            var raster = try PixelBuffer(uninitializedWidth: page.width, height: page.height, format: .rgba8) { out in
                guard let base = out.baseAddress?.assumingMemoryBound(to: UInt32.self) else { return }
                guard imago_tiff_read_rgba(tif, UInt32(page.width), UInt32(page.height), base, requested) != 0 else {
                    let m = message
                    if m.lowercased().contains("read error") || m.lowercased().contains("end of") {
                        throw ImageCodingError.truncated(.tiff, "page \(index): \(m)")
                    }
                    throw ImageCodingError.corrupt(.tiff, "page \(index): \(m.isEmpty ? "libtiff could not decode it" : m)")
                }
            }
            // libtiff's packed ABGR words are R, G, B, A bytes with associated (premultiplied) alpha.
            let w = raster.width, h = raster.height, stride = raster.bytesPerRow
            if colorManagement, let icc = page.icc {
                // Colour-manage straight values: unpremultiply, convert, then premultiply again.
                raster.withUnsafeMutableBytes { p in
                    guard let b = p.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                    for i in 0..<(w * h) {
                        let a = b[i * 4 + 3]
                        if a != 255 { for c in 0..<3 { b[i * 4 + c] = PixelMath.unpremultiply(b[i * 4 + c], a) } }
                    }
                    _ = ColorManagement.convertToSRGB(
                        p, width: w, height: h, bytesPerRow: stride, profile: icc, layout: IMAGO_TYPE_RGBA_8,
                        threads: threads)
                }
                return raster.converted(to: .argb32Premultiplied)
            }
            // Premultiplied R, G, B, A to the display order B, G, R, A: swap red and blue.
            return try PixelBuffer(uninitializedWidth: w, height: h, format: .argb32Premultiplied) { out in
                guard let d = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                let offsets = PixelFormat.argbOffsets
                raster.withUnsafeBytes { src in
                    guard let s = src.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                    for i in 0..<(w * h) {
                        d[i * 4 + offsets.r] = s[i * 4]
                        d[i * 4 + offsets.g] = s[i * 4 + 1]
                        d[i * 4 + offsets.b] = s[i * 4 + 2]
                        d[i * 4 + offsets.a] = s[i * 4 + 3]
                    }
                }
            }
        }
    }

    /// The first page's size, orientation, alpha, bit depth and ICC presence, and the page count.
    ///
    /// - Throws: `.truncated` or `.corrupt` with libtiff's message.
    public func info(of data: Data) throws -> ImageInfo {
        let file = try File(data, limits: .default)
        let first = file.pages[0]
        return ImageInfo(
            format: .tiff, width: first.width, height: first.height, orientation: first.orientation,
            frameCount: file.pages.count, loopCount: 1, durations: Array(repeating: 0, count: file.pages.count),
            hasAlpha: first.hasAlpha, bitDepth: first.bitsPerSample, hasICCProfile: first.icc != nil)
    }

    /// Decodes every page (or the first, with ``DecodeOptions/firstFrameOnly``), on a canvas of
    /// the largest page's size; or, with ``DecodeOptions/page``, that page alone at its own size,
    /// with its own orientation and ICC profile.
    ///
    /// - Throws: `.exceedsLimit` from each page's size before decoding it; libtiff's errors as
    ///   `.truncated` or `.corrupt`; `.invalidArgument` for a page that does not exist.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        var limits = options.limits
        let file = try File(data, limits: limits)
        if let index = options.page {
            guard index >= 0, index < file.pages.count else {
                throw ImageCodingError.invalidArgument("page \(index) is out of range: the image has \(file.pages.count) page(s)")
            }
            let page = file.pages[index]
            let buffer = try file.decodePage(
                index, limits: limits, colorManagement: options.colorManagement,
                threads: CodecThreads.limit(options.maxThreads))
            let image = try Image(
                frames: [ImageFrame(buffer: buffer)], loopCount: 1, orientation: page.orientation,
                scale: options.scale, format: .tiff,
                metadata: ImageMetadata(iccProfile: options.colorManagement ? nil : page.icc), hasAlpha: page.hasAlpha)
            return options.pixelFormat == .argb32Premultiplied ? image : image.converted(to: options.pixelFormat)
        }
        let count = options.firstFrameOnly ? 1 : file.pages.count
        let pages = Array(file.pages.prefix(count))
        let canvas = PixelSize(width: pages.map(\.width).max() ?? 1, height: pages.map(\.height).max() ?? 1)
        try limits.check(width: canvas.width, height: canvas.height, format: .tiff)
        try limits.check(frameCount: count, framePixels: canvas.pixelCount ?? Int.max)
        limits.maxFrames = max(limits.maxFrames, count)
        var frames: [ImageFrame] = []
        for index in 0..<count {
            var buffer = try file.decodePage(
                index, limits: limits, colorManagement: options.colorManagement,
                threads: CodecThreads.limit(options.maxThreads))
            if buffer.size != canvas { buffer = try Self.placed(buffer, on: canvas) }
            frames.append(ImageFrame(buffer: buffer))
        }
        let first = file.pages[0]
        let image = try Image(
            frames: frames, loopCount: count > 1 ? 0 : 1, orientation: first.orientation, scale: options.scale,
            format: .tiff, metadata: ImageMetadata(iccProfile: options.colorManagement ? nil : first.icc),
            hasAlpha: first.hasAlpha || canvas != PixelSize(width: first.width, height: first.height))
        return options.pixelFormat == .argb32Premultiplied ? image : image.converted(to: options.pixelFormat)
    }

    /// `buffer` at the top left of a transparent canvas.
    private static func placed(_ buffer: PixelBuffer, on canvas: PixelSize) throws -> PixelBuffer {
        var out = try PixelBuffer(width: canvas.width, height: canvas.height, format: .argb32Premultiplied)
        let rowBytes = buffer.width * 4, stride = out.bytesPerRow
        buffer.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                for y in 0..<buffer.height { (d + y * stride).copyMemory(from: s + y * buffer.bytesPerRow, byteCount: rowBytes) }
            }
        }
        return out
    }

    /// Writes every frame as a page: 8-bit RGB, or RGBA with unassociated alpha when some pixel
    /// is not opaque; Deflate; the ICC profile when metadata is kept; the orientation baked in.
    ///
    /// - Throws: `.encoderUnavailable` for another format; `.corrupt` with libtiff's message.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .tiff else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, _, icc) = options.prepareBakingOrientation(image)
        let frames = img.isAnimated ? try img.allFrames() : [img.frames[0]]
        guard let handle = imago_tiff_create_memory() else { throw ImageCodingError.encoderUnavailable(.tiff) }
        defer { imago_tiff_close(handle) }
        guard let tif = imago_tiff_handle(handle) else {
            throw ImageCodingError.corrupt(.tiff, String(cString: imago_tiff_message(handle)))
        }
        for frame in frames {
            let alpha = !frame.buffer.isOpaque
            let pixels = frame.buffer.converted(to: alpha ? .rgba8 : .rgb8)
            let ok =
                imago_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), UInt32(pixels.width)) != 0
                && imago_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), UInt32(pixels.height)) != 0
                && imago_tiff_set_u16(tif, UInt32(TIFFTAG_BITSPERSAMPLE), 8) != 0
                && imago_tiff_set_u16(tif, UInt32(TIFFTAG_SAMPLESPERPIXEL), alpha ? 4 : 3) != 0
                && imago_tiff_set_u16(tif, UInt32(TIFFTAG_PHOTOMETRIC), UInt16(PHOTOMETRIC_RGB)) != 0
                && imago_tiff_set_u16(tif, UInt32(TIFFTAG_PLANARCONFIG), UInt16(PLANARCONFIG_CONTIG)) != 0
                && imago_tiff_set_u16(tif, UInt32(TIFFTAG_COMPRESSION), UInt16(COMPRESSION_ADOBE_DEFLATE)) != 0
                && imago_tiff_set_u16(tif, UInt32(TIFFTAG_ORIENTATION), UInt16(ORIENTATION_TOPLEFT)) != 0
                && imago_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(max(1, 65536 / max(1, pixels.bytesPerRow)))) != 0
                && (!alpha || imago_tiff_set_extra_alpha(tif, UInt16(EXTRASAMPLE_UNASSALPHA)) != 0)
                && (icc.map { d in d.withUnsafeBytes { imago_tiff_set_icc(tif, UInt32(d.count), $0.baseAddress?.assumingMemoryBound(to: UInt8.self)) } } ?? 1)
                    != 0
            guard ok else { throw ImageCodingError.corrupt(.tiff, "libtiff refused a tag: \(String(cString: imago_tiff_message(handle)))") }
            try pixels.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                for y in 0..<pixels.height {
                    guard imago_tiff_write_scanline(tif, UnsafeMutableRawPointer(mutating: base + y * pixels.bytesPerRow), UInt32(y)) == 1 else {
                        throw ImageCodingError.encodingFailed(.tiff, "libtiff failed writing row \(y): \(String(cString: imago_tiff_message(handle)))")
                    }
                }
            }
            guard imago_tiff_write_directory(tif) != 0 else {
                throw ImageCodingError.encodingFailed(.tiff, "libtiff failed writing a page: \(String(cString: imago_tiff_message(handle)))")
            }
        }
        var size = 0
        guard let bytes = imago_tiff_written(handle, &size), size > 0 else {
            throw ImageCodingError.corrupt(.tiff, "libtiff wrote nothing: \(String(cString: imago_tiff_message(handle)))")
        }
        return Data(bytes: bytes, count: size)
    }
}
