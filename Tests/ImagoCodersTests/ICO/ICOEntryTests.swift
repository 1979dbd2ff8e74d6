// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
private func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }

/// One directory entry of a hand-made icon: the directory's size bytes, its planes and bit count
/// (a cursor's hotspot), and the image data.
private struct IconEntry {
    var width: Int
    var height: Int
    var planes = 1
    var bits = 32
    var data: [UInt8]
    var length: Int?  // the length the directory states; nil: the data's
    var offset: Int?  // the offset the directory states; nil: where the data is put
}

/// An icon (type 1) or cursor (type 2) file: the directory, then each entry's data in order.
private func iconFile(type: Int = 1, count: Int? = nil, _ entries: [IconEntry]) -> Data {
    var head: [UInt8] = le16(0) + le16(type) + le16(count ?? entries.count)
    var body: [UInt8] = []
    let start = 6 + 16 * entries.count
    for e in entries {
        head += [UInt8(e.width & 0xFF), UInt8(e.height & 0xFF), 0, 0] + le16(e.planes) + le16(e.bits)
        head += le32(e.length ?? e.data.count) + le32(e.offset ?? start + body.count)
        body += e.data
    }
    return Data(head + body)
}

/// A DIB entry: a BITMAPINFOHEADER whose height covers the colours and the AND mask, the colour
/// rows (BGR or BGRA) bottom-up, then the mask rows (1 = transparent) bottom-up, all padded to
/// 4 bytes. `colors` and `mask` are given top row first.
private func dib(width: Int, height: Int, bits: Int, colors: [RGBA8], mask: [Bool], statedHeight: Int? = nil) -> [UInt8] {
    var out: [UInt8] = le32(40) + le32(width) + le32(statedHeight ?? height * 2) + le16(1) + le16(bits)
    out += [UInt8](repeating: 0, count: 24)
    func padded(_ row: [UInt8]) -> [UInt8] { row + [UInt8](repeating: 0, count: (4 - row.count % 4) % 4) }
    for y in (0..<height).reversed() {
        let row = colors[(y * width)..<(y * width + width)]
        out += padded(row.flatMap { bits == 32 ? [$0.b, $0.g, $0.r, $0.a] : [$0.b, $0.g, $0.r] })
    }
    for y in (0..<height).reversed() {
        var row = [UInt8](repeating: 0, count: (width + 7) / 8)
        for x in 0..<width where mask[y * width + x] { row[x / 8] |= UInt8(0x80 >> (x % 8)) }
        out += padded(row)
    }
    return out
}

/// `count` pixels of one colour.
private func solid(_ color: RGBA8, _ count: Int) -> [RGBA8] { [RGBA8](repeating: color, count: count) }

@Suite("ICO and CUR made by hand: DIB alpha and AND masks, entry choice, cursors, damage, the encoder")
struct ICOEntryTests {
    let ico = ICOCoder()
    let straight = DecodeOptions(pixelFormat: .rgba8)

    static func pixels(_ image: Image) -> [RGBA8] {
        (0..<image.pixelSize.height).flatMap { y in (0..<image.pixelSize.width).compactMap { image.buffer.color(atX: $0, y: y) } }
    }

    @Test("a 32-bit entry uses its own alpha, exactly, and ignores its AND mask")
    func ownAlpha() throws {
        let colors = [RGBA8(r: 10, g: 20, b: 30), RGBA8(r: 40, g: 50, b: 60, a: 128), RGBA8(r: 70, g: 80, b: 90, a: 0), RGBA8(r: 100, g: 110, b: 120, a: 64)]
        let data = iconFile([IconEntry(width: 2, height: 2, data: dib(width: 2, height: 2, bits: 32, colors: colors, mask: [true, true, true, true]))])
        #expect(ImageFormat(sniffing: data) == .ico)
        let image = try ico.decode(data, options: straight)
        #expect(image.format == .ico && image.hasAlpha && image.pixelSize == PixelSize(width: 2, height: 2))
        #expect(Self.pixels(image) == colors)
    }

    @Test("a 32-bit entry whose alpha bytes are all zero is an old-style icon: opaque colours cut out by the AND mask")
    func zeroAlphaUsesMask() throws {
        let stored = [RGBA8(r: 1, g: 2, b: 3, a: 0), RGBA8(r: 4, g: 5, b: 6, a: 0), RGBA8(r: 7, g: 8, b: 9, a: 0), RGBA8(r: 10, g: 11, b: 12, a: 0)]
        let data = iconFile([IconEntry(width: 2, height: 2, data: dib(width: 2, height: 2, bits: 32, colors: stored, mask: [false, true, false, false]))])
        let image = try ico.decode(data, options: straight)
        let clear = RGBA8(r: 0, g: 0, b: 0, a: 0)
        #expect(Self.pixels(image) == [RGBA8(r: 1, g: 2, b: 3), clear, RGBA8(r: 7, g: 8, b: 9), RGBA8(r: 10, g: 11, b: 12)])
    }

