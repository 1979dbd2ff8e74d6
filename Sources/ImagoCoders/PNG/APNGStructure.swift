// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CZlib
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The animation in an APNG, read and validated by our own chunk reader (acTL, fcTL, fdAT).
///
/// Validation follows the APNG specification and Philip Taylor's conformance suite: one acTL
/// before IDAT; sequence numbers from 0 without gaps, repeats or reordering across fcTL and
/// fdAT; every frame with data; frame rectangles inside the image, the first one covering it;
/// known dispose and blend ops; as many frames as acTL says; correct CRCs on the animation
/// chunks. A file that fails any of these is shown as its still default image (IDAT), as Firefox
/// and Chrome do: ``parse(_:limits:)`` then returns `nil`.
struct APNGStructure {
    struct Frame {
        var layout: AnimationFrameLayout
        /// The frame's image data: IDAT chunk bodies for a frame that is the default image, fdAT
        /// bodies without their sequence numbers otherwise (byte ranges into the file).
        var data: [Range<Int>]
    }

    let ihdr: Range<Int>  // IHDR chunk body
    let shared: [Range<Int>]  // whole chunks (length to CRC) before IDAT that every frame stream repeats
    let frames: [Frame]
    let plays: Int
    /// Whether IDAT is frame 0 (otherwise a default image outside the animation).
    let defaultImageIsFirstFrame: Bool
    let width: Int
    let height: Int

    /// Why a file is not a valid APNG (kept for `imago info` and the tests).
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    /// The animation, or `nil` for a PNG without a valid one. Frame counts are checked against
    /// `limits` before per-frame data is collected.
    ///
    /// - Throws: `.exceedsLimit(.maxFrames, …)`.
    static func parse(_ data: Data, limits: DecodingLimits = .default) throws -> APNGStructure? {
        do {
            return try APNGStructure(data, limits: limits)
        } catch is Invalid {
            return nil
        }
    }

    /// The reason `data` is not a valid APNG, or `nil` when it is one (or has no acTL at all).
    static func invalidReason(_ data: Data) -> String? {
        do { _ = try APNGStructure(data, limits: .unlimited) } catch let e as Invalid {
            return e.description
        } catch { return String(describing: error) }
        return nil
    }

