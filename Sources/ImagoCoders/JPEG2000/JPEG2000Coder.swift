// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CLCMS2
import COpenJPEG
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// JPEG 2000 decoding through openjpeg: JP2 files and raw J2K codestreams.
///
/// Gray, gray + alpha, RGB and RGBA images whose components share one size; any precision up to
/// 16 bits, scaled to 8; signed components offset; sYCC converted to RGB; an ICC profile (JP2
/// `colr` box) converted to sRGB. With ``DecodeOptions/thumbnailPixelSize`` openjpeg decodes at a
/// reduced resolution level (shrink-on-load, 1/2 per level) that still covers the size. The size
/// is checked against the limits after the header, before openjpeg allocates the components.
public struct JPEG2000Coder: ImageDecoding {
    /// Creates the coder.
    public init() {}

    /// `true` for `ImageFormat.jp2`.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .jp2 }

    /// The bytes openjpeg reads, and its last error message.
    private final class Source {
        let data: Data
        var offset = 0
        var message = ""
        init(_ data: Data) { self.data = data }
    }

    /// An opened codec and stream with the header read.
    private final class Decoder {
        let source: Source
        let codec: UnsafeMutablePointer<opj_codec_t?>
        let stream: UnsafeMutablePointer<opj_stream_t?>
        var image: UnsafeMutablePointer<opj_image_t>?

        init(_ data: Data, reduce: (PixelSize) -> UInt32) throws {
            source = Source(data)
            let isCodestream = data.count >= 4 && data[data.startIndex] == 0xFF && data[data.startIndex + 1] == 0x4F
            guard let codec = opj_create_decompress(isCodestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2),
                let stream = opj_stream_create(1 << 16, 1)
            else {
                throw ImageCodingError.corrupt(.jp2, "openjpeg could not start a decoder")
            }
            self.codec = codec
            self.stream = stream
            let user = Unmanaged.passUnretained(source).toOpaque()
            opj_set_error_handler(
                codec,
                { message, user in
                    guard let message, let user else { return }
                    let s = Unmanaged<Source>.fromOpaque(user).takeUnretainedValue()
                    if s.message.isEmpty { s.message = PathName.trimmed(String(cString: message)) }
                }, user)
            opj_set_warning_handler(codec, { _, _ in }, nil)
            opj_set_info_handler(codec, { _, _ in }, nil)
            opj_stream_set_user_data(stream, user, nil)
            opj_stream_set_user_data_length(stream, UInt64(data.count))
            opj_stream_set_read_function(stream) { buffer, count, user in
                guard let buffer, let user else { return -1 }  // (OPJ_SIZE_T)-1: the end
                let s = Unmanaged<Source>.fromOpaque(user).takeUnretainedValue()
                let n = min(count, s.data.count - s.offset)
                guard n > 0 else { return -1 }
                s.data.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    buffer.copyMemory(from: base + s.offset, byteCount: n)
                }
                s.offset += n
                return n
            }
            opj_stream_set_skip_function(stream) { count, user in
                guard let user else { return -1 }
                let s = Unmanaged<Source>.fromOpaque(user).takeUnretainedValue()
                let target = max(0, min(Int64(s.data.count), Int64(s.offset) + count))
                let moved = target - Int64(s.offset)
                s.offset = Int(target)
                return moved
            }
            opj_stream_set_seek_function(stream) { position, user in
                guard let user else { return 0 }
                let s = Unmanaged<Source>.fromOpaque(user).takeUnretainedValue()
                guard position >= 0, position <= Int64(s.data.count) else { return 0 }
                s.offset = Int(position)
                return 1
            }
            var parameters = opj_dparameters_t()
            opj_set_default_decoder_parameters(&parameters)
            guard opj_setup_decoder(codec, &parameters) != 0 else { throw failure("setting up the decoder") }
            var header: UnsafeMutablePointer<opj_image_t>?
            guard opj_read_header(stream, codec, &header) != 0, let header else { throw failure("reading the header") }
            image = header
            let factor = reduce(size)
            if factor > 0, opj_set_decoded_resolution_factor(codec, factor) == 0 { source.message = "" }
        }

        deinit {
            if let image { opj_image_destroy(image) }
            opj_stream_destroy(stream)
            opj_destroy_codec(codec)
        }

        var size: PixelSize {
            guard let i = image else { return PixelSize(width: 0, height: 0) }
            return PixelSize(width: Int(i.pointee.x1) - Int(i.pointee.x0), height: Int(i.pointee.y1) - Int(i.pointee.y0))
        }