    @Test("a 24-bit entry of odd width: rows and mask rows padded, the mask's set bits transparent")
    func twentyFourBitMask() throws {
        let colors: [RGBA8] = (0..<6).map { (i: Int) -> RGBA8 in
            let r = UInt8(i * 40), g = UInt8(200 - i * 30), b = UInt8(i + 1)
            return RGBA8(r: r, g: g, b: b)
        }
        let mask = [true, false, false, false, false, true]
        let data = iconFile([IconEntry(width: 3, height: 2, bits: 24, data: dib(width: 3, height: 2, bits: 24, colors: colors, mask: mask))])
        let image = try ico.decode(data, options: straight)
        let clear = RGBA8(r: 0, g: 0, b: 0, a: 0)
        #expect(Self.pixels(image) == [clear, colors[1], colors[2], colors[3], colors[4], clear])
        // The premultiplied decode agrees.
        #expect(try ico.decode(data, options: .default).buffer.converted(to: .rgba8) == image.buffer)
    }

    /// Four entries told apart by colour: 16x16 blue, 32x32 red at 24 bits, 32x32 green at 32 bits, 48x48 white.
    static func fourSizes() -> Data {
        let blue = RGBA8(r: 0, g: 0, b: 255), red = RGBA8(r: 255, g: 0, b: 0)
        let green = RGBA8(r: 0, g: 255, b: 0), white = RGBA8(r: 255, g: 255, b: 255)
        func entry(_ side: Int, _ bits: Int, _ color: RGBA8) -> IconEntry {
            IconEntry(
                width: side, height: side, bits: bits,
                data: dib(width: side, height: side, bits: bits, colors: solid(color, side * side), mask: [Bool](repeating: false, count: side * side)))
        }
        return iconFile([entry(16, 32, blue), entry(32, 24, red), entry(32, 32, green), entry(48, 32, white)])
    }

    @Test("the largest entry by default; with a thumbnail size, the smallest covering entry, the deepest of equal sizes")
    func entryChoice() throws {
        let data = Self.fourSizes()
        let entries = try ICOCoder.entries(of: data)
        #expect(entries.map(\.width) == [16, 32, 32, 48] && entries.map(\.bitCount) == [32, 24, 32, 32])
        #expect(entries.allSatisfy { !$0.isPNG && $0.hotspot == nil })
        let info = try ico.info(of: data)
        #expect(info.pixelSize == PixelSize(width: 48, height: 48) && info.bitDepth == 8 && info.frameCount == 1)
        /// The chosen entry's size and first colour, as "32x32 rgba(0,255,0,255)".
        func chosen(_ target: PixelSize?) throws -> String {
            let image = try ico.decode(data, options: DecodeOptions(pixelFormat: .rgba8, thumbnailPixelSize: target))
            return "\(image.pixelSize) " + (image.buffer.color(atX: 0, y: 0).map(\.description) ?? "none")
        }
        #expect(try chosen(nil) == "48x48 rgba(255,255,255,255)")
        #expect(try chosen(PixelSize(width: 20, height: 20)) == "32x32 rgba(0,255,0,255)")
        #expect(try chosen(PixelSize(width: 10, height: 16)) == "16x16 rgba(0,0,255,255)")
        #expect(try chosen(PixelSize(width: 100, height: 100)) == "48x48 rgba(255,255,255,255)")
        // Through the registry too.
        let registry = ImageCoderRegistry.makeDefault()
        #expect(try registry.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 30, height: 30))).pixelSize.width == 32)
    }

    @Test("a cursor's entries carry hotspots instead of bit counts, and it decodes as CUR")
    func cursorHotspots() throws {
        let white = solid(RGBA8(r: 255, g: 255, b: 255), 4)
        let data = iconFile(
            type: 2,
            [IconEntry(width: 2, height: 2, planes: 5, bits: 7, data: dib(width: 2, height: 2, bits: 32, colors: white, mask: [false, false, false, false]))])
        #expect(ImageFormat(sniffing: data) == .cur)
        let entries = try ICOCoder.entries(of: data)
        #expect(entries.map(\.hotspot) == [ICOCoder.Hotspot(x: 5, y: 7)] && entries.map(\.bitCount) == [0])
        #expect(try ico.info(of: data).format == .cur)
        #expect(try ico.info(of: data).bitDepth == 8)
        let image = try ico.decode(data, options: straight)
        #expect(image.format == .cur && Self.pixels(image) == white)
    }
}

@Suite("ICO damage, limits and encoding")
struct ICODamageAndEncodingTests {
    let ico = ICOCoder()
    private let entry = IconEntry(
        width: 2, height: 2,
        data: dib(width: 2, height: 2, bits: 32, colors: solid(RGBA8(r: 9, g: 9, b: 9), 4), mask: [false, false, false, false]))

    @Test("entries pointing outside the file, or empty, are skipped; with none left the icon is corrupt")
    func outOfFileEntries() throws {
        var past = entry
        past.offset = 10_000
        var empty = entry
        empty.length = 0
        var long = entry
        long.length = 100_000
        let mixed = iconFile([past, empty, long, entry])
        let entries = try ICOCoder.entries(of: mixed)
        #expect(entries.count == 1 && entries.first?.length == entry.data.count)
        #expect(try ico.decode(mixed, options: .default).pixelSize == PixelSize(width: 2, height: 2))
        #expect(codingFailure { try ico.decode(iconFile([past, empty, long]), options: .default) } == "corrupt ico")
        // An entry pointing into the directory itself is not an image either.
        var inside = entry
        inside.offset = 6
        #expect(codingFailure { try ICOCoder.entries(of: iconFile([inside])) } == "corrupt ico")
    }

