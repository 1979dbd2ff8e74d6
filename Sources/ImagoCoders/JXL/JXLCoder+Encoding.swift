// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CJXL
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension JXLCoder {
    /// libjxl's default effort, as `cjxl`'s.
    public static let defaultEffort = 7

    /// The butteraugli distance `cjxl -q` uses for a quality from 0 to 100: 0.1 + (100 − q) ×
    /// 0.09 from 30 up (q 90 → 1.0, visually lossless), a steeper curve below.
    package static func distance(forQuality quality: Double) -> Float {
        let q = min(100, max(0, quality))
        let d = q >= 30 ? 0.1 + (100 - q) * 0.09 : 53.0 / 3000 * q * q - 23.0 / 20 * q + 25
        return Float(min(25, max(0, d)))
    }

    /// Encodes the image, or its every frame for an animation, as JPEG XL: lossy at
    /// ``EncodeOptions/quality`` or lossless with ``EncodeOptions/lossless``, at
    /// ``EncodeOptions/effort`` (default 7), progressive with ``EncodeOptions/progressive``
    /// (DC first, then AC passes). Gray images stay gray, alpha is kept when any pixel
    /// uses it, the ICC profile and EXIF are written when metadata is kept, and a kept
    /// orientation (``EncodeOptions/OrientationHandling/writeEXIF``) goes in the codestream's
    /// header.
    ///
    /// - Throws: `.encoderUnavailable` for another format or without libjxl;
    ///   `.invalidArgument` for options out of range; `.encodingFailed` with libjxl's error.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard canEncode(format) else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, exif, icc) = options.prepare(image)
        let frames = img.frameCount
        let alpha = img.hasAlpha && (0..<frames).contains { (try? img.frame(at: $0).buffer.isOpaque) == false }
        let gray = frames == 1 && !img.buffer.format.isColor
        let pixelFormat: PixelFormat = gray ? (alpha ? .grayAlpha8 : .gray8) : (alpha ? .rgba8 : .rgb8)

        let encoder = try JXLEncoderHandle(threads: CodecThreads.limit(options.maxThreads))
        var basic = Self.basicInfo(for: img, gray: gray, alpha: alpha, lossless: options.lossless)
        let e = encoder.pointer
        if exif != nil { try encoder.check(JxlEncoderUseBoxes(e), "asking for metadata boxes") }
        try encoder.check(JxlEncoderSetBasicInfo(e, &basic), "setting the header")
        try Self.setColorEncoding(of: encoder, icc: icc, gray: gray)
        if let exif { try Self.addEXIFBox(exif, to: encoder) }
        let settings = try encoder.frameSettings(options: options)
        try Self.addFrames(of: img, to: encoder, settings: settings, pixelFormat: pixelFormat)
        JxlEncoderCloseInput(e)
        return try encoder.output()
    }

    /// The codestream header for `img`: its size, 8-bit samples, gray or colour, alpha, its
    /// orientation, and the animation's timing and loops when it has frames.
    private static func basicInfo(for img: Image, gray: Bool, alpha: Bool, lossless: Bool) -> JxlBasicInfo {
        var basic = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&basic)
        basic.xsize = UInt32(img.buffer.width)
        basic.ysize = UInt32(img.buffer.height)
        basic.bits_per_sample = 8
        basic.exponent_bits_per_sample = 0
        basic.num_color_channels = gray ? 1 : 3
        basic.num_extra_channels = alpha ? 1 : 0
        basic.alpha_bits = alpha ? 8 : 0
        basic.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE
        basic.orientation = JxlOrientation(rawValue: UInt32(img.orientation.rawValue))
        if img.frameCount > 1 {
            basic.have_animation = JXL_TRUE
            basic.animation.tps_numerator = 1000
            basic.animation.tps_denominator = 1
            basic.animation.num_loops = UInt32(clamping: max(0, img.loopCount))
        }
        return basic
    }

    /// Sets the ICC profile when it fits the channels (gray or RGB), sRGB otherwise.
    private static func setColorEncoding(of encoder: JXLEncoderHandle, icc: Data?, gray: Bool) throws {
        let e = encoder.pointer
        if let icc, ColorManagement.space(of: icc) == (gray ? .gray : .rgb) {
            try icc.withUnsafeBytes { raw in
                try encoder.check(
                    JxlEncoderSetICCProfile(e, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count),
                    "setting the ICC profile")
            }
        } else {
            var srgb = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&srgb, gray ? JXL_TRUE : JXL_FALSE)
            try encoder.check(JxlEncoderSetColorEncoding(e, &srgb), "setting sRGB")
        }
    }

    /// Adds `exif` as the Exif box, then closes the boxes.
    private static func addEXIFBox(_ exif: Data, to encoder: JXLEncoderHandle) throws {
        let e = encoder.pointer
        // The Exif box starts with the offset of the TIFF header: 0.
        let box = Data([0, 0, 0, 0]) + exif
        let type: [CChar] = Array("Exif".utf8).map { CChar(bitPattern: $0) }
        try box.withUnsafeBytes { raw in
            try encoder.check(
                JxlEncoderAddBox(e, type, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, JXL_FALSE),
                "adding the EXIF box")
        }
        JxlEncoderCloseBoxes(e)
    }

    /// Adds every frame of `img` in `pixelFormat` (with its duration when animated), repacking
    /// padded rows tight.
    private static func addFrames(of img: Image, to encoder: JXLEncoderHandle, settings: OpaquePointer, pixelFormat: PixelFormat) throws {
        let frames = img.frameCount
        var format = JXLSession.pixelFormat(channels: pixelFormat.bytesPerPixel)
        for index in 0..<frames {
            let frame = try img.frame(at: index)
            if frames > 1 {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                header.duration = UInt32(clamping: Int((frame.duration * 1000).rounded()))
                try encoder.check(JxlEncoderSetFrameHeader(settings, &header), "setting frame \(index)'s header")
            }
            let pixels = frame.buffer.converted(to: pixelFormat)
            let row = pixels.width * pixelFormat.bytesPerPixel
            try pixels.withUnsafeBytes { raw in
                if pixels.bytesPerRow == row {
                    try encoder.check(JxlEncoderAddImageFrame(settings, &format, raw.baseAddress, row * pixels.height), "adding frame \(index)")
                } else {
                    // libjxl takes tight rows (or rows aligned to a power of two): repack padded ones.
                    var tight = [UInt8](repeating: 0, count: row * pixels.height)
                    tight.withUnsafeMutableBytes { dst in
                        guard let to = dst.baseAddress, let from = raw.baseAddress else { return }
                        for y in 0..<pixels.height {
                            (to + y * row).copyMemory(from: from + y * pixels.bytesPerRow, byteCount: row)
                        }
                    }
                    try encoder.check(JxlEncoderAddImageFrame(settings, &format, tight, tight.count), "adding frame \(index)")
                }
            }
        }
    }

    /// Recompresses a JPEG into JPEG XL without decoding it to pixels, keeping what libjxl needs
    /// to give back the very same JPEG bytes (``reconstructedJPEG(from:maxBytes:)``, `djxl`). About 20%
    /// smaller than the JPEG, as `cjxl` makes it.
    ///
    /// - Parameters:
    ///   - jpeg: The JPEG file's bytes.
    ///   - effort: libjxl's effort, 1–9 (default 7).
    /// - Throws: `.encoderUnavailable` without libjxl; `.invalidArgument` for an effort out of
    ///   range; `.encodingFailed` when libjxl cannot take the JPEG (arithmetic coding, a
    ///   damaged file).
    public func recompress(jpeg: Data, effort: Int = JXLCoder.defaultEffort) throws -> Data {
        guard canEncode(.jxl) else { throw ImageCodingError.encoderUnavailable(.jxl) }
        guard (1...9).contains(effort) else { throw ImageCodingError.invalidArgument("effort \(effort) must be between 1 and 9") }
        guard ImageFormat(sniffing: jpeg) == .jpeg else { throw ImageCodingError.invalidArgument("the data is not a JPEG") }
        let encoder = try JXLEncoderHandle(threads: CodecThreads.defaultLimit)
        let e = encoder.pointer
        try encoder.check(JxlEncoderUseContainer(e, JXL_TRUE), "asking for the container")
        try encoder.check(JxlEncoderStoreJPEGMetadata(e, JXL_TRUE), "keeping the JPEG's reconstruction data")
        var options = EncodeOptions(lossless: true)
        options.effort = effort
        let settings = try encoder.frameSettings(options: options, pixels: false)
        try jpeg.withUnsafeBytes { raw in
            try encoder.check(
                JxlEncoderAddJPEGFrame(settings, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count),
                "adding the JPEG")
        }
        JxlEncoderCloseInput(e)
        return try encoder.output()
    }

    /// The original JPEG's bytes, when `data` is a JPEG XL made by lossless recompression
    /// (``recompress(jpeg:effort:)``, `cjxl` from a JPEG), or `nil` when it carries no
    /// reconstruction data.
    ///
    /// - Throws: `.unsupportedFeature` without libjxl; `.truncated` or `.corrupt` for a file
    ///   libjxl cannot read; `.exceedsLimit` past `maxBytes` of output.
    public func reconstructedJPEG(from data: Data, maxBytes: Int = 1 << 30) throws -> Data? {
        try data.withUnsafeBytes { raw in
            let events = JXL_DEC_JPEG_RECONSTRUCTION.rawValue | JXL_DEC_FULL_IMAGE.rawValue
            let session = try JXLSession(input: raw, events: events)
            var out = Data()
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            var reconstructing = false
            return try chunk.withUnsafeMutableBytes { buffer -> Data? in
                guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
                func collect() {
                    let left = JxlDecoderReleaseJPEGBuffer(session.decoder)
                    out.append(base, count: buffer.count - left)
                }
                while true {
                    switch try session.next(during: "reconstructing the JPEG") {
                    case JXL_DEC_JPEG_RECONSTRUCTION:
                        reconstructing = true
                        _ = JxlDecoderSetJPEGBuffer(session.decoder, base, buffer.count)
                    case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                        collect()
                        guard out.count <= maxBytes else {
                            throw ImageCodingError.exceedsLimit(.maxBytes, found: out.count, limit: maxBytes)
                        }
                        _ = JxlDecoderSetJPEGBuffer(session.decoder, base, buffer.count)
                    case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                        // Pixels, not a JPEG: the file was not made by recompression.
                        guard reconstructing else { return nil }
                        throw ImageCodingError.corrupt(.jxl, "libjxl asked for pixels while giving back the JPEG")
                    case JXL_DEC_FULL_IMAGE, JXL_DEC_SUCCESS:
                        guard reconstructing else { return nil }
                        collect()
                        return out
                    default:
                        continue
                    }
                }
            }
        }
    }
}

