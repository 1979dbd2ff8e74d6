// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A pure-Swift walk over PNG chunk headers: enough for `imago info` without decoding pixels.
///
/// Reads IHDR, notes tRNS, iCCP and sRGB, copies eXIf (for orientation), and reads APNG's
/// acTL and fcTL delays. Chunk data other than those is skipped, never read.
struct PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    struct IHDR {
        var width: Int
        var height: Int
        var bitDepth: Int
        var colorType: Int
        var interlaced: Bool

        var hasAlphaChannel: Bool { colorType == 4 || colorType == 6 }
    }

    var ihdr: IHDR
    var hasTRNS = false
    var hasICC = false
    var exif: Data?
    /// An uncompressed iTXt `XML:com.adobe.xmp` packet, read for its orientation.
    var xmp: Data?
    var animationFrames: Int?
    var animationPlays: Int?
    var delays: [Double] = []

    /// Parses IHDR only: the signature, then the first chunk. Needs 33 bytes.
    ///
    /// - Throws: `.truncated` when fewer bytes have arrived, `.corrupt` for a bad signature or
    ///   a first chunk that is not a 13-byte IHDR.
    static func readIHDR(_ data: Data) throws -> IHDR {
        let r = DataReader(data)
        guard data.count >= 8 else { throw ImageCodingError.truncated(.png, "the signature is incomplete") }
        guard Array(data.prefix(8)) == signature else {
            throw ImageCodingError.corrupt(.png, "the PNG signature is damaged")
        }
        guard data.count >= 33, let len = r.u32be(8), let w = r.u32be(16), let h = r.u32be(20),
            let depth = r.u8(24), let color = r.u8(25), let interlace = r.u8(28)
        else {
            throw ImageCodingError.truncated(.png, "the IHDR chunk is incomplete")
        }
        guard len == 13, r.matches("IHDR", at: 12) else {
            throw ImageCodingError.corrupt(.png, "the first chunk is not a 13-byte IHDR")
        }
        guard w > 0, h > 0, w < 0x8000_0000, h < 0x8000_0000 else {
            throw ImageCodingError.corrupt(.png, "IHDR gives an invalid size \(w)x\(h)")
        }
        return IHDR(width: w, height: h, bitDepth: Int(depth), colorType: Int(color), interlaced: interlace == 1)
    }

    /// The offset of the first IDAT chunk in `bytes` (which start with the signature), or `nil`
    /// when it has not arrived. Walks chunk headers only.
    static func offsetOfFirstIDAT(in bytes: UnsafeRawBufferPointer) -> Int? {
        var offset = 8
        while offset <= bytes.count - 8 {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset + 4] == 0x49, bytes[offset + 5] == 0x44, bytes[offset + 6] == 0x41, bytes[offset + 7] == 0x54 {
                return offset
            }
            guard length < 0x8000_0000 else { return nil }
            offset += length + 12
        }
        return nil
    }

    /// Walks every chunk header up to IEND or the end of the data.
    init(_ data: Data) throws {
        try self.init(ihdr: try Self.readIHDR(data), reading: DataReader(data))
    }

    /// Walks every chunk header of a file up to IEND or its end, reading the headers (and the
    /// few chunks it keeps) where they lie: a few bytes per chunk, never the image data.
    ///
    /// - Throws: as ``init(_:)``; the file's read errors.
    init(file: ImageFile) throws {
        try self.init(ihdr: try Self.readIHDR(try file.read(at: 0, maxLength: 33)), reading: FileWindow(file))
    }

    private init(ihdr: IHDR, reading r: some RandomByteReading) throws {
        self.ihdr = ihdr
        var offset = 8
        var seenIDAT = false
        while let length = r.u32be(offset), let typeCode = r.bytes(offset + 4, 4) {
            guard length < 0x8000_0000 else { throw ImageCodingError.corrupt(.png, "a chunk length is over 2^31") }
            let type = String(decoding: typeCode, as: UTF8.self)
            let body = offset + 8
            switch type {
            case "tRNS": hasTRNS = true
            case "iCCP": if !seenIDAT { hasICC = true }
            case "eXIf": if exif == nil { exif = r.bytes(body, min(length, 1 << 20)) }
            case "iTXt": if xmp == nil { xmp = Self.xmpPacket(r.bytes(body, min(length, XMP.scanLimit))) }
            case "acTL":
                if !seenIDAT, animationFrames == nil, let frames = r.u32be(body), let plays = r.u32be(body + 4) {
                    animationFrames = frames
                    animationPlays = plays
                }
            case "fcTL":
                if let num = r.u16be(body + 20), let den = r.u16be(body + 22) {
                    delays.append(Double(num) / Double(den == 0 ? 100 : den))
                }
            case "IDAT": seenIDAT = true
            case "IEND": return
            default: break
            }
            let (next, overflow) = offset.addingReportingOverflow(length + 12)
            if overflow { return }
            offset = next
        }
    }

    /// The text of an iTXt chunk whose keyword is `XML:com.adobe.xmp` and whose text is not
    /// compressed: keyword, NUL, compression flag and method, language tag, NUL, translated
    /// keyword, NUL, then the text.
    static func xmpPacket(_ chunk: Data?) -> Data? {
        guard let chunk else { return nil }
        let body = [UInt8](chunk)
        let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
        guard body.starts(with: keyword), body.count > keyword.count + 2, body[keyword.count] == 0 else { return nil }
        var i = keyword.count + 2
        for _ in 0..<2 {  // language tag, translated keyword
            guard let end = body[i...].firstIndex(of: 0) else { return nil }
            i = end + 1
        }
        return Data(body[i...])
    }

    /// The header record. An acTL frame count over `limits.maxFrames` is refused before any
    /// per-frame array is sized from it.
    ///
    /// - Throws: `ImageCodingError.exceedsLimit(_:found:limit:)` with `.maxFrames`.
    func info(format: ImageFormat, limits: DecodingLimits = .default) throws -> ImageInfo {
        let animated = format == .apng && (animationFrames ?? 0) > 0
        let frames = animated ? (animationFrames ?? 1) : 1
        // Only the frame count sizes anything here (the durations); pixels are the decoder's concern.
        try limits.check(frameCount: frames, framePixels: 0)
        var durations = animated ? Array(delays.prefix(frames)) : [0]
        if durations.count < frames { durations += Array(repeating: 0.1, count: frames - durations.count) }
        return ImageInfo(
            format: format, width: ihdr.width, height: ihdr.height,
            orientation: ImageOrientation(exif: exif, xmp: xmp),
            frameCount: frames, loopCount: animated ? (animationPlays ?? 0) : 1,
            durations: durations, hasAlpha: ihdr.hasAlphaChannel || hasTRNS,
            bitDepth: ihdr.bitDepth, hasICCProfile: hasICC, progressive: ihdr.interlaced,
            isGrayscale: ihdr.colorType == 0 || ihdr.colorType == 4)
    }
}
