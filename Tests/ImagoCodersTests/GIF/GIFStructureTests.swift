// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

/// Blocks of a hand-made GIF. The image data is a placeholder (never decoded by the block walk).
private enum Block {
    /// The signature, a `width` x `height` screen, and a global palette of 2^`paletteBits` entries.
    static func header(_ width: Int, _ height: Int, paletteBits: Int = 3, signature: String = "GIF89a") -> [UInt8] {
        Array(signature.utf8) + le16(width) + le16(height) + [UInt8(0x80 | (paletteBits - 1)), 0, 0]
            + [UInt8](repeating: 0x40, count: 3 << paletteBits)
    }

    static func loop(_ n: Int, application: String = "NETSCAPE2.0") -> [UInt8] {
        [0x21, 0xFF, 11] + Array(application.utf8) + [3, 1] + le16(n) + [0]
    }

    /// A Graphic Control Extension: delay in hundredths of a second, disposal, transparent index.
    static func control(delay: Int, disposal: Int = 0, transparent: Int? = nil) -> [UInt8] {
        [0x21, 0xF9, 4, UInt8(disposal << 2 | (transparent == nil ? 0 : 1))] + le16(delay) + [UInt8(transparent ?? 0), 0]
    }

    static func image(x: Int = 0, y: Int = 0, _ width: Int, _ height: Int, interlaced: Bool = false, localBits: Int? = nil) -> [UInt8] {
        var packed = interlaced ? 0x40 : 0
        if let localBits { packed |= 0x80 | (localBits - 1) }
        let local = localBits.map { [UInt8](repeating: 0x20, count: 3 << $0) } ?? []
        return [0x2C] + le16(x) + le16(y) + le16(width) + le16(height) + [UInt8(packed)] + local + [2, 2, 0x4C, 0x01, 0]
    }

    static let trailer: [UInt8] = [0x3B]
}

@Suite("GIF block walk on hand-made streams: frames, delays, disposal, transparency, loops, damage")
struct GIFStructureTests {
    /// Three frames: interlaced, 50 ms, disposed to background, transparent index 7; 10 ms,
    /// disposed to previous, with a local palette; no control extension at all.
    static func threeFrames(loop: [UInt8] = []) -> Data {
        var bytes = Block.header(20, 10) + loop
        bytes += Block.control(delay: 5, disposal: 2, transparent: 7) + Block.image(20, 10, interlaced: true)
        bytes += Block.control(delay: 1, disposal: 3) + Block.image(x: 3, y: 4, 5, 6, localBits: 2)
        bytes += Block.image(x: 19, y: 9, 1, 1) + Block.trailer
        return Data(bytes)
    }

    @Test("rectangles, delays (10 ms or less and none show 100 ms), disposal and transparency per frame")
    func frames() throws {
        let gif = try GIFStructure(Self.threeFrames())
        #expect(gif.width == 20 && gif.height == 10 && gif.colorTableBits == 3 && gif.globalPaletteCount == 8)
        #expect(gif.headerLength == 13 + 24)
        #expect(gif.frames.map(\.x) == [0, 3, 19] && gif.frames.map(\.y) == [0, 4, 9])
        #expect(gif.frames.map(\.width) == [20, 5, 1] && gif.frames.map(\.height) == [10, 6, 1])
        #expect(gif.durations == [0.05, 0.1, 0.1])
        #expect(gif.frames.map(\.disposal) == [2, 3, 0])
        #expect(gif.frames.map(\.transparentIndex) == [7, nil, nil])
        #expect(gif.frames.map(\.interlaced) == [true, false, false] && gif.frames.map(\.hasLocalPalette) == [false, true, false])
        #expect(gif.frames.allSatisfy { $0.complete })
        let info = try GIFCoder().info(of: Self.threeFrames())
        #expect(info.format == .gif && info.pixelSize == PixelSize(width: 20, height: 10) && info.frameCount == 3)
        #expect(info.hasAlpha && info.progressive && info.bitDepth == 3 && info.loopCount == 1)
        #expect(info.durations == [0.05, 0.1, 0.1])
    }

    @Test(
        "the first application block decides the loop count: n plays n + 1 times, 0 forever, none once",
        arguments: [
            ([UInt8](), 1), (Block.loop(0), 0), (Block.loop(3), 4), (Block.loop(2, application: "ANIMEXTS1.0"), 3),
            (Block.loop(1) + Block.loop(0), 2), (Block.loop(5, application: "XMPDataXMP "), 1)
        ])
    func loopCounts(loop: [UInt8], plays: Int) throws {
        #expect(try GIFStructure(Self.threeFrames(loop: loop)).loopCount == plays)
        #expect(try GIFCoder().info(of: Self.threeFrames(loop: loop)).loopCount == plays)
    }

    @Test("a still reports one play and one zero duration whatever its blocks say")
    func still() throws {
        let data = Data(Block.header(4, 4) + Block.loop(0) + Block.control(delay: 50) + Block.image(4, 4) + Block.trailer)
        let info = try GIFCoder().info(of: data)
        #expect(info.frameCount == 1 && info.loopCount == 1 && info.durations == [0] && !info.hasAlpha && !info.progressive)
    }

    @Test("a bad signature is corrupt; a cut screen descriptor or no image descriptor is truncated")
    func damagedHeaders() {
        let data = Self.threeFrames()
        var unsigned = data
        unsigned[4] = UInt8(ascii: "8")
        #expect(codingFailure { try GIFStructure(unsigned) } == "corrupt gif")
        #expect(codingFailure { try GIFStructure(data.prefix(10)) } == "truncated gif")
        #expect(codingFailure { try GIFStructure(Data(Block.header(4, 4) + Block.trailer)) } == "truncated gif")
        #expect(codingFailure { try GIFStructure(data.prefix(13 + 24)) } == "truncated gif")
        #expect(codingFailure { try GIFCoder().info(of: unsigned) } == "corrupt gif")
    }

    @Test("a stream cut inside a frame's data keeps that frame, marked incomplete; every cut gives frames or a typed error")
    func cutStreams() throws {
        let data = Self.threeFrames()
        let secondImage = Block.header(20, 10).count + Block.control(delay: 5).count + Block.image(20, 10).count + Block.control(delay: 1).count
        let cut = try GIFStructure(data.prefix(secondImage + 10 + 12 + 2))
        #expect(cut.frames.count == 2 && cut.frames.map(\.complete) == [true, false])
        for n in 0..<data.count {
            let failure = codingFailure { try GIFStructure(data.prefix(n)) }
            #expect(["no error", "truncated gif", "corrupt gif"].contains(failure), "\(n) bytes: \(failure)")
        }
    }

    @Test("the walk stops at a frame limit, and passing maxFrames is refused while walking")
    func frameLimits() throws {
        let data = Self.threeFrames()
        #expect(try GIFStructure(data, frameLimit: 1).frames.count == 1)
        #expect(try GIFStructure(data, frameLimit: 2).frames.count == 2)
        #expect(throws: ImageCodingError.exceedsLimit(.maxFrames, found: 3, limit: 2)) {
            _ = try GIFStructure(data, limits: DecodingLimits(maxFrames: 2))
        }
        #expect(try GIFStructure(data, limits: DecodingLimits(maxFrames: 3)).frames.count == 3)
    }
}
