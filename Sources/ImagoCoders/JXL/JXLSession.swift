// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CJXL
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One libjxl decoder over bytes that stay valid while it lives, and the steps every JPEG XL
/// read shares: the header, the colour encoding, frame headers, frames into a buffer, the
/// reconstructed JPEG and the metadata boxes.
///
/// The decoder keeps the orientation as stored (Imago applies it, as for JPEG), and gives
/// straight (unpremultiplied) alpha. Not thread-safe: one owner at a time.
final class JXLSession {
    let decoder: OpaquePointer
    private var input: UnsafeRawBufferPointer
    private(set) var basicInfo = JxlBasicInfo()
    private(set) var hasBasicInfo = false
    private var lastStatus = JXL_DEC_SUCCESS
    private var repeats = 0
    /// Whether the input holds the whole file (closed): a pause for input is then truncation.
    private(set) var isComplete: Bool

    /// - Parameters:
    ///   - input: The file's bytes; the caller keeps them valid and unchanged for the session's life.
    ///   - events: The libjxl events to stop at (`JXL_DEC_*` bits).
    ///   - isComplete: Whether `input` is the whole file.
    ///   - threads: libjxl's own threads for the pixels (1: none), as libvips runs them for a
    ///     large image; ``CodecThreads`` decides them.
    ///   - mapsHDR: Whether PQ and HLG images are tone-mapped for an SDR display of
    ///     `HDRToSDR.displayNits` (libjxl's intensity target for SDR), as `djxl --display_nits`
    ///     asks: libjxl maps PQ's light itself (and an XYB image's colours to sRGB), and
    ///     ``hdrConversion()`` gives the rest.
    /// - Throws: `.unsupportedFeature` when libjxl is not installed or cannot start.
    init(input: UnsafeRawBufferPointer, events: UInt32, isComplete: Bool = true, threads: Int = 1, mapsHDR: Bool = false) throws {
        guard imago_jxl_available() != 0, let decoder = JxlDecoderCreate(nil) else {
            throw ImageCodingError.unsupportedFeature(.jxl, "libjxl (libjxl0.7) is not installed")
        }
        self.decoder = decoder
        self.input = input
        self.isComplete = isComplete
        if threads > 1, let r = JxlThreadParallelRunnerCreate(nil, threads) {
            runner = r
            _ = JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, r)
        }
        guard JxlDecoderSubscribeEvents(decoder, Int32(bitPattern: events)) == JXL_DEC_SUCCESS,
            JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
            JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
            !mapsHDR || JxlDecoderSetDesiredIntensityTarget(decoder, Float(HDRToSDR.displayNits)) == JXL_DEC_SUCCESS
        else {
            JxlDecoderDestroy(decoder)
            throw ImageCodingError.unsupportedFeature(.jxl, "libjxl refused the decoder's settings")
        }
        try setInput()
    }

    deinit {
        JxlDecoderDestroy(decoder)
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
        boxBuffer?.deallocate()
    }

    private var runner: UnsafeMutableRawPointer?

    private func setInput() throws {
        let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard let base, input.count > 0, JxlDecoderSetInput(decoder, base, input.count) == JXL_DEC_SUCCESS else {
            throw ImageCodingError.truncated(.jxl, "no bytes to decode")
        }
        if isComplete { JxlDecoderCloseInput(decoder) }
    }

    /// Starts again from the first byte, keeping what the decoder learnt about frame positions
    /// (for ``skipFrames(_:)``); basic info and colour events are not repeated.
    func rewind(events: UInt32) throws {
        JxlDecoderRewind(decoder)
        guard JxlDecoderSubscribeEvents(decoder, Int32(bitPattern: events)) == JXL_DEC_SUCCESS else {
            throw ImageCodingError.corrupt(.jxl, "libjxl could not rewind")
        }
        try setInput()
    }

    /// Hands the decoder the bytes it has not consumed yet, for a session fed as bytes arrive:
    /// valid until ``releaseInput()``, which the caller calls before they go away.
    func feed(_ bytes: UnsafeRawBufferPointer, isFinal: Bool) throws {
        input = bytes
        isComplete = isFinal
        try setInput()
    }

    func skipFrames(_ count: Int) {
        if count > 0 { JxlDecoderSkipFrames(decoder, count) }
    }

    /// Runs the decoder to its next event. Errors and a pause for input (past the end of a
    /// complete file) throw; `JXL_DEC_SUCCESS` means the file is done.
    func next(during step: String) throws -> JxlDecoderStatus {
        let status = JxlDecoderProcessInput(decoder)
        // A request for output that the caller does not meet comes back at once, forever: a
        // caller's bug, never the data's, but it must not spin.
        repeats = status == lastStatus ? repeats + 1 : 0
        lastStatus = status
        guard repeats < 100_000 else {
            throw ImageCodingError.corrupt(.jxl, "libjxl made no progress (\(step), status \(status.rawValue))")
        }
        switch status {
        case JXL_DEC_NEED_PREVIEW_OUT_BUFFER, JXL_DEC_NEED_DC_OUT_BUFFER:
            throw ImageCodingError.corrupt(.jxl, "libjxl asked for an output this decoder does not give (\(step))")
        case JXL_DEC_ERROR:
            throw ImageCodingError.corrupt(.jxl, "libjxl rejected the file (\(step))")
        case JXL_DEC_NEED_MORE_INPUT where isComplete:
            throw ImageCodingError.truncated(.jxl, "the file ends early (\(step))")
        case JXL_DEC_BASIC_INFO:
            guard JxlDecoderGetBasicInfo(decoder, &basicInfo) == JXL_DEC_SUCCESS else {
                throw ImageCodingError.corrupt(.jxl, "libjxl could not read the header")
            }
            hasBasicInfo = true
        default:
            break
        }
        return status
    }

    /// Bytes not yet consumed, for a progressive decoder that feeds more (releases the input).
    func releaseInput() -> Int { JxlDecoderReleaseInput(decoder) }

    // MARK: Header

    /// The stored (not yet oriented) size.
    var storedSize: PixelSize { PixelSize(width: Int(basicInfo.xsize), height: Int(basicInfo.ysize)) }

    var orientation: ImageOrientation { ImageOrientation(exifValue: Int(basicInfo.orientation.rawValue)) ?? .up }

    var hasAlpha: Bool { basicInfo.alpha_bits > 0 }

    var isGray: Bool { basicInfo.num_color_channels == 1 }

    var isAnimated: Bool { basicInfo.have_animation != 0 }

    /// Seconds per tick of the animation header, 0 for a still.
    var secondsPerTick: Double {
        guard isAnimated, basicInfo.animation.tps_numerator > 0 else { return 0 }
        return Double(basicInfo.animation.tps_denominator) / Double(basicInfo.animation.tps_numerator)
    }

    /// Plays of the animation: 0 for forever, 1 for a still.
    var loopCount: Int { isAnimated ? Int(basicInfo.animation.num_loops) : 1 }

    // MARK: Colour

    /// The encoded colour of the original (`JXL_COLOR_PROFILE_TARGET_ORIGINAL`), or `nil` when
    /// the file carries an ICC profile instead. Only after `JXL_DEC_COLOR_ENCODING`.
    func originalEncoding() -> JxlColorEncoding? {
        var encoding = JxlColorEncoding()
        let status = JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &encoding)
        return status == JXL_DEC_SUCCESS ? encoding : nil
    }

    /// Asks for sRGB pixels where libjxl may choose (an XYB image). Only right after
    /// `JXL_DEC_COLOR_ENCODING`; returns whether it took.
    func preferSRGB() -> Bool {
        guard basicInfo.uses_original_profile == 0 else { return false }
        var srgb = JxlColorEncoding()
        srgb.color_space = isGray ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB
        srgb.white_point = JXL_WHITE_POINT_D65
        srgb.primaries = JXL_PRIMARIES_SRGB
        srgb.transfer_function = JXL_TRANSFER_FUNCTION_SRGB
        srgb.rendering_intent = JXL_RENDERING_INTENT_PERCEPTUAL
        return JxlDecoderSetPreferredColorProfile(decoder, &srgb) == JXL_DEC_SUCCESS
    }

    /// Whether the pixels libjxl will output are sRGB (or gray with sRGB's curve), needing no
    /// conversion.
    func outputIsSRGB() -> Bool {
        var e = JxlColorEncoding()
        guard JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &e) == JXL_DEC_SUCCESS else { return false }
        let curve = e.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
        if e.color_space == JXL_COLOR_SPACE_GRAY { return curve && e.white_point == JXL_WHITE_POINT_D65 }
        return e.color_space == JXL_COLOR_SPACE_RGB && curve && e.white_point == JXL_WHITE_POINT_D65 && e.primaries == JXL_PRIMARIES_SRGB
    }

    /// How the output pixels reach sRGB when libjxl gives them coded with PQ or HLG (an HDR
    /// image that is not XYB: libjxl keeps its colour space), or `nil`.
    func hdrConversion() -> HDRToSDR? {
        var e = JxlColorEncoding()
        guard JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &e) == JXL_DEC_SUCCESS else { return nil }
        let transfer: HDRToSDR.Transfer
        switch e.transfer_function {
        case JXL_TRANSFER_FUNCTION_PQ: transfer = .pq
        case JXL_TRANSFER_FUNCTION_HLG: transfer = .hlg
        default: return nil
        }
        let primaries: [(x: Double, y: Double)]
        switch e.primaries {
        case _ where e.color_space == JXL_COLOR_SPACE_GRAY: primaries = ColorPrimaries.srgb
        case JXL_PRIMARIES_2100: primaries = ColorPrimaries.bt2020
        case JXL_PRIMARIES_P3: primaries = ColorPrimaries.p3
        case JXL_PRIMARIES_CUSTOM:
            primaries = [e.primaries_red_xy, e.primaries_green_xy, e.primaries_blue_xy].map { (x: $0.0, y: $0.1) }
        default: primaries = ColorPrimaries.srgb
        }
        let white: (x: Double, y: Double)
        switch e.white_point {
        case JXL_WHITE_POINT_E: white = (1.0 / 3, 1.0 / 3)
        case JXL_WHITE_POINT_DCI: white = ColorPrimaries.dci
        case JXL_WHITE_POINT_CUSTOM: white = (e.white_point_xy.0, e.white_point_xy.1)
        default: white = ColorPrimaries.d65
        }
        return HDRToSDR(transfer: transfer, primaries: primaries, white: white)
    }

    /// The ICC profile of the output pixels (libjxl writes one for an encoded colour space too),
    /// or `nil`.
    func outputProfile() -> Data? {
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
            size > 0, size < 4 << 20
        else { return nil }
        var data = Data(count: size)
        let status = data.withUnsafeMutableBytes { raw -> JxlDecoderStatus in
            guard let p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return JXL_DEC_ERROR }
            return JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, p, size)
        }
        return status == JXL_DEC_SUCCESS ? data : nil
    }

    /// The original's ICC profile (what the file stores), or `nil` for an encoded colour space.
    func originalProfile() -> Data? {
        guard originalEncoding() == nil else { return nil }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &size) == JXL_DEC_SUCCESS,
            size > 0, size < 4 << 20
        else { return nil }
        var data = Data(count: size)
        let status = data.withUnsafeMutableBytes { raw -> JxlDecoderStatus in
            guard let p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return JXL_DEC_ERROR }
            return JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, p, size)
        }
        return status == JXL_DEC_SUCCESS ? data : nil
    }

    // MARK: Frames

    /// The current frame's duration in seconds (after `JXL_DEC_FRAME`).
    func frameDuration() -> Double {
        var header = JxlFrameHeader()
        guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else { return 0 }
        return Double(header.duration) * secondsPerTick
    }

    /// Interleaved output with `channels` channels (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA), 8-bit
    /// unless `type` says otherwise.
    static func pixelFormat(channels: Int, type: JxlDataType = JXL_TYPE_UINT8) -> JxlPixelFormat {
        JxlPixelFormat(num_channels: UInt32(channels), data_type: type, endianness: JXL_NATIVE_ENDIAN, align: 0)
    }

    /// Decodes the frame the decoder is at into `out` (8-bit samples), running it to
    /// `JXL_DEC_FULL_IMAGE`; with `hdr`, through 16-bit samples that it maps to sRGB. A
    /// progressive session may stop earlier, at a pause for input: the return says whether the
    /// frame is whole.
    func decodeFrame(into out: UnsafeMutableRawBufferPointer, channels: Int, step: String, hdr: HDRToSDR? = nil) throws -> Bool {
        guard let hdr, let target = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return try decodeFrame(into: out, channels: channels, type: JXL_TYPE_UINT8, step: step)
        }
        // 8 bits of PQ hold about 150 levels below an SDR display's white: 16 bits, then mapped.
        let samples = storedSize.width * storedSize.height * channels
        guard samples <= out.count else { throw ImageCodingError.corrupt(.jxl, "the frame does not fit the image's size (\(step))") }
        let wide = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: max(1, samples))
        defer { wide.deallocate() }
        guard try decodeFrame(into: UnsafeMutableRawBufferPointer(wide), channels: channels, type: JXL_TYPE_UINT16, step: step),
            let source = wide.baseAddress
        else { return false }
        hdr.convert(source, into: target, count: samples / channels, channels: channels)
        return true
    }

    private func decodeFrame(into out: UnsafeMutableRawBufferPointer, channels: Int, type: JxlDataType, step: String) throws -> Bool {
        var format = Self.pixelFormat(channels: channels, type: type)
        var bufferSet = false
        while true {
            let status = try next(during: step)
            switch status {
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                var needed = 0
                guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed <= out.count,
                    JxlDecoderSetImageOutBuffer(decoder, &format, out.baseAddress, out.count) == JXL_DEC_SUCCESS
                else {
                    throw ImageCodingError.corrupt(.jxl, "the frame does not fit the image's size (\(step))")
                }
                bufferSet = true
            case JXL_DEC_FULL_IMAGE:
                return true
            case JXL_DEC_NEED_MORE_INPUT:
                return false
            case JXL_DEC_SUCCESS:
                throw ImageCodingError.corrupt(
                    .jxl,
                    bufferSet
                        ? "the frame ended without its pixels (\(step))"
                        : "the file has no more frames (\(step))")
            default:
                continue
            }
        }
    }

    // MARK: Boxes

    // The box the decoder stopped at (`JXL_DEC_BOX`), collected when it is an `Exif` box, up
    // to 1 MiB; ``finishBox()`` ends it at the next event.
    private var boxBuffer: UnsafeMutableRawBufferPointer?
    private var boxKind: String?
    private var boxData = Data()
    private(set) var exif: Data?
    private static let boxLimit = 1 << 20

    func beginBox() {
        finishBox()
        var type: JxlBoxType = (0, 0, 0, 0)
        let status = withUnsafeMutableBytes(of: &type) { raw in
            JxlDecoderGetBoxType(decoder, raw.baseAddress?.assumingMemoryBound(to: CChar.self), JXL_TRUE)
        }
        guard status == JXL_DEC_SUCCESS else { return }
        let name = String(decoding: withUnsafeBytes(of: &type) { Array($0) }, as: UTF8.self)
        guard name == "Exif" else { return }
        boxKind = name
        boxData = Data()
        giveBoxBuffer()
    }

    private func giveBoxBuffer() {
        let buffer = boxBuffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        boxBuffer = buffer
        if let p = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            _ = JxlDecoderSetBoxBuffer(decoder, p, buffer.count)
        }
    }

    /// More of the current box: keeps what was written and hands the buffer back.
    func continueBox() {
        collectBox()
        if boxData.count > Self.boxLimit { abandonBox() } else { giveBoxBuffer() }
    }

    private func collectBox() {
        guard let buffer = boxBuffer, boxKind != nil else { return }
        let left = JxlDecoderReleaseBoxBuffer(decoder)
        let written = max(0, buffer.count - left)
        if let base = buffer.baseAddress { boxData.append(base.assumingMemoryBound(to: UInt8.self), count: written) }
    }

    private func abandonBox() {
        _ = JxlDecoderReleaseBoxBuffer(decoder)
        boxKind = nil
        boxData = Data()
    }

    /// Ends the box being collected, keeping an `Exif` box without its 4-byte offset.
    func finishBox() {
        guard boxKind != nil else { return }
        collectBox()
        boxKind = nil
        if boxData.count > 4 {
            let offset =
                Int(boxData[boxData.startIndex]) << 24 | Int(boxData[boxData.startIndex + 1]) << 16
                | Int(boxData[boxData.startIndex + 2]) << 8 | Int(boxData[boxData.startIndex + 3])
            if offset >= 0, 4 + offset < boxData.count { exif = EXIF.strippingPrefix(boxData.dropFirst(4 + offset)) }
        }
        boxData = Data()
    }
}
