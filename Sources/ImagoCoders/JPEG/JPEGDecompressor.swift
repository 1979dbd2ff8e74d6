// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CJPEG
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Owns one libjpeg decompressor from the C glue and frees it exactly once.
///
/// Every libjpeg call goes through a glue function that runs it under `setjmp`, so a
/// library error comes back as a status code here instead of a longjmp through Swift.
final class JPEGDecompressor {
    let handle: OpaquePointer
    let cinfo: UnsafeMutablePointer<jpeg_decompress_struct>

    init() throws {
        guard let h = imago_jpeg_decoder_create() else {
            throw ImageCodingError.corrupt(.jpeg, "could not create a libjpeg decompressor (out of memory)")
        }
        handle = h
        cinfo = imago_jpeg_decoder_cinfo(h)
    }

    deinit { imago_jpeg_decoder_destroy(handle) }

    /// The reader libjpeg pulls from, kept alive with the decompressor.
    private var reader: JPEGSourceReader?

    /// Switches libjpeg to pulling its input from `source`, 64 KiB at a time into one buffer of
    /// the glue's; more than `maxBytes` in all fails the read with `.exceedsLimit(.maxBytes, …)`.
    ///
    /// - Throws: `.corrupt` when the buffer cannot be allocated.
    func pull(from source: any ImageByteSource, maxBytes: Int) throws {
        let bridge = JPEGSourceReader(source: source, maxBytes: maxBytes)
        reader = bridge
        let status = imago_jpeg_decoder_set_reader(
            handle,
            { context, buffer, capacity in
                guard let context, let buffer else { return -1 }
                return Unmanaged<JPEGSourceReader>.fromOpaque(context).takeUnretainedValue().read(into: buffer, capacity: capacity)
            }, Unmanaged.passUnretained(bridge).toOpaque(), 1 << 16)
        guard status == Int32(IMAGO_OK) else {
            throw ImageCodingError.corrupt(.jpeg, "could not allocate libjpeg's input buffer (out of memory)")
        }
    }

    /// Runs `body`, replacing the error of a libjpeg call that failed because the source could
    /// not be read with the source's own error.
    func rethrowingReadFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            if let failure = reader?.failure { throw failure }
            throw error
        }
    }

    var hitEnd: Bool { imago_jpeg_decoder_hit_end(handle) != 0 }
    var warningCount: Int { Int(imago_jpeg_decoder_warning_count(handle)) }
    var firstWarning: String { String(cString: imago_jpeg_decoder_warning(handle)) }

    /// Turns a glue status into `true` (done), `false` (suspended), or a typed error.
    func check(_ status: Int32, during step: String) throws -> Bool {
        switch status {
        case Int32(IMAGO_OK): return true
        case Int32(IMAGO_SUSPENDED): return false
        default: throw error(during: step)
        }
    }

    /// The typed error for the failure libjpeg just reported.
    func error(during step: String) -> ImageCodingError {
        let message = String(cString: imago_jpeg_decoder_message(handle))
        if hitEnd { return .truncated(.jpeg, "the data ends \(step) (\(message))") }
        if message.contains("Unsupported JPEG data precision") {
            return .unsupportedFeature(.jpeg, "\(message); this libjpeg-turbo build decodes 8-bit JPEGs only")
        }
        if message.hasPrefix("Unsupported") || message.contains("not supported") {
            return .unsupportedFeature(.jpeg, message)
        }
        if message.hasPrefix("Backing store not supported") || message.hasPrefix("Insufficient memory") {
            return .unsupportedFeature(.jpeg, "decoding needs more memory than the limits allow (\(message))")
        }
        if message.hasPrefix("Maximum supported image dimension") {
            return .unsupportedFeature(.jpeg, message)
        }
        return .corrupt(.jpeg, message)
    }

    /// Reads the header fields and saved markers once `jpeg_read_header` has succeeded.
    func header() throws -> JPEGHeader {
        let c = cinfo.pointee
        var icc: Data?
        var profile: UnsafeMutablePointer<UInt8>?
        var length: UInt32 = 0
        if imago_jpeg_read_icc_profile(handle, &profile, &length) == Int32(IMAGO_OK), let profile {
            icc = Data(bytes: profile, count: Int(length))
            imago_free(profile)
        }
        var exif: Data?
        var xmp: Data?
        var hasICCMarker = false
        var hasMPF = false, hasISOGainMap = false
        var index: Int32 = 0
        var code: Int32 = 0
        var data: UnsafePointer<UInt8>?
        var markerLength: UInt32 = 0
        while imago_jpeg_marker(handle, index, &code, &data, &markerLength) != 0 {
            index += 1
            guard let data, markerLength > 6 else { continue }
            let bytes = UnsafeBufferPointer(start: data, count: Int(markerLength))
            if code == 0xE2, bytes.starts(with: Array("ICC_PROFILE".utf8) + [0]) { hasICCMarker = true }
            if code == 0xE2, bytes.starts(with: UltraHDR.mpfPrefix) { hasMPF = true }
            if code == 0xE2, bytes.starts(with: UltraHDR.isoPrefix) { hasISOGainMap = true }
            if code == 0xE1, exif == nil, bytes.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) {
                exif = Data(bytes.dropFirst(6))
            }
            if code == 0xE1, xmp == nil, bytes.starts(with: Self.xmpSignature) {
                xmp = Data(bytes.dropFirst(Self.xmpSignature.count))
            }
        }
        return JPEGHeader(
            width: Int(c.image_width), height: Int(c.image_height),
            components: Int(c.num_components), colorSpace: c.jpeg_color_space,
            progressive: c.progressive_mode != 0, arithmetic: c.arith_code != 0,
            adobeInverted: c.saw_Adobe_marker != 0, hasICCMarker: hasICCMarker, icc: icc, exif: exif, xmp: xmp,
            hasGainMap: hasMPF && (hasISOGainMap || xmp.map { String(decoding: $0, as: UTF8.self).contains("hdr-gain-map") } == true))
    }

    /// The APP1 signature of an XMP packet.
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
}

