// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CGIF
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes one GIF image block with giflib, without reading the frames before it.
///
/// giflib reads a stream in order; for frame `i` it is given the header, screen descriptor and
/// global colour table, then the bytes from that frame's image separator on, so any frame can be
/// decoded on its own (the compositing is ``AnimationComposer``'s). Pixels come out as
/// premultiplied ARGB32 with the transparent index (and indices past the palette) transparent.
enum GIFFrameDecoder {
    /// The bytes giflib reads: the header, then the frame's block to the end of the data. It
    /// borrows the data's bytes for the length of one decode.
    private final class Reader {
        let base: UnsafeRawPointer
        /// The segment being read, and the read position and end within the data.
        var segment = 0
        var position: Int
        var end: Int
        let second: (start: Int, end: Int)

        init(base: UnsafeRawPointer, header: Int, frame: (start: Int, end: Int)) {
            self.base = base
            position = 0
            end = header
            second = frame
        }

        func read(into buffer: UnsafeMutablePointer<GifByteType>, count: Int) -> Int {
            var written = 0
            while written < count {
                if position >= end {
                    guard segment == 0 else { break }
                    segment = 1
                    (position, end) = second
                    continue
                }
                let n = min(count - written, end - position)
                (UnsafeMutableRawPointer(buffer) + written).copyMemory(from: base + position, byteCount: n)
                written += n
                position += n
            }
            return written
        }
    }

    /// One frame's palette indices (its rectangle, rows top to bottom whatever the interlacing)
    /// and its 256-entry colour table as opaque ARGB32 words (local table, else global; entries
    /// past the table are transparent black; without any table, opaque black as browsers draw).
    struct Indexed {
        var width: Int
        var height: Int
        var indices: [UInt8]
        var palette: [UInt32]
        var transparentIndex: Int?
    }

    /// Frame `index`'s own pixels (its rectangle), premultiplied ARGB32, the transparent index
    /// transparent.
    ///
    /// - Throws: as ``indexed(_:structure:index:limits:)``.
    static func decode(_ data: Data, structure: GIFStructure, index: Int, limits: DecodingLimits) throws -> PixelBuffer {
        let frame = try indexed(data, structure: structure, index: index, limits: limits)
        var table = frame.palette
        if let t = frame.transparentIndex, t < 256 { table[t] = 0 }
        return try PixelBuffer(uninitializedWidth: frame.width, height: frame.height, format: .argb32Premultiplied) { out in
            guard let dst = out.baseAddress?.assumingMemoryBound(to: UInt32.self) else { return }
            table.withUnsafeBufferPointer { t in
                frame.indices.withUnsafeBufferPointer { i in
                    for p in 0..<i.count { dst[p] = t[Int(i[p])] }
                }
            }
        }
    }

    /// Decodes frame `index`'s LZW data to palette indices.
    ///
    /// - Throws: `.exceedsLimit` for a frame over `limits.maxPixels`; `.truncated` when its data
    ///   ends early; `.corrupt` with giflib's message for damaged LZW data.
    static func indexed(_ data: Data, structure: GIFStructure, index: Int, limits: DecodingLimits) throws -> Indexed {
        let frame = structure.frames[index]
        let width = max(frame.width, 1), height = max(frame.height, 1)
        try limits.check(width: width, height: height, format: .gif)
        guard frame.width > 0, frame.height > 0 else {
            return Indexed(width: width, height: height, indices: [0], palette: [UInt32](repeating: 0, count: 256), transparentIndex: nil)
        }
        return try data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, structure.headerLength <= raw.count, frame.offset <= raw.count else {
                throw ImageCodingError.truncated(.gif, "frame \(index) lies past the end of the data")
            }
            let reader = Reader(base: base, header: structure.headerLength, frame: (frame.offset, raw.count))
            return try indexed(reader: reader, width: width, height: height, frame: frame, index: index)
        }
    }

    private static func indexed(reader: Reader, width: Int, height: Int, frame: GIFStructure.Frame, index: Int) throws -> Indexed {
        var error: Int32 = 0
        let context = Unmanaged.passRetained(reader)
        defer { context.release() }
        guard
            let gif = DGifOpen(
                context.toOpaque(),
                { gif, buffer, count in
                    guard let gif, let buffer, let user = gif.pointee.UserData else { return 0 }
                    return Int32(Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue().read(into: buffer, count: Int(count)))
                }, &error)
        else {
            throw ImageCodingError.corrupt(.gif, message(error))
        }
        defer { DGifCloseFile(gif, nil) }
        var type = UNDEFINED_RECORD_TYPE
        guard DGifGetRecordType(gif, &type) == GIF_OK, type == IMAGE_DESC_RECORD_TYPE,
            DGifGetImageDesc(gif) == GIF_OK
        else {
            throw ImageCodingError.corrupt(.gif, "frame \(index): \(message(gif.pointee.Error))")
        }
        var indices = [UInt8](repeating: 0, count: width * height)
        // Interlaced rows arrive in four passes: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
        let passes: [(start: Int, step: Int)] = frame.interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        try indices.withUnsafeMutableBufferPointer { out in
            guard let rows = out.baseAddress else { return }
            for pass in passes {
                var y = pass.start
                while y < height {
                    guard DGifGetLine(gif, rows + y * width, Int32(width)) == GIF_OK else {
                        let code = gif.pointee.Error
                        if code == D_GIF_ERR_READ_FAILED {
                            throw ImageCodingError.truncated(.gif, "frame \(index) ends before its last row")
                        }
                        throw ImageCodingError.corrupt(.gif, "frame \(index): \(message(code))")
                    }
                    y += pass.step
                }
            }
        }
        return Indexed(width: width, height: height, indices: indices, palette: palette(gif), transparentIndex: frame.transparentIndex)
    }

    private static func palette(_ gif: UnsafeMutablePointer<GifFileType>) -> [UInt32] {
        var table = [UInt32](repeating: 0, count: 256)
        let map = gif.pointee.Image.ColorMap ?? gif.pointee.SColorMap
        if let map, let colors = map.pointee.Colors {
            for i in 0..<min(256, Int(map.pointee.ColorCount)) {
                let c = colors[i]
                table[i] = 0xFF00_0000 | UInt32(c.Red) << 16 | UInt32(c.Green) << 8 | UInt32(c.Blue)
            }
        } else {
            for i in 0..<256 { table[i] = 0xFF00_0000 }
        }
        return table
    }

    private static func message(_ code: Int32) -> String {
        GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
    }
}