/// A libjxl encoder, destroyed with this handle; its output collected in one place.
final class JXLEncoderHandle {
    let pointer: OpaquePointer
    private var runner: UnsafeMutableRawPointer?

    /// An encoder with libjxl's thread runner when `threads` is more than 1.
    init(threads: Int) throws {
        guard imago_jxl_available() != 0, let e = JxlEncoderCreate(nil) else { throw ImageCodingError.encoderUnavailable(.jxl) }
        pointer = e
        // libjxl's own threads, as cjxl runs them: the encoder is far slower than the decoder.
        if threads > 1, let r = JxlThreadParallelRunnerCreate(nil, threads) {
            runner = r
            _ = JxlEncoderSetParallelRunner(e, JxlThreadParallelRunner, r)
        }
    }

    deinit {
        JxlEncoderDestroy(pointer)
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
    }

    func check(_ status: JxlEncoderStatus, _ step: String) throws {
        guard status == JXL_ENC_SUCCESS else {
            let error = JxlEncoderGetError(pointer)
            let reason: String =
                switch error {
                case JXL_ENC_ERR_OOM: "out of memory"
                case JXL_ENC_ERR_JBRD: "the JPEG cannot be recompressed losslessly"
                case JXL_ENC_ERR_BAD_INPUT: "the input was rejected"
                case JXL_ENC_ERR_NOT_SUPPORTED: "not supported"
                case JXL_ENC_ERR_API_USAGE: "libjxl refused the call"
                default: "libjxl error \(error.rawValue)"
                }
            throw ImageCodingError.encodingFailed(.jxl, "\(reason) (\(step))")
        }
    }