/// What a JPEG header says.
struct JPEGHeader {
    var width: Int
    var height: Int
    var components: Int
    var colorSpace: J_COLOR_SPACE
    var progressive: Bool
    var arithmetic: Bool
    var adobeInverted: Bool
    /// An APP2 ICC_PROFILE marker is present, even if its chunks do not reassemble.
    var hasICCMarker: Bool
    /// The reassembled profile; `nil` when chunks are missing, duplicated or miscounted
    /// (libjpeg-turbo's rules, which match jpeg-decoder's tests).
    var icc: Data?
    var exif: Data?
    /// The XMP packet, read for its orientation when EXIF has none.
    var xmp: Data?
    /// An MPF segment and gain-map metadata: an Ultra HDR JPEG.
    var hasGainMap = false

    var isCMYK: Bool { colorSpace == JCS_CMYK || colorSpace == JCS_YCCK }
    var orientation: ImageOrientation { ImageOrientation(exif: exif, xmp: xmp) }

    func info() -> ImageInfo {
        var info = ImageInfo(
            format: .jpeg, width: width, height: height, orientation: orientation,
            hasAlpha: false, bitDepth: 8, hasICCProfile: hasICCMarker, progressive: progressive,
            isGrayscale: colorSpace == JCS_GRAYSCALE)
        info.hasGainMap = hasGainMap
        return info
    }
}

/// Feeds libjpeg from an ``ImageByteSource``: the C glue calls ``read(into:capacity:)`` whenever
/// it has used its buffer. A source error cannot cross C, so it is kept here and rethrown.
final class JPEGSourceReader {
    private let source: any ImageByteSource
    private let maxBytes: Int
    private var total = 0
    /// The error that ended reading, to rethrow in place of libjpeg's report of it.
    private(set) var failure: (any Error)?

    init(source: any ImageByteSource, maxBytes: Int) {
        self.source = source
        self.maxBytes = maxBytes
    }

    /// Bytes written into `buffer`, 0 at the end, -1 on failure (kept in ``failure``).
    func read(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        guard failure == nil else { return -1 }
        do {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity))
            total += n
            if total > maxBytes { throw ImageCodingError.exceedsLimit(.maxBytes, found: total, limit: maxBytes) }
            return n
        } catch {
            failure = error
            return -1
        }
    }
}
