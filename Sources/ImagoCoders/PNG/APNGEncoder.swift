// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CPNG
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes APNG: each frame's image data comes from libpng (the frame encoded as a PNG of the
/// animation's colour type), and this writer of our own lays out acTL, fcTL and fdAT around it.
///
/// Every frame covers the canvas with dispose "none" and blend "source", so each frame is exactly
/// the composited canvas it was decoded as. Delays are written in milliseconds (1/1000 s), or in
/// hundredths of a second above 65.535 s; the first frame is the default image (IDAT).
enum APNGEncoder {
    static func encode(_ frames: [ImageFrame], loopCount: Int, options: EncodeOptions, icc: Data?, exif: Data?) throws -> Data {
        guard let first = frames.first else { throw ImageCodingError.invalidArgument("an animation needs at least one frame") }
        let width = first.buffer.width, height = first.buffer.height
        guard frames.allSatisfy({ $0.buffer.size == first.buffer.size }) else {
            throw ImageCodingError.invalidArgument("every frame of an APNG must be the canvas size")
        }
        let alpha = frames.contains { !$0.buffer.isOpaque }
        let colorType = alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB
        // Frames share one IHDR, written in colour: a profile that cannot describe colour pixels is left out.
        let icc = icc.flatMap { PNGColorProfile.colorSpace(of: $0) == "RGB " ? $0 : nil }
        var out = Data(PNGChunks.signature)
        var sequence: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            let png = try PNGCoder.write(
                frame.buffer.converted(to: alpha ? .rgba8 : .rgb8), colorType: colorType,
                level: options.compressionLevel, interlace: false,
                icc: index == 0 ? icc : nil, exif: index == 0 ? exif : nil)
            let chunks = try Self.chunks(of: png)
            if index == 0 {
                // IHDR, then acTL, then the colour and metadata chunks, all before the first fcTL.
                guard let ihdr = chunks.first(where: { $0.type == "IHDR" }) else {
                    throw ImageCodingError.encodingFailed(.png, "libpng wrote no IHDR")
                }
                APNGStructure.appendChunk("IHDR", ihdr.body, to: &out)
                APNGStructure.appendChunk("acTL", Self.be32(UInt32(frames.count)) + Self.be32(UInt32(clamping: max(0, loopCount))), to: &out)
                for chunk in chunks where !["IHDR", "IDAT", "IEND"].contains(chunk.type) {
                    APNGStructure.appendChunk(chunk.type, chunk.body, to: &out)
                }
            }
            var control = Self.be32(sequence) + Self.be32(UInt32(width)) + Self.be32(UInt32(height)) + Self.be32(0) + Self.be32(0)
            control += Self.delay(frame.duration)
            control += Data([0, 0])  // dispose none, blend source
            APNGStructure.appendChunk("fcTL", control, to: &out)
            sequence += 1
            for chunk in chunks where chunk.type == "IDAT" {
                if index == 0 {
                    APNGStructure.appendChunk("IDAT", chunk.body, to: &out)
                } else {
                    APNGStructure.appendChunk("fdAT", Self.be32(sequence) + chunk.body, to: &out)
                    sequence += 1
                }
            }
        }
        APNGStructure.appendChunk("IEND", Data(), to: &out)
        return out
    }

    /// The chunks of a PNG libpng wrote: type and body.
    static func chunks(of png: Data) throws -> [(type: String, body: Data)] {
        let r = DataReader(png)
        var offset = 8
        var result: [(String, Data)] = []
        while let length = r.u32be(offset), let body = r.bytes(offset + 8, length), let type = r.bytes(offset + 4, 4) {
            result.append((String(decoding: type, as: UTF8.self), body))
            offset += 12 + length
        }
        return result
    }

    /// delay_num and delay_den: milliseconds, or centiseconds for delays over 65.535 s.
    static func delay(_ seconds: Double) -> Data {
        let ms = Int((max(0, seconds) * 1000).rounded())
        if ms <= 65535 { return be16(UInt16(ms)) + be16(1000) }
        return be16(UInt16(clamping: Int((seconds * 100).rounded()))) + be16(100)
    }

    static func be32(_ v: UInt32) -> Data { Data([UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]) }
    static func be16(_ v: UInt16) -> Data { Data([UInt8(v >> 8), UInt8(v & 0xFF)]) }
}