    @Test("an empty directory, a directory cut short, a height not doubled: typed errors")
    func damagedDirectories() {
        #expect(codingFailure { try ico.decode(Data([0, 0, 1, 0, 0, 0]), options: .default) } == "corrupt ico")
        #expect(codingFailure { try ico.decode(Data([0, 0, 2, 0, 0, 0]), options: .default) } == "corrupt cur")
        #expect(codingFailure { try ico.decode(Data([0, 0, 3, 0, 1, 0]), options: .default) } == "corrupt ico")
        #expect(codingFailure { try ico.decode(iconFile(count: 200, [entry]), options: .default) } == "truncated ico")
        var odd = entry
        odd.data = dib(width: 2, height: 2, bits: 32, colors: solid(RGBA8(r: 9, g: 9, b: 9), 4), mask: [false, false, false, false], statedHeight: 3)
        #expect(codingFailure { try ico.decode(iconFile([odd]), options: .default) } == "corrupt ico")
        let file = iconFile([entry])
        for n in 0..<file.count {
            let failure = codingFailure { try ico.decode(file.prefix(n), options: .default) }
            #expect(failure.hasPrefix("corrupt") || failure.hasPrefix("truncated"), "\(n) bytes: \(failure)")
        }
    }

    @Test("an entry claiming 20000x20000 pixels is refused by the limits before allocating; maxBytes applies")
    func limits() {
        var huge = entry
        huge.data = le32(40) + le32(20_000) + le32(40_000) + le16(1) + le16(32) + [UInt8](repeating: 0, count: 24)
        let data = iconFile([huge])
        #expect(codingFailure { try ico.decode(data, options: .default) } == "exceedsLimit maxPixels")
        #expect(codingFailure { try ico.decode(data, options: DecodeOptions(limits: .unlimited)) }.hasPrefix("truncated"))
        let small = iconFile([entry])
        #expect(codingFailure { try ico.decode(small, options: DecodeOptions(limits: DecodingLimits(maxBytes: 20))) } == "exceedsLimit maxBytes")
        #expect(codingFailure { try ico.decode(small, options: DecodeOptions(limits: DecodingLimits(maxPixels: 3))) } == "exceedsLimit maxPixels")
    }

    @Test("the encoder writes one PNG entry after a 22-byte directory; it decodes back exactly, at full size whatever thumbnail is asked")
    func encodesOnePNG() throws {
        let source = try Fixtures.gradient(width: 16, height: 12, alpha: true)
        let data = try ico.encode(Image(buffer: source), as: .ico, options: .default)
        #expect([UInt8](data.prefix(8)) == [0, 0, 1, 0, 1, 0, 16, 12])
        let entries = try ICOCoder.entries(of: data)
        #expect(entries.count == 1)
        let first = try #require(entries.first)
        #expect(first.isPNG && first.offset == 22 && first.length == data.count - 22 && first.bitCount == 32)
        #expect(ImageFormat(sniffing: data.suffix(from: 22)) == .png)
        let back = try ico.decode(data, options: DecodeOptions(pixelFormat: .rgba8, thumbnailPixelSize: PixelSize(width: 4, height: 4)))
        #expect(back.format == .ico && back.buffer.format == .rgba8)
        #expect(Fixtures.difference(back.buffer, source).max == 0)
    }

    @Test("a side of 256 is stored as 0 and read back as 256; 257 is refused; only ICO is written")
    func sideLimits() throws {
        let wide = Image(buffer: try Fixtures.gradient(width: 256, height: 1))
        let data = try ico.encode(wide, as: .ico, options: .default)
        #expect(data[6] == 0 && data[7] == 1)
        #expect(try ICOCoder.entries(of: data).map(\.width) == [256])
        #expect(try ico.decode(data, options: .default).pixelSize == PixelSize(width: 256, height: 1))
        let tooWide = Image(buffer: try Fixtures.gradient(width: 257, height: 1))
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 257, limit: 256)) {
            _ = try ico.encode(tooWide, as: .ico, options: .default)
        }
        #expect(throws: ImageCodingError.encoderUnavailable(.png)) { _ = try ico.encode(wide, as: .png, options: .default) }
    }

    @Test("an animation becomes an icon of its first frame")
    func firstFrameOnly() throws {
        let first = try Fixtures.coordinates(width: 8, height: 8)
        let second = try Fixtures.gradient(width: 8, height: 8)
        let animation = try Image(frames: [ImageFrame(buffer: first, duration: 0.1), ImageFrame(buffer: second, duration: 0.1)])
        let data = try ico.encode(animation, as: .ico, options: .default)
        let back = try ico.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(back.frameCount == 1 && Fixtures.difference(back.buffer, first).max == 0)
    }
}
