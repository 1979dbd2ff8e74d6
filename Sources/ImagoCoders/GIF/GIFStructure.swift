// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A walk over a GIF's blocks without decoding any pixels: canvas, frames, delays, loop
/// count, transparency, interlacing. Used by `imago info`; the animated-formats coder builds on it.
///
/// Semantics (as browsers and SDWebImage): a delay of 10 ms or less, or a frame with no
/// Graphic Control Extension, shows for 100 ms. The first NETSCAPE2.0/ANIMEXTS1.0 block
/// decides the loop count: stored n means n + 1 plays, 0 means forever, no block means one
/// play. A stream cut short reports the frames whose descriptors were complete.
struct GIFStructure {
    /// One image block: where it is, its rectangle and its Graphic Control Extension.
    struct Frame: Sendable {
        /// Offset of the image separator (0x2C).
        var offset: Int
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var interlaced: Bool
        var hasLocalPalette: Bool
        /// GCE disposal method: 2 background, 3 previous, anything else none.
        var disposal: Int
        var transparentIndex: Int?
        var duration: Double
        /// Whether the frame's data sub-blocks end before the data does.
        var complete: Bool
    }

    var width: Int
    var height: Int
    var colorTableBits: Int
    /// Offset of the global colour table, and its entry count (0 without one).
    var globalPaletteOffset = 13
    var globalPaletteCount = 0
    /// Bytes of header, screen descriptor and global colour table.
    var headerLength = 13
    var frames: [Frame] = []
    var frameCount: Int { frames.count }
    var durations: [Double] { frames.map(\.duration) }
    var loopCount = 1
    var hasTransparency = false
    var firstFrameInterlaced = false

    /// - Parameter frameLimit: Stops the walk after this many frames (a first-frame decode reads
    ///   no further); `nil` walks the whole stream.
    /// - Throws: `.truncated` when the header is incomplete, `.corrupt` for a bad signature,
    ///   `.exceedsLimit(.maxFrames, …)` when the walk passes `limits.maxFrames`.
    init(_ data: Data, limits: DecodingLimits = .default, frameLimit: Int? = nil) throws {
        let r = DataReader(data)
        guard r.matches("GIF87a", at: 0) || r.matches("GIF89a", at: 0) else {
            throw ImageCodingError.corrupt(.gif, "the GIF signature is missing")
        }
        guard let w = r.u16le(6), let h = r.u16le(8), let flags = r.u8(10) else {
            throw ImageCodingError.truncated(.gif, "the logical screen descriptor is incomplete")
        }
        width = w
        height = h
        colorTableBits = Int(flags & 0x07) + 1
        var offset = 13
        if flags & 0x80 != 0 {
            globalPaletteCount = 1 << colorTableBits
            offset += 3 << colorTableBits
        }
        headerLength = offset
        try walkBlocks(r, from: offset, limits: limits, frameLimit: frameLimit)
        if frames.isEmpty {
            throw ImageCodingError.truncated(.gif, "no complete image descriptor was found")
        }
    }

    /// The Graphic Control Extension values waiting for the next image descriptor.
    private struct PendingControl {
        var delay: Double?
        var disposal = 0
        var transparent: Int?
    }

    /// Walks the blocks from `start` to the trailer, the end of the data or `frameLimit` frames.
    private mutating func walkBlocks(_ r: DataReader, from start: Int, limits: DecodingLimits, frameLimit: Int?) throws {
        var offset = start
        var pending = PendingControl()
        var sawLoop = false
        while let introducer = r.u8(offset) {
            switch introducer {
            case 0x21:  // extension
                guard let next = readExtension(r, at: offset, pending: &pending, sawLoop: &sawLoop) else { return }
                offset = next
            case 0x2C:  // image descriptor
                guard let next = try readImage(r, at: offset, limits: limits, pending: &pending) else { return }
                offset = next
                if let frameLimit, frames.count >= frameLimit { return }
            case 0x3B:  // trailer
                return
            default:
                return
            }
        }
    }

    /// Reads the extension at `offset` (a GCE into `pending`, the first loop block into
    /// `loopCount`); the offset after it, or `nil` at the end of the data.
    private mutating func readExtension(_ r: DataReader, at offset: Int, pending: inout PendingControl, sawLoop: inout Bool) -> Int? {
        guard let label = r.u8(offset + 1) else { return nil }
        let body = offset + 2
        if label == 0xF9, let size = r.u8(body), size >= 4, let packed = r.u8(body + 1), let delay = r.u16le(body + 2) {
            pending.delay = Double(delay) / 100
            pending.disposal = Int(packed >> 2) & 0x07
            pending.transparent = nil
            if packed & 0x01 != 0, let index = r.u8(body + 4) {
                hasTransparency = true
                pending.transparent = Int(index)
            }
        } else if label == 0xFF, !sawLoop, r.u8(body) == 11,
            r.matches("NETSCAPE2.0", at: body + 1) || r.matches("ANIMEXTS1.0", at: body + 1),
            let subSize = r.u8(body + 12), subSize >= 3, r.u8(body + 13) == 1, let n = r.u16le(body + 14)
        {
            sawLoop = true
            loopCount = n == 0 ? 0 : n + 1
        }
        return Self.skipSubBlocks(r, body)
    }

    /// Reads the image descriptor at `offset` into a frame with the pending GCE values; the offset
    /// after its data, or `nil` when the descriptor or its data is cut short.
    private mutating func readImage(_ r: DataReader, at offset: Int, limits: DecodingLimits, pending: inout PendingControl) throws -> Int? {
        guard let x = r.u16le(offset + 1), let y = r.u16le(offset + 3), let fw = r.u16le(offset + 5),
            let fh = r.u16le(offset + 7), let packed = r.u8(offset + 9)
        else { return nil }
        if frames.isEmpty { firstFrameInterlaced = packed & 0x40 != 0 }
        var p = offset + 10
        if packed & 0x80 != 0 { p += 3 << (Int(packed & 0x07) + 1) }
        p += 1  // LZW minimum code size
        try limits.check(frameCount: frames.count + 1, framePixels: 1)
        let delay = pending.delay ?? 0
        let next = Self.skipSubBlocks(r, p)
        frames.append(
            Frame(
                offset: offset, x: x, y: y, width: fw, height: fh, interlaced: packed & 0x40 != 0,
                hasLocalPalette: packed & 0x80 != 0, disposal: pending.disposal,
                transparentIndex: pending.transparent, duration: FrameTiming.displayedDuration(delay),
                complete: next != nil))
        pending = PendingControl()
        return next
    }

    /// Skips data sub-blocks starting at `o`; returns the offset after the terminator, or nil at the end.
    private static func skipSubBlocks(_ r: DataReader, _ o: Int) -> Int? {
        var p = o
        while let size = r.u8(p) {
            p += 1
            if size == 0 { return p }
            p += Int(size)
        }
        return nil
    }

    func info() -> ImageInfo {
        ImageInfo(
            format: .gif, width: width, height: height, frameCount: frameCount,
            loopCount: frameCount > 1 ? loopCount : 1, durations: frameCount > 1 ? durations : [0],
            hasAlpha: hasTransparency, bitDepth: colorTableBits, hasICCProfile: false,
            progressive: firstFrameInterlaced)
    }
}