        func failure(_ step: String) -> ImageCodingError {
            let m = source.message.isEmpty ? "openjpeg failed \(step)" : source.message
            if source.offset >= source.data.count || m.lowercased().contains("stream too short") || m.lowercased().contains("end of") {
                return .truncated(.jp2, "\(m) (\(step))")
            }
            return .corrupt(.jp2, "\(m) (\(step))")
        }
    }

    /// Size, component count and precision, and whether there is an ICC profile (the header only).
    ///
    /// - Throws: `.corrupt` or `.truncated` with openjpeg's message.
    public func info(of data: Data) throws -> ImageInfo {
        let d = try Decoder(data) { _ in 0 }
        guard let image = d.image else { throw ImageCodingError.corrupt(.jp2, "no image header") }
        let comps = Int(image.pointee.numcomps)
        let prec = comps > 0 ? Int(image.pointee.comps[0].prec) : 8
        return ImageInfo(
            format: .jp2, width: d.size.width, height: d.size.height, hasAlpha: comps == 2 || comps == 4,
            bitDepth: max(1, prec), hasICCProfile: image.pointee.icc_profile_len > 0)
    }

    /// Decodes to ``DecodeOptions/pixelFormat``.
    ///
    /// - Throws: `.exceedsLimit` from the header before decoding; `.unsupportedFeature` for more
    ///   than four components, components of different sizes, or precision over 16 bits;
    ///   openjpeg's errors as `.corrupt` or `.truncated`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let d = try Decoder(data) { size in
            // The deepest resolution level whose size still covers the requested thumbnail.
            guard options.thumbnailPixelSize != nil else { return 0 }
            let d = options.shrinkFactor(for: size, choices: [2, 4, 8, 16, 32])
            return UInt32(d.trailingZeroBitCount)
        }
        let full = d.size
        try options.limits.check(width: full.width, height: full.height, format: .jp2)
        guard let header = d.image else { throw ImageCodingError.corrupt(.jp2, "no image header") }
        let count = Int(header.pointee.numcomps)
        guard (1...4).contains(count) else { throw ImageCodingError.unsupportedFeature(.jp2, "\(count) components") }
        guard opj_decode(d.codec, d.stream, header) != 0, opj_end_decompress(d.codec, d.stream) != 0 else {
            throw d.failure("decoding the image")
        }
        let (comps, w, h) = try Self.components(of: header, count: count)
        try options.limits.check(width: w, height: h, format: .jp2)
        let ycc = header.pointee.color_space == OPJ_CLRSPC_SYCC && count >= 3
        var buffer = try Self.pixels(comps, count: count, width: w, height: h, ycc: ycc)
        let icc = Self.iccProfile(of: header)
        let managed = options.colorManagement && icc != nil
        if managed, let icc {
            buffer.withUnsafeMutableBytes { p in
                _ = ColorManagement.convertToSRGB(
                    p, width: w, height: h, bytesPerRow: w * 4, profile: icc, layout: IMAGO_TYPE_RGBA_8,
                    threads: CodecThreads.limit(options.maxThreads))
            }
        }
        return Image(
            buffer: buffer.converted(to: options.pixelFormat), scale: options.scale, format: .jp2,
            metadata: ImageMetadata(iccProfile: managed ? nil : icc), hasAlpha: count == 2 || count == 4)
    }

    /// The decoded image's `count` components, which must share one size, hold data and have a
    /// precision of 1 to 16 bits, with that size.
    private static func components(
        of header: UnsafeMutablePointer<opj_image_t>, count: Int
    ) throws -> (comps: [opj_image_comp_t], width: Int, height: Int) {
        let comps = (0..<count).map { header.pointee.comps[$0] }
        let w = Int(comps[0].w), h = Int(comps[0].h)
        guard w > 0, h > 0, comps.allSatisfy({ Int($0.w) == w && Int($0.h) == h && $0.data != nil }) else {
            throw ImageCodingError.unsupportedFeature(.jp2, "components of different sizes (chroma subsampling)")
        }
        guard comps.allSatisfy({ (1...16).contains($0.prec) }) else { throw ImageCodingError.unsupportedFeature(.jp2, "precision over 16 bits") }
        return (comps, w, h)
    }

    /// The components as straight `rgba8` pixels: samples scaled to 8 bits (signed ones offset),
    /// gray spread to RGB, sYCC converted to RGB when `ycc`, opaque without an alpha component.
    private static func pixels(_ comps: [opj_image_comp_t], count: Int, width w: Int, height h: Int, ycc: Bool) throws -> PixelBuffer {
        try PixelBuffer(uninitializedWidth: w, height: h, format: .rgba8) { out in
            guard let dst = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            func sample(_ c: opj_image_comp_t, _ i: Int) -> Int {
                var v = Int(c.data[i])
                if c.sgnd != 0 { v += 1 << (c.prec - 1) }
                let maxValue = (1 << c.prec) - 1
                return (min(max(v, 0), maxValue) * 255 + maxValue / 2) / maxValue
            }
            for i in 0..<(w * h) {
                let o = i * 4
                switch count {
                case 1, 2:
                    let g = UInt8(sample(comps[0], i))
                    dst[o] = g
                    dst[o + 1] = g
                    dst[o + 2] = g
                    dst[o + 3] = count == 2 ? UInt8(sample(comps[1], i)) : 255
                default:
                    var r = sample(comps[0], i), g = sample(comps[1], i), b = sample(comps[2], i)
                    if ycc {
                        let y = Double(r), cb = Double(g) - 128, cr = Double(b) - 128
                        r = Int((y + 1.402 * cr).rounded())
                        g = Int((y - 0.344136 * cb - 0.714136 * cr).rounded())
                        b = Int((y + 1.772 * cb).rounded())
                    }
                    dst[o] = UInt8(clamping: r)
                    dst[o + 1] = UInt8(clamping: g)
                    dst[o + 2] = UInt8(clamping: b)
                    dst[o + 3] = count == 4 ? UInt8(sample(comps[3], i)) : 255
                }
            }
        }
    }

    /// The image's ICC profile (the JP2 `colr` box), when it has one under 16 MiB.
    private static func iccProfile(of header: UnsafeMutablePointer<opj_image_t>) -> Data? {
        var icc: Data?
        if header.pointee.icc_profile_len > 0, let bytes = header.pointee.icc_profile_buf, header.pointee.icc_profile_len < 16 << 20 {
            icc = Data(bytes: bytes, count: Int(header.pointee.icc_profile_len))
        }
        return icc
    }
}
