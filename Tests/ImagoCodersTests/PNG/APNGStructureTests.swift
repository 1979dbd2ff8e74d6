// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

private func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
private func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

/// One frame of a hand-made APNG: its fcTL fields and its RGBA pixels, top row first.
private struct Frame {
    var x = 0
    var y = 0
    var width: Int
    var height: Int
    var num = 1
    var den = 10
    var dispose: UInt8 = 0
    var blend: UInt8 = 0
    var colors: [RGBA8]
}

/// A PNG chunk before serialization; `badCRC` writes a wrong checksum.
private struct Chunk {
    var type: String
    var body: [UInt8]
    var badCRC = false
}

/// A zlib stream of one stored (uncompressed) deflate block, with its Adler-32.
private func zlibStored(_ raw: [UInt8]) -> [UInt8] {
    var a = 1, b = 0
    for byte in raw {
        a = (a + Int(byte)) % 65_521
        b = (b + a) % 65_521
    }
    let n = raw.count
    return [0x78, 0x01, 0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)] + raw + be32(b << 16 | a)
}

/// Unfiltered 8-bit RGBA rows, compressed: the data of an IDAT or fdAT chunk.
private func imageData(_ width: Int, _ colors: [RGBA8]) -> [UInt8] {
    var raw: [UInt8] = []
    for y in 0..<(colors.count / max(1, width)) {
        raw.append(0)
        for c in colors[(y * width)..<(y * width + width)] { raw += [c.r, c.g, c.b, c.a] }
    }
    return zlibStored(raw)
}

/// The PNG file of `chunks`, each with its length and CRC.
private func serialized(_ chunks: [Chunk]) -> Data {
    var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    for chunk in chunks {
        let typed = Array(chunk.type.utf8) + chunk.body
        out += be32(chunk.body.count) + typed + be32(Int(CRC32.checksum(typed) ^ (chunk.badCRC ? 1 : 0)))
    }
    return Data(out)
}

/// The chunks of an 8-bit RGBA APNG of `frames` on a `width` x `height` canvas. Frame 0 is the
/// IDAT image, unless a separate `defaultImage` is given; then every frame is in fdAT chunks.
/// Sequence numbers count from 0 over fcTL and fdAT.
private func apngChunks(
    width: Int, height: Int, plays: Int = 0, frameCount: Int? = nil, defaultImage: [RGBA8]? = nil, _ frames: [Frame]
) -> [Chunk] {
    var chunks = [Chunk(type: "IHDR", body: be32(width) + be32(height) + [8, 6, 0, 0, 0])]
    chunks.append(Chunk(type: "acTL", body: be32(frameCount ?? frames.count) + be32(plays)))
    if let defaultImage { chunks.append(Chunk(type: "IDAT", body: imageData(width, defaultImage))) }
    var sequence = 0
    for (i, f) in frames.enumerated() {
        var control = be32(sequence) + be32(f.width) + be32(f.height) + be32(f.x) + be32(f.y)
        control += be16(f.num) + be16(f.den) + [f.dispose, f.blend]
        chunks.append(Chunk(type: "fcTL", body: control))
        sequence += 1
        if i == 0, defaultImage == nil {
            chunks.append(Chunk(type: "IDAT", body: imageData(f.width, f.colors)))
        } else {
            chunks.append(Chunk(type: "fdAT", body: be32(sequence) + imageData(f.width, f.colors)))
            sequence += 1
        }
    }
    chunks.append(Chunk(type: "IEND", body: []))
    return chunks
}

/// The index in `chunks` of the `k`th chunk of `type`.
private func position(_ type: String, _ k: Int = 0, in chunks: [Chunk]) -> Int {
    chunks.indices.filter { chunks[$0].type == type }[k]
}

@Suite("APNG structure from hand-made files: composition, timing, validation, limits")
struct APNGStructureTests {
    let png = PNGCoder()
    let rgba = DecodeOptions(pixelFormat: .rgba8)
    static let red = RGBA8(r: 255, g: 0, b: 0), blue = RGBA8(r: 0, g: 0, b: 255)
    static let green = RGBA8(r: 0, g: 255, b: 0), clear = RGBA8(r: 0, g: 0, b: 0, a: 0)