    /// The default image alone as a PNG stream (the file up to the end of its IDAT chunks, then
    /// IEND) when an fcTL comes before the first IDAT, making it frame 0 of the animation; `nil`
    /// otherwise. Reads only chunk headers; checks nothing else.
    static func leadingDefaultImage(_ data: Data) -> Data? {
        let r = DataReader(data)
        var offset = 8
        var sawFCTL = false, inIDAT = false
        while let length = r.u32be(offset), length < 0x8000_0000, offset + 12 + length <= data.count {
            let isIDAT = r.matches("IDAT", at: offset + 4)
            if inIDAT, !isIDAT { break }
            if isIDAT {
                guard sawFCTL else { return nil }
                inIDAT = true
            }
            if r.matches("fcTL", at: offset + 4) { sawFCTL = true }
            offset += 12 + length
        }
        guard inIDAT else { return nil }
        var stream = data.prefix(offset)
        stream.append(contentsOf: [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        return stream
    }

    /// Reads and validates the animation; `nil` for a plain PNG (no acTL, or one after IDAT).
    private init?(_ data: Data, limits: DecodingLimits) throws {
        let r = DataReader(data)
        guard data.count >= 33, r.matches("IHDR", at: 12), let w = r.u32be(16), let h = r.u32be(20), w > 0, h > 0 else { return nil }
        width = w
        height = h
        ihdr = 16..<29
        var walk = ChunkWalk(data: data, r: r, w: w, h: h, limits: limits)
        guard try walk.readChunks() else { return nil }
        guard let acTL = walk.acTL else { return nil }
        try walk.finishFrame()
        guard walk.seenIDAT else { throw Invalid(description: "no IDAT chunk") }
        guard walk.frames.count == acTL.frames else {
            throw Invalid(description: "acTL gives \(acTL.frames) frames, the file has \(walk.frames.count)")
        }
        self.shared = walk.shared
        self.frames = walk.frames
        self.plays = acTL.plays
        self.defaultImageIsFirstFrame = walk.defaultIsFirst
    }

    /// A standalone PNG stream of frame `index`: signature, IHDR with the frame's size, the shared
    /// chunks, one IDAT holding the frame's data, IEND (YYImage's method).
    func frameStream(_ index: Int, in data: Data) -> Data {
        let f = frames[index]
        var out = Data(PNGChunks.signature)
        var header = data.subdata(in: (data.startIndex + ihdr.lowerBound)..<(data.startIndex + ihdr.upperBound))
        header.replaceSubrange(
            0..<8,
            with: [
                UInt8(f.layout.width >> 24 & 0xFF), UInt8(f.layout.width >> 16 & 0xFF),
                UInt8(f.layout.width >> 8 & 0xFF), UInt8(f.layout.width & 0xFF),
                UInt8(f.layout.height >> 24 & 0xFF), UInt8(f.layout.height >> 16 & 0xFF),
                UInt8(f.layout.height >> 8 & 0xFF), UInt8(f.layout.height & 0xFF)
            ])
        Self.appendChunk("IHDR", header, to: &out)
        for chunk in shared { out.append(data.subdata(in: (data.startIndex + chunk.lowerBound)..<(data.startIndex + chunk.upperBound))) }
        var body = Data()
        for range in f.data { body.append(data.subdata(in: (data.startIndex + range.lowerBound)..<(data.startIndex + range.upperBound))) }
        Self.appendChunk("IDAT", body, to: &out)
        Self.appendChunk("IEND", Data(), to: &out)
        return out
    }

    static func appendChunk(_ type: String, _ body: Data, to out: inout Data) {
        let n = body.count
        out.append(contentsOf: [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)])
        var typed = Data(type.utf8)
        typed.append(body)
        let crc = typed.withUnsafeBytes { raw in
            crc32(0, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(raw.count))
        }
        out.append(typed)
        out.append(contentsOf: [UInt8(crc >> 24 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
    }
}

extension APNGStructure {
    /// The chunk reader's state while it walks the file from the signature to IEND.
    private struct ChunkWalk {
        let data: Data
        let r: DataReader
        let w: Int
        let h: Int
        let limits: DecodingLimits
        var shared: [Range<Int>] = []
        var acTL: (frames: Int, plays: Int)?
        var seenIDAT = false, idatEnded = false
        var expectedSequence = 0
        var frames: [Frame] = []
        var current: (layout: AnimationFrameLayout, data: [Range<Int>], isDefault: Bool)?
        var defaultIsFirst = false
        var idat: [Range<Int>] = []

        /// Starts a walk over `data`, an image `w`×`h`, at the first chunk after the signature.
        init(data: Data, r: DataReader, w: Int, h: Int, limits: DecodingLimits) {
            self.data = data
            self.r = r
            self.w = w
            self.h = h
            self.limits = limits
        }

        /// Walks the chunks up to IEND; `false` when an acTL after IDAT makes the file a plain PNG.
        mutating func readChunks() throws -> Bool {
            var offset = 8
            while let length = r.u32be(offset), r.u8(offset + 7) != nil {
                guard length < 0x8000_0000, offset + 12 + length <= data.count else { break }
                let body = offset + 8
                let type = String(decoding: [r.u8(offset + 4) ?? 0, r.u8(offset + 5) ?? 0, r.u8(offset + 6) ?? 0, r.u8(offset + 7) ?? 0], as: UTF8.self)
                if seenIDAT, type != "IDAT" { idatEnded = true }
                switch type {
                case "acTL":
                    // acTL after IDAT is not part of an APNG: the file is a plain PNG.
                    if seenIDAT { return false }
                    try readACTL(offset, length)
                case "fcTL":
                    try readFCTL(offset, length)
                case "IDAT":
                    guard !idatEnded else { throw Invalid(description: "IDAT chunks are not consecutive") }
                    seenIDAT = true
                    idat.append(body..<(body + length))
                    if let c = current, c.isDefault { current?.data.append(body..<(body + length)) }
                case "fdAT":
                    try readFDAT(offset, length)
                case "IEND":
                    return true
                default:
                    if !seenIDAT, type != "IHDR" { shared.append(offset..<(offset + 12 + length)) }
                }
                offset += 12 + length
            }
            return true
        }

        /// Closes the open frame, which must have image data.
        mutating func finishFrame() throws {
            guard let c = current else { return }
            guard !c.data.isEmpty else { throw Invalid(description: "frame \(frames.count) has no image data") }
            frames.append(Frame(layout: c.layout, data: c.data))
            current = nil
        }

        /// Checks the CRC of the chunk at `start` whose body is `length` bytes.
        func checkCRC(_ start: Int, _ length: Int) throws {
            guard let stored = r.u32be(start + 8 + length) else { throw Invalid(description: "a chunk is cut short") }
            let computed = data.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return Int(crc32(0, base.assumingMemoryBound(to: UInt8.self) + start + 4, UInt32(length + 4)))
            }
            guard computed == stored else { throw Invalid(description: "bad CRC in an animation chunk") }
        }

        /// Takes the next sequence number, which must be the one due.
        mutating func takeSequence(_ seq: Int) throws {
            guard seq == expectedSequence else { throw Invalid(description: "sequence number \(seq) where \(expectedSequence) was due") }
            expectedSequence += 1
        }

        /// Reads the acTL chunk at `offset`: the frame count (checked against the limits) and plays.
        mutating func readACTL(_ offset: Int, _ length: Int) throws {
            let body = offset + 8
            guard acTL == nil else { throw Invalid(description: "more than one acTL chunk") }
            try checkCRC(offset, length)
            guard length == 8, let n = r.u32be(body), let plays = r.u32be(body + 4) else {
                throw Invalid(description: "acTL has the wrong length")
            }
            guard n > 0, n < 0x8000_0000 else { throw Invalid(description: "acTL gives \(n) frames") }
            try limits.check(frameCount: n, framePixels: 0)
            acTL = (n, plays)
        }

        /// Reads the fcTL chunk at `offset`, closing the previous frame and opening the one it describes.
        mutating func readFCTL(_ offset: Int, _ length: Int) throws {
            let body = offset + 8
            try checkCRC(offset, length)
            guard length == 26, let seq = r.u32be(body), let fw = r.u32be(body + 4), let fh = r.u32be(body + 8),
                let fx = r.u32be(body + 12), let fy = r.u32be(body + 16), let num = r.u16be(body + 20),
                let den = r.u16be(body + 22), let dispose = r.u8(body + 24), let blend = r.u8(body + 25)
            else {
                throw Invalid(description: "fcTL has the wrong length")
            }
            try takeSequence(seq)
            try finishFrame()
            guard fw > 0, fh > 0, fx <= w, fy <= h, fw <= w - fx, fh <= h - fy else {
                throw Invalid(description: "frame \(frames.count)'s rectangle is outside the image")
            }
            guard dispose <= 2, blend <= 1 else { throw Invalid(description: "unknown dispose or blend op") }
            let isDefault = !seenIDAT
            if isDefault, fx != 0 || fy != 0 || fw != w || fh != h {
                throw Invalid(description: "the fcTL before IDAT does not cover the image")
            }
            let seconds = Double(num) / Double(den == 0 ? 100 : den)
            current = (
                AnimationFrameLayout(
                    x: fx, y: fy, width: fw, height: fh,
                    duration: FrameTiming.displayedDuration(seconds),
                    disposal: dispose == 1 ? .background : dispose == 2 ? .previous : .none,
                    blend: blend == 0 ? .source : .over, mayBeTransparent: true),
                [], isDefault
            )
            if isDefault { defaultIsFirst = true }
        }

        /// Reads the fdAT chunk at `offset` into the open (non-default) frame.
        mutating func readFDAT(_ offset: Int, _ length: Int) throws {
            let body = offset + 8
            try checkCRC(offset, length)
            guard length >= 4, let seq = r.u32be(body) else { throw Invalid(description: "fdAT is too short") }
            try takeSequence(seq)
            guard let c = current, !c.isDefault else { throw Invalid(description: "fdAT without a frame control chunk") }
            current?.data.append((body + 4)..<(body + length))
        }
    }
}