    /// Frame settings for `options`: the distance from its quality, or lossless, and its effort.
    func frameSettings(options: EncodeOptions, pixels: Bool = true) throws -> OpaquePointer {
        guard let settings = JxlEncoderFrameSettingsCreate(pointer, nil) else {
            throw ImageCodingError.encodingFailed(.jxl, "libjxl could not make frame settings")
        }
        try check(
            JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(options.effort ?? JXLCoder.defaultEffort)),
            "setting the effort")
        if pixels {
            if options.progressive {
                // As cjxl's --progressive: DC first, then AC in passes, so partial bytes show the whole image.
                try check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_PROGRESSIVE_DC, 1), "asking for a progressive DC")
                try check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_PROGRESSIVE_AC, 1), "asking for progressive AC")
                try check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_RESPONSIVE, 1), "asking for responsive modular")
            }
            if options.lossless {
                try check(JxlEncoderSetFrameLossless(settings, JXL_TRUE), "asking for lossless")
            } else {
                try check(JxlEncoderSetFrameDistance(settings, JXLCoder.distance(forQuality: options.quality * 100)), "setting the distance")
            }
        }
        return settings
    }

    /// Runs the encoder to its end and returns what it wrote.
    func output() throws -> Data {
        var out = Data()
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            var status = JXL_ENC_ERROR
            var written = 0
            chunk.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                var next: UnsafeMutablePointer<UInt8>? = base
                var available = raw.count
                status = JxlEncoderProcessOutput(pointer, &next, &available)
                written = raw.count - available
                out.append(base, count: written)
            }
            switch status {
            case JXL_ENC_SUCCESS: return out
            case JXL_ENC_NEED_MORE_OUTPUT: continue
            default: try check(status, "encoding")
            }
        }
    }
}