    /// 4x4 red; 2x2 blue at (1, 1) shown 5/0 (1/100 s units) and disposed to background;
    /// 2x1 green and transparent at (0, 0) shown 1 ms, blended over.
    private static let threeFrames = [
        Frame(width: 4, height: 4, colors: [RGBA8](repeating: APNGStructureTests.red, count: 16)),
        Frame(
            x: 1, y: 1, width: 2, height: 2, num: 5, den: 0, dispose: 1,
            colors: [RGBA8](repeating: APNGStructureTests.blue, count: 4)),
        Frame(width: 2, height: 1, num: 1, den: 1000, blend: 1, colors: [APNGStructureTests.green, APNGStructureTests.clear])
    ]

    /// A 4x4 canvas of `base` with `paint` applied.
    static func canvas(_ paint: [(Int, Int, RGBA8)], base: RGBA8 = APNGStructureTests.red) -> [RGBA8] {
        var c = [RGBA8](repeating: base, count: 16)
        for (x, y, color) in paint { c[y * 4 + x] = color }
        return c
    }

    static func pixels(_ buffer: PixelBuffer) -> [RGBA8] {
        (0..<buffer.height).flatMap { y in (0..<buffer.width).compactMap { buffer.color(atX: $0, y: y) } }
    }

    static let blueSquare = [(1, 1), (2, 1), (1, 2), (2, 2)].map { ($0.0, $0.1, APNGStructureTests.blue) }
    static let clearedSquare = [(1, 1), (2, 1), (1, 2), (2, 2)].map { ($0.0, $0.1, APNGStructureTests.clear) }

    @Test("three frames: rectangles, dispose to background and blend over composite exactly; delays and plays as stored")
    func composites() throws {
        let data = serialized(apngChunks(width: 4, height: 4, plays: 3, Self.threeFrames))
        #expect(ImageFormat(sniffing: data) == .apng)
        #expect(APNGStructure.invalidReason(data) == nil)
        let structure = try #require(try APNGStructure.parse(data))
        #expect(structure.defaultImageIsFirstFrame && structure.frames.count == 3 && structure.plays == 3)
        #expect(structure.frames.map(\.layout.x) == [0, 1, 0] && structure.frames.map(\.layout.width) == [4, 2, 2])
        let info = try png.info(of: data)
        #expect(info.format == .apng && info.frameCount == 3 && info.loopCount == 3 && info.hasAlpha)
        // 1/10 s; 5 with denominator 0 is 5/100 s; 1 ms shows for 100 ms.
        #expect(info.durations == [0.1, 0.05, 0.1])
        let image = try png.decode(data, options: rgba)
        #expect(image.frameCount == 3 && image.loopCount == 3 && image.format == .apng)
        #expect((0..<3).map { image.duration(at: $0) } == [0.1, 0.05, 0.1])
        #expect(Self.pixels(image.frames[0].buffer) == Self.canvas([]))
        #expect(Self.pixels(image.frames[1].buffer) == Self.canvas(Self.blueSquare))
        // The blue square was cleared after its frame; over keeps the red under the transparent pixel.
        #expect(Self.pixels(image.frames[2].buffer) == Self.canvas(Self.clearedSquare + [(0, 0, Self.green)]))
    }

    @Test("lazily decoded frames, in any order, equal the eager ones; a first-frame decode reads frame 0 alone")
    func lazyAndFirstFrame() throws {
        let data = serialized(apngChunks(width: 4, height: 4, Self.threeFrames))
        let eager = try png.decode(data, options: .default)
        let lazy = try png.decode(data, options: DecodeOptions(decodesFramesLazily: true))
        #expect(lazy.animation != nil && lazy.frameCount == 3 && lazy.loopCount == 0)
        for i in [2, 0, 1, 2, 1] {
            #expect(Fixtures.difference(try lazy.frame(at: i).buffer, eager.frames[i].buffer).max == 0, "frame \(i)")
        }
        let first = try png.decode(data, options: DecodeOptions(pixelFormat: .rgba8, firstFrameOnly: true))
        #expect(first.frameCount == 1 && Self.pixels(first.buffer) == Self.canvas([]))
    }

