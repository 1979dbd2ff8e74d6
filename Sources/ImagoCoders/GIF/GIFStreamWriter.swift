// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CGIF
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// giflib's writer over a growing `Data`.
final class GIFStreamWriter {
    private final class Sink {
        var data = Data()
    }

    private let sink = Sink()
    private let context: Unmanaged<Sink>
    private let gif: UnsafeMutablePointer<GifFileType>
    private var closed = false

    /// The palette written as the global colour table; frames using it carry no table of their own.
    private let globalPalette: GIFPalette

    init(width: Int, height: Int, globalPalette: GIFPalette) throws {
        self.globalPalette = globalPalette
        context = Unmanaged.passRetained(sink)
        var error: Int32 = 0
        guard
            let gif = EGifOpen(
                context.toOpaque(),
                { gif, bytes, count in
                    guard let gif, let bytes, let user = gif.pointee.UserData else { return 0 }
                    Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().data.append(bytes, count: Int(count))
                    return count
                }, &error)
        else {
            context.release()
            throw ImageCodingError.encodingFailed(.gif, "giflib could not start a GIF (error \(error))")
        }
        self.gif = gif
        EGifSetGifVersion(gif, true)
        try Self.withColorMap(globalPalette) { map in
            try check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map), "the screen descriptor")
        }
    }

    /// `palette` as giflib's colour map, its size rounded up to a power of two.
    private static func withColorMap<R>(_ palette: GIFPalette, _ body: (UnsafeMutablePointer<ColorMapObject>) throws -> R) throws -> R {
        var colors = palette.colors.map { GifColorType(Red: $0.r, Green: $0.g, Blue: $0.b) }
        let size = max(2, 1 << (Int.bitWidth - (max(2, colors.count) - 1).leadingZeroBitCount))
        colors += Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size - colors.count)
        guard let map = GifMakeMapObject(Int32(size), &colors) else {
            throw ImageCodingError.encodingFailed(.gif, "giflib could not make a colour table (out of memory)")
        }
        defer { GifFreeMapObject(map) }
        return try body(map)
    }

    deinit {
        if !closed { EGifCloseFile(gif, nil) }
        context.release()
    }

    /// A NETSCAPE2.0 block: stored plays − 1, 0 for forever.
    func putLoopCount(_ loopCount: Int) throws {
        let stored = loopCount == 0 ? 0 : min(65535, loopCount - 1)
        try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), "the loop block")
        var name = Array("NETSCAPE2.0".utf8)
        try check(EGifPutExtensionBlock(gif, 11, &name), "the loop block")
        var loop: [UInt8] = [1, UInt8(stored & 0xFF), UInt8(stored >> 8)]
        try check(EGifPutExtensionBlock(gif, 3, &loop), "the loop block")
        try check(EGifPutExtensionTrailer(gif), "the loop block")
    }

    /// One image block with its control block (written when there is a delay or transparency)
    /// and its palette as the local colour table unless it is the global one.
    func put(_ frame: GIFIndexedFrame, palette: GIFPalette, delay: Int?, disposal: UInt8) throws {
        if delay != nil || frame.transparent != nil {
            let d = delay ?? 0
            var gce: [UInt8] = [
                disposal << 2 | (frame.transparent != nil ? 1 : 0), UInt8(d & 0xFF), UInt8(d >> 8),
                UInt8(frame.transparent ?? 0)
            ]
            try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, &gce), "a frame's control block")
        }
        let r = frame.rect
        if palette === globalPalette {
            try check(EGifPutImageDesc(gif, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height), false, nil), "a frame's descriptor")
        } else {
            try Self.withColorMap(palette) { map in
                try check(EGifPutImageDesc(gif, Int32(r.x), Int32(r.y), Int32(r.width), Int32(r.height), false, map), "a frame's descriptor")
            }
        }
        var indices = frame.indices
        try indices.withUnsafeMutableBufferPointer { p in
            guard let base = p.baseAddress else { return }
            for y in 0..<r.height {
                try check(EGifPutLine(gif, base + y * r.width, Int32(r.width)), "a frame's pixels")
            }
        }
    }

    /// Closes the stream and returns the file.
    func finish() throws -> Data {
        closed = true
        var error: Int32 = 0
        guard EGifCloseFile(gif, &error) == GIF_OK else {
            throw ImageCodingError.encodingFailed(.gif, "giflib could not finish the GIF (error \(error))")
        }
        return sink.data
    }

    private func check(_ status: Int32, _ what: String) throws {
        guard status == GIF_OK else {
            let message = GifErrorString(gif.pointee.Error).map { String(cString: $0) } ?? "error \(gif.pointee.Error)"
            throw ImageCodingError.encodingFailed(.gif, "giflib failed writing \(what): \(message)")
        }
    }
}
