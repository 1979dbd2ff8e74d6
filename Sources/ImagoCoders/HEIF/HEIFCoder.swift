// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CHeif
import CLCMS2
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// HEIC, HEIF and AVIF through libheif (Debian's build: libde265 and dav1d/aom to decode, x265
/// and aom to encode).
///
/// Decodes the primary image with its alpha, 10- and 12-bit images reduced to 8 bits (HDR ones,
/// whose nclx colour says PQ or HLG, tone-mapped to sRGB from their 16-bit samples), grids
/// assembled, and the file's rotation and mirroring (irot, imir) applied by libheif, as browsers
/// show it; the EXIF orientation of a HEIF is therefore not applied again (the image comes out
/// `.up`). An ICC profile (prof or rICC) is converted to sRGB with lcms2. With
/// ``DecodeOptions/thumbnailPixelSize`` an embedded thumbnail large enough to cover the size is
/// decoded instead of the full image (shrink-on-load). Image sequences (AVIF `avis`, HEIF
/// `msf1`): libheif 1.15 reads only still items, so the primary image is decoded and `imago
/// info` says so. ``canDecode(_:)`` and ``canEncode(_:)`` ask libheif which codecs it really has.
public struct HEIFCoder: ImageDecoding, ImageEncoding {
    /// Creates the coder. libheif itself is loaded only when a HEIF-family image is first met.
    public init() {}

    private static let initialized: Bool = {
        _ = heif_init(nil)
        return true
    }()

    private static func compression(for format: ImageFormat) -> heif_compression_format? {
        switch format {
        case .heic, .heif: heif_compression_HEVC
        case .avif: heif_compression_AV1
        default: nil
        }
    }

    /// Whether libheif has a decoder for the format's codec (HEVC for HEIC/HEIF, AV1 for AVIF).
    public func canDecode(_ format: ImageFormat) -> Bool {
        guard let c = Self.compression(for: format), Self.initialized else { return false }
        return heif_have_decoder_for_format(c) != 0
    }

    /// Whether libheif has an encoder for the format's codec at run time.
    public func canEncode(_ format: ImageFormat) -> Bool {
        guard format != .heif, let c = Self.compression(for: format), Self.initialized else { return false }
        return heif_have_encoder_for_format(c) != 0
    }

    /// A libheif context over `data` (not copied: `data` must outlive it) and its primary image.
    private final class Context {
        let context: OpaquePointer
        let handle: OpaquePointer
        let data: Data

        init(_ data: Data, format: ImageFormat) throws {
            _ = HEIFCoder.initialized
            guard let ctx = heif_context_alloc() else { throw ImageCodingError.corrupt(format, "libheif could not allocate a context") }
            self.data = data
            let error = data.withUnsafeBytes { heif_context_read_from_memory_without_copy(ctx, $0.baseAddress, $0.count, nil) }
            // An error's message lies in the context's memory: it is read before the context goes.
            guard error.code == heif_error_Ok else {
                let failure = HEIFCoder.failure(error, format: format, during: "reading the container")
                heif_context_free(ctx)
                throw failure
            }
            var primary: OpaquePointer?
            let e2 = heif_context_get_primary_image_handle(ctx, &primary)
            guard e2.code == heif_error_Ok, let primary else {
                let failure = HEIFCoder.failure(e2, format: format, during: "finding the primary image")
                heif_context_free(ctx)
                throw failure
            }
            context = ctx
            handle = primary
        }

        deinit {
            heif_image_handle_release(handle)
            heif_context_free(context)
        }
    }

    static func failure(_ error: heif_error, format: ImageFormat, during step: String) -> ImageCodingError {
        let message = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
        switch error.code {
        case heif_error_Unsupported_feature, heif_error_Unsupported_filetype:
            return .unsupportedFeature(format, "\(message) (\(step))")
        case heif_error_Invalid_input where message.lowercased().contains("end of") || message.lowercased().contains("truncated"):
            return .truncated(format, "\(message) (\(step))")
        default:
            return .corrupt(format, "\(message) (\(step))")
        }
    }