    @Test("a standalone PNG is rebuilt for each frame: its own size and pixels, no animation chunks")
    func frameStreams() throws {
        let data = serialized(apngChunks(width: 4, height: 4, Self.threeFrames))
        let structure = try #require(try APNGStructure.parse(data))
        let stream = structure.frameStream(1, in: data)
        #expect(ImageFormat(sniffing: stream) == .png)
        let frame = try png.decode(stream, options: rgba)
        #expect(frame.pixelSize == PixelSize(width: 2, height: 2) && Self.pixels(frame.buffer) == [RGBA8](repeating: Self.blue, count: 4))
        let last = try png.decode(structure.frameStream(2, in: data), options: rgba)
        #expect(Self.pixels(last.buffer) == [Self.green, Self.clear])
    }

    @Test("a default image outside the animation is not a frame, not even for a first-frame decode")
    func separateDefaultImage() throws {
        let frames = [
            Frame(width: 4, height: 4, colors: [RGBA8](repeating: Self.blue, count: 16)),
            Frame(x: 3, y: 3, width: 1, height: 1, colors: [Self.green])
        ]
        let red = [RGBA8](repeating: Self.red, count: 16)
        let data = serialized(apngChunks(width: 4, height: 4, plays: 1, defaultImage: red, frames))
        let structure = try #require(try APNGStructure.parse(data))
        #expect(!structure.defaultImageIsFirstFrame && structure.frames.count == 2)
        #expect(APNGStructure.leadingDefaultImage(data) == nil)
        let image = try png.decode(data, options: rgba)
        #expect(image.frameCount == 2 && image.loopCount == 1)
        #expect(Self.pixels(image.frames[0].buffer) == Self.canvas([], base: Self.blue))
        #expect(Self.pixels(image.frames[1].buffer) == Self.canvas([(3, 3, Self.green)], base: Self.blue))
        let first = try png.decode(data, options: DecodeOptions(pixelFormat: .rgba8, firstFrameOnly: true))
        #expect(Self.pixels(first.buffer) == Self.canvas([], base: Self.blue))
    }

    @Test("acTL after IDAT makes a plain PNG: not an APNG, and not an invalid one either")
    func lateAnimationControl() throws {
        var chunks = apngChunks(width: 4, height: 4, Self.threeFrames)
        let actl = chunks.remove(at: position("acTL", in: chunks))
        chunks.insert(actl, at: position("IDAT", in: chunks) + 1)
        let data = serialized(chunks)
        #expect(ImageFormat(sniffing: data) == .png)
        #expect(try APNGStructure.parse(data) == nil)
        #expect(APNGStructure.invalidReason(data) == nil)
        let image = try png.decode(data, options: rgba)
        #expect(image.frameCount == 1 && Self.pixels(image.buffer) == Self.canvas([]))
    }
}

@Suite("APNG validation and limits on hand-made files")
struct APNGValidationTests {
    let png = PNGCoder()

    /// The valid three-frame file (delays 1/10 s), with its frames and then its chunks changed.
    private static func broken(
        frameCount: Int? = nil, frames editFrames: (inout [Frame]) -> Void = { _ in },
        chunks editChunks: (inout [Chunk]) -> Void = { _ in }
    ) -> Data {
        var frames = [
            Frame(width: 4, height: 4, colors: [RGBA8](repeating: APNGStructureTests.red, count: 16)),
            Frame(x: 1, y: 1, width: 2, height: 2, dispose: 1, colors: [RGBA8](repeating: APNGStructureTests.blue, count: 4)),
            Frame(width: 2, height: 1, blend: 1, colors: [APNGStructureTests.green, APNGStructureTests.clear])
        ]
        editFrames(&frames)
        var chunks = apngChunks(width: 4, height: 4, frameCount: frameCount, frames)
        editChunks(&chunks)
        return serialized(chunks)
    }

    /// Each damage, and the words its reason must contain.
    private static let damages: [(String, Data)] = [
        ("sequence number 5 where 2 was due", broken(chunks: { c in c[position("fdAT", in: c)].body.replaceSubrange(0..<4, with: be32(5)) })),
        ("rectangle is outside the image", broken(frames: { f in f[1].x = 3 })),
        ("does not cover the image", broken(chunks: { c in c[position("fcTL", in: c)].body.replaceSubrange(4..<8, with: be32(3)) })),
        ("unknown dispose or blend op", broken(frames: { f in f[2].dispose = 3 })),
        ("unknown dispose or blend op", broken(frames: { f in f[2].blend = 2 })),
        ("acTL gives 4 frames, the file has 3", broken(frameCount: 4)),
        ("acTL gives 0 frames", broken(frameCount: 0)),
        ("more than one acTL chunk", broken(chunks: { c in c.insert(c[1], at: 2) })),
        ("frame 2 has no image data", broken(chunks: { c in c.remove(at: position("fdAT", 1, in: c)) })),
        (
            "fdAT without a frame control chunk",
            broken(chunks: { c in
                c.remove(at: position("fcTL", 1, in: c))
                c[position("fdAT", in: c)].body.replaceSubrange(0..<4, with: be32(1))
            })
        )
    ]

    @Test("each damage is named, and the file is shown as its still default image, as browsers show it")
    func damagedFilesShowTheDefaultImage() throws {
        for (reason, data) in Self.damages {
            let found = APNGStructure.invalidReason(data) ?? "valid"
            #expect(found.contains(reason), "\(reason): \(found)")
            #expect(try APNGStructure.parse(data) == nil, "\(reason)")
            let image = try png.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            #expect(image.frameCount == 1 && image.pixelSize == PixelSize(width: 4, height: 4), "\(reason)")
            #expect(image.buffer.color(atX: 1, y: 1) == APNGStructureTests.red, "\(reason)")
            #expect(try png.info(of: data).frameCount == 1, "\(reason)")
        }
    }

    @Test("a wrong CRC on an animation chunk makes the animation invalid")
    func badCRC() {
        let data = Self.broken(chunks: { c in c[position("fcTL", 1, in: c)].badCRC = true })
        #expect(APNGStructure.invalidReason(data)?.contains("CRC") == true)
    }

    @Test("frame counts over maxFrames are refused from acTL, before any frame is read; a first-frame decode still works")
    func frameLimits() throws {
        let many = Self.broken(frameCount: 20_000)
        #expect(throws: ImageCodingError.exceedsLimit(.maxFrames, found: 20_000, limit: 10_000)) { _ = try png.decode(many, options: .default) }
        #expect(throws: ImageCodingError.exceedsLimit(.maxFrames, found: 20_000, limit: 10_000)) { _ = try png.info(of: many) }
        let valid = Self.broken()
        let two = DecodingLimits(maxFrames: 2)
        #expect(throws: ImageCodingError.exceedsLimit(.maxFrames, found: 3, limit: 2)) {
            _ = try png.decode(valid, options: DecodeOptions(limits: two))
        }
        let first = try png.decode(valid, options: DecodeOptions(firstFrameOnly: true, limits: two))
        #expect(first.frameCount == 1 && first.pixelSize == PixelSize(width: 4, height: 4))
    }

    @Test("the pixels of all frames together are limited for an eager decode; the canvas size is checked before allocating")
    func pixelLimits() throws {
        let valid = Self.broken()
        let total = DecodingLimits(maxTotalFramePixels: 40)
        #expect(throws: ImageCodingError.exceedsLimit(.maxTotalFramePixels, found: 48, limit: 40)) {
            _ = try png.decode(valid, options: DecodeOptions(limits: total))
        }
        #expect(try png.decode(valid, options: DecodeOptions(limits: DecodingLimits(maxTotalFramePixels: 48))).frameCount == 3)
        let side = 100_000
        let huge = serialized(apngChunks(width: side, height: side, [Frame(width: side, height: side, colors: [])]))
        #expect(try png.info(of: huge).pixelSize == PixelSize(width: side, height: side))
        #expect(codingFailure { try png.decode(huge, options: .default) } == "exceedsLimit maxPixels")
    }
}