    private static func profile(_ handle: OpaquePointer) -> Data? {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size < 4 << 20 else { return nil }
        var data = Data(count: size)
        let error = data.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? data : nil
    }

    /// The EXIF block (without its 4-byte offset header), kept as metadata only.
    private static func exif(_ handle: OpaquePointer) -> Data? {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 4, size < 1 << 20 else { return nil }
        var data = Data(count: size)
        let error = data.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
        guard error.code == heif_error_Ok else { return nil }
        let offset = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
        guard offset >= 0, 4 + offset < data.count else { return nil }
        return EXIF.strippingPrefix(data.dropFirst(4 + offset))
    }

    private static func format(of data: Data) -> ImageFormat { ImageFormat(sniffing: data) ?? .heif }

    /// The primary image's size (after rotation), alpha, bit depth and ICC presence; the
    /// orientation is `.up` (libheif applies it); one frame (see the type's note on sequences).
    ///
    /// - Throws: `.corrupt`, `.truncated` or `.unsupportedFeature` with libheif's message.
    public func info(of data: Data) throws -> ImageInfo {
        let format = Self.format(of: data)
        let c = try Context(data, format: format)
        return ImageInfo(
            format: format, width: Int(heif_image_handle_get_width(c.handle)),
            height: Int(heif_image_handle_get_height(c.handle)),
            hasAlpha: heif_image_handle_has_alpha_channel(c.handle) != 0,
            bitDepth: max(1, Int(heif_image_handle_get_luma_bits_per_pixel(c.handle))),
            hasICCProfile: Self.profile(c.handle) != nil,
            embeddedThumbnailSize: Self.largestThumbnail(c.handle).map { t in
                defer { heif_image_handle_release(t) }
                return PixelSize(width: Int(heif_image_handle_get_width(t)), height: Int(heif_image_handle_get_height(t)))
            })
    }

    /// Decodes the primary image (or an embedded thumbnail that covers
    /// ``DecodeOptions/thumbnailPixelSize``) to ``DecodeOptions/pixelFormat``.
    ///
    /// - Throws: `.exceedsLimit` from the image size before decoding; libheif's errors as
    ///   `.corrupt`, `.truncated` or `.unsupportedFeature`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let format = Self.format(of: data)
        let c = try Context(data, format: format)
        // A grid's tiles on libheif's threads (0: on this one), as many as CodecThreads allows.
        let threads = CodecThreads.limit(options.maxThreads)
        heif_context_set_max_decoding_threads(c.context, threads > 1 ? Int32(threads) : 0)
        var handle = c.handle
        var thumbnail: OpaquePointer?
        defer { if let thumbnail { heif_image_handle_release(thumbnail) } }
        let size = PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
        try options.limits.check(width: size.width, height: size.height, format: format)
        if options.embeddedThumbnail, let t = Self.largestThumbnail(c.handle) {
            thumbnail = t
            handle = t
        } else if let target = options.thumbnailPixelSize, let t = Self.coveringThumbnail(c.handle, target: target, size: size, options: options) {
            thumbnail = t
            handle = t
        }
        let icc = Self.profile(c.handle)
        // PQ or HLG (HDR) in the nclx colour: from 16-bit samples, tone-mapped to sRGB, unless
        // colour is not managed or an ICC profile describes the colour instead.
        let hdr = options.colorManagement && icc == nil ? (Self.hdrColor(handle) ?? Self.hdrColor(c.handle)) : nil
        var buffer =
            try hdr.map { try Self.mappedPixels(handle, nclx: $0, format: format, limits: options.limits) }
            ?? Self.pixels(handle, format: format, limits: options.limits)
        let managed = options.colorManagement && icc != nil
        if managed, let icc {
            let w = buffer.width, h = buffer.height
            buffer.withUnsafeMutableBytes { p in
                _ = ColorManagement.convertToSRGB(
                    p, width: w, height: h, bytesPerRow: w * 4, profile: icc, layout: IMAGO_TYPE_RGBA_8,
                    threads: CodecThreads.limit(options.maxThreads))
            }
        }
        return Image(
            buffer: buffer.converted(to: options.pixelFormat), orientation: .up, scale: options.scale, format: format,
            metadata: ImageMetadata(iccProfile: managed ? nil : icc, exif: Self.exif(c.handle)),
            hasAlpha: heif_image_handle_has_alpha_channel(c.handle) != 0)
    }

    /// `handle` decoded to 8-bit straight RGBA (deeper samples reduced by libheif).
    private static func pixels(_ handle: OpaquePointer, format: ImageFormat, limits: DecodingLimits) throws -> PixelBuffer {
        var image: OpaquePointer?
        let error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, nil)
        guard error.code == heif_error_Ok, let image else {
            throw Self.failure(error, format: format, during: "decoding the image")
        }
        defer { heif_image_release(image) }
        let w = Int(heif_image_get_width(image, heif_channel_interleaved)), h = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w > 0, h > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw ImageCodingError.corrupt(format, "libheif returned no pixels")
        }
        try limits.check(width: w, height: h, format: format)
        return try PixelBuffer(uninitializedWidth: w, height: h, format: .rgba8) { out in
            guard let dst = out.baseAddress else { return }
            for y in 0..<h { (dst + y * w * 4).copyMemory(from: plane + y * Int(stride), byteCount: w * 4) }
        }
    }

    /// The embedded thumbnails, each retained (the caller releases them).
    private static func thumbnails(_ primary: OpaquePointer) -> [OpaquePointer] {
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary))
        guard count > 0, count < 64 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let n = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        return ids.prefix(n).compactMap { id in
            var t: OpaquePointer?
            guard heif_image_handle_get_thumbnail(primary, id, &t).code == heif_error_Ok else { return nil }
            return t
        }
    }

    /// The embedded thumbnail `better` prefers over every other (given width and height), the
    /// others released; `nil` when none qualifies.
    private static func pickThumbnail(_ primary: OpaquePointer, _ better: (Int, Int, (Int, Int)?) -> Bool) -> OpaquePointer? {
        var best: (handle: OpaquePointer, size: (Int, Int))?
        for t in thumbnails(primary) {
            let size = (Int(heif_image_handle_get_width(t)), Int(heif_image_handle_get_height(t)))
            if better(size.0, size.1, best?.size) {
                if let old = best?.handle { heif_image_handle_release(old) }
                best = (t, size)
            } else {
                heif_image_handle_release(t)
            }
        }
        return best?.handle
    }

    /// The largest embedded thumbnail (retained: the caller releases it), or `nil`.
    private static func largestThumbnail(_ primary: OpaquePointer) -> OpaquePointer? {
        pickThumbnail(primary) { w, h, best in w * h > (best.map { $0.0 * $0.1 } ?? 0) }
    }

    /// The smallest embedded thumbnail whose size still covers what `options` asks for, or `nil`.
    private static func coveringThumbnail(
        _ primary: OpaquePointer, target: PixelSize, size: PixelSize,
        options: DecodeOptions
    ) -> OpaquePointer? {
        // Covers the target in each dimension (or the aspect-fit size of it), keeping the aspect ratio.
        var needW = Double(target.width), needH = Double(target.height)
        if options.preserveAspectRatio {
            let f = min(Double(target.width) / Double(size.width), Double(target.height) / Double(size.height), 1)
            needW = (Double(size.width) * f).rounded(.up)
            needH = (Double(size.height) * f).rounded(.up)
        }
        return pickThumbnail(primary) { tw, th, best in
            let sameShape = abs(Double(tw) / Double(th) - Double(size.width) / Double(size.height)) < 0.02
            return sameShape && Double(tw) >= needW && Double(th) >= needH && tw * th < (best.map { $0.0 * $0.1 } ?? Int.max)
        }
    }

    /// Encodes the first frame as HEIC (HEVC, x265) or AVIF (AV1, aom) at
    /// ``EncodeOptions/quality``, or lossless when asked, with the ICC profile when metadata is
    /// kept and an embedded thumbnail when ``EncodeOptions/embeddedThumbnailSize`` asks for one.
    ///
    /// - Throws: `.encoderUnavailable` when libheif has no encoder for the format at run time;
    ///   `.corrupt` with libheif's message when encoding fails.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard canEncode(format), let compression = Self.compression(for: format) else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, _, icc) = options.prepareBakingOrientation(image)  // irot would be the alternative
        let alpha = img.hasAlpha && !img.buffer.isOpaque
        let pixels = img.buffer.converted(to: alpha ? .rgba8 : .rgb8)
        guard let ctx = heif_context_alloc() else { throw ImageCodingError.encoderUnavailable(format) }
        defer { heif_context_free(ctx) }
        var encoder: OpaquePointer?
        var error = heif_context_get_encoder_for_format(ctx, compression, &encoder)
        guard error.code == heif_error_Ok, let encoder else { throw ImageCodingError.encoderUnavailable(format) }
        defer { heif_encoder_release(encoder) }
        if options.lossless {
            _ = heif_encoder_set_lossless(encoder, 1)
        } else {
            _ = heif_encoder_set_lossy_quality(encoder, Int32((options.quality * 100).rounded()))
        }
        var himage: OpaquePointer?
        error = heif_image_create(
            Int32(pixels.width), Int32(pixels.height), heif_colorspace_RGB,
            alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &himage)
        guard error.code == heif_error_Ok, let himage else { throw Self.failure(error, format: format, during: "creating the image") }
        defer { heif_image_release(himage) }
        error = heif_image_add_plane(himage, heif_channel_interleaved, Int32(pixels.width), Int32(pixels.height), 8)
        guard error.code == heif_error_Ok else { throw Self.failure(error, format: format, during: "adding the pixel plane") }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(himage, heif_channel_interleaved, &stride) else {
            throw ImageCodingError.encodingFailed(format, "libheif gave no plane to write")
        }
        let rowBytes = pixels.width * (alpha ? 4 : 3)
        let planeStride = Int(stride), sourceStride = pixels.bytesPerRow
        let destination = UnsafeMutableRawPointer(plane)
        pixels.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            guard let s = src.baseAddress else { return }
            for y in 0..<pixels.height {
                let to: UnsafeMutableRawPointer = destination + y * planeStride
                let from: UnsafeRawPointer = s + y * sourceStride
                to.copyMemory(from: from, byteCount: rowBytes)
            }
        }
        if let icc {
            _ = icc.withUnsafeBytes { heif_image_set_raw_color_profile(himage, "prof", $0.baseAddress, $0.count) }
        }
        var primary: OpaquePointer?
        error = heif_context_encode_image(ctx, himage, encoder, nil, &primary)
        guard error.code == heif_error_Ok, let primary else { throw Self.failure(error, format: format, during: "encoding") }
        defer { heif_image_handle_release(primary) }
        if let side = options.embeddedThumbnailSize, side > 0, side < max(pixels.width, pixels.height) {
            var thumbnail: OpaquePointer?
            error = heif_context_encode_thumbnail(ctx, himage, primary, encoder, nil, Int32(side), &thumbnail)
            guard error.code == heif_error_Ok else { throw Self.failure(error, format: format, during: "encoding the thumbnail") }
            if let thumbnail { heif_image_handle_release(thumbnail) }
        }
        let sink = HEIFSink()
        var writer = heif_writer(writer_api_version: 1, write: heifWrite)
        error = withExtendedLifetime(sink) { heif_context_write(ctx, &writer, Unmanaged.passUnretained(sink).toOpaque()) }
        guard error.code == heif_error_Ok else { throw Self.failure(error, format: format, during: "writing the file") }
        return sink.data
    }
}

/// Collects what libheif writes.
private final class HEIFSink {
    var data = Data()
}

/// libheif's writer callback: appends to the ``HEIFSink`` in `user`.
private func heifWrite(
    _ context: OpaquePointer?, _ bytes: UnsafeRawPointer?, _ size: Int,
    _ user: UnsafeMutableRawPointer?
) -> heif_error {
    let ok = heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
    guard let user, let bytes else { return ok }
    let sink = Unmanaged<HEIFSink>.fromOpaque(user).takeUnretainedValue()
    sink.data.append(bytes.assumingMemoryBound(to: UInt8.self), count: size)
    return ok
}
