// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
private func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }

/// A hand-made BMP file: the file header, a BITMAPINFOHEADER-style DIB header of `dibSize` bytes,
/// the bit-field masks (inside a header larger than 40 bytes, after it otherwise), the palette,
/// then the pixel bytes as given.
private struct BMPSpec {
    var width: Int
    var height: Int  // negative for top-down rows
    var bits: Int
    var compression = 0
    var dibSize = 40
    var planes = 1
    var masks: [UInt32] = []
    var palette: [RGBA8] = []
    var colorsUsed = 0
    var density = 2835
    var sizeImage = 0
    var statedFileSize: Int?
    var pixels: [UInt8] = []

    var data: Data {
        var dib: [UInt8] = le32(dibSize) + le32(width) + le32(height) + le16(planes) + le16(bits)
        dib += le32(compression) + le32(sizeImage) + le32(density) + le32(density) + le32(colorsUsed) + le32(0)
        var afterHeader: [UInt8] = []
        for m in masks {
            if dibSize > 40 { dib += le32(Int(m)) } else { afterHeader += le32(Int(m)) }
        }
        dib += [UInt8](repeating: 0, count: max(0, dibSize - dib.count))
        for c in palette { afterHeader += [c.b, c.g, c.r, 0] }
        let offset = 14 + dib.count + afterHeader.count
        var file: [UInt8] = Array("BM".utf8) + le32(statedFileSize ?? offset + pixels.count) + le32(0) + le32(offset)
        file += dib + afterHeader + pixels
        return Data(file)
    }
}

/// Rows padded to 4 bytes, bottom row first unless `topDown`.
private func stored(_ rows: [[UInt8]], topDown: Bool = false) -> [UInt8] {
    let ordered = topDown ? rows : Array(rows.reversed())
    return ordered.flatMap { $0 + [UInt8](repeating: 0, count: (4 - $0.count % 4) % 4) }
}

/// Palette indices packed most significant bits first, `bits` per pixel.
private func packed(_ indices: [Int], bits: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: (indices.count * bits + 7) / 8)
    for (x, index) in indices.enumerated() {
        let bit = x * bits
        out[bit / 8] |= UInt8(index << (8 - bits - bit % 8))
    }
    return out
}

/// A straight RGBA buffer of `colors`, `width` to a row.
private func rgba(_ width: Int, _ colors: [RGBA8]) throws -> PixelBuffer {
    try PixelBuffer(width: width, height: colors.count / width, format: .rgba8, bytes: colors.flatMap { [$0.r, $0.g, $0.b, $0.a] })
}

/// The case of the `ImageCodingError` `body` throws, with its format or limit: "corrupt bmp",
/// "exceedsLimit maxPixels", "no error" and so on.
func codingFailure<T>(_ body: () throws -> T) -> String {
    do {
        _ = try body()
        return "no error"
    } catch let error as ImageCodingError {
        switch error {
        case .truncated(let f, _): return "truncated \(f.rawValue)"
        case .corrupt(let f, _): return "corrupt \(f.rawValue)"
        case .unsupportedFeature(let f, _): return "unsupportedFeature \(f.rawValue)"
        case .exceedsLimit(let kind, _, _): return "exceedsLimit \(kind.rawValue)"
        case .unsupportedFormat(let f): return "unsupportedFormat \(f?.rawValue ?? "nil")"
        case .encoderUnavailable(let f): return "encoderUnavailable \(f.rawValue)"
        case .invalidArgument: return "invalidArgument"
        default: return String(describing: error)
        }
    } catch {
        return "untyped \(error)"
    }
}

@Suite("BMP variants made by hand: depths, row order, bit fields, RLE, damage, limits, the encoder's layout")
struct BMPVariantTests {
    let bmp = BMPCoder()
    let straight = DecodeOptions(pixelFormat: .rgba8)

    @Test("1, 2, 4 and 8-bit palette images give their palette colours at every position in a byte", arguments: [1, 2, 4, 8])
    func paletteDepths(bits: Int) throws {
        let colors: [RGBA8] = (0..<(1 << bits)).map { (i: Int) -> RGBA8 in
            let r = UInt8(i * 37 % 256), g = UInt8(255 - i), b = UInt8(i * 91 % 256)
            return RGBA8(r: r, g: g, b: b)
        }
        let width = 11, height = 3
        let index: (Int, Int) -> Int = { x, y in (x * 3 + y * 5) % (1 << bits) }
        let rows = (0..<height).map { y in packed((0..<width).map { index($0, y) }, bits: bits) }
        let data = BMPSpec(width: width, height: height, bits: bits, palette: colors, pixels: stored(rows)).data
        #expect(ImageFormat(sniffing: data) == .bmp)
        let info = try bmp.info(of: data)
        #expect(info.pixelSize == PixelSize(width: 11, height: 3) && info.bitDepth == bits && !info.hasAlpha)
        let image = try bmp.decode(data, options: straight)
        #expect(image.format == .bmp && !image.hasAlpha)
        let expected = try rgba(width, (0..<height).flatMap { y in (0..<width).map { colors[index($0, y)] } })
        #expect(image.buffer == expected)
        // The default premultiplied decode holds the same opaque colours.
        #expect(try bmp.decode(data, options: .default).buffer.converted(to: .rgba8) == expected)
    }

    @Test("a short palette (colours used) is honoured; an index past it is corrupt, not read out of bounds")
    func shortPalette() throws {
        let colors = [RGBA8(r: 1, g: 2, b: 3), RGBA8(r: 250, g: 251, b: 252)]
        let good = BMPSpec(width: 3, height: 1, bits: 8, palette: colors, colorsUsed: 2, pixels: stored([[1, 0, 1]])).data
        #expect(try bmp.decode(good, options: straight).buffer == rgba(3, [colors[1], colors[0], colors[1]]))
        let bad = BMPSpec(width: 3, height: 1, bits: 8, palette: colors, colorsUsed: 2, pixels: stored([[1, 5, 1]])).data
        #expect(codingFailure { try bmp.decode(bad, options: straight) } == "corrupt bmp")
        let none = BMPSpec(width: 3, height: 1, bits: 8, colorsUsed: 1 << 17, pixels: stored([[0, 0, 0]])).data
        #expect(codingFailure { try bmp.decode(none, options: straight) } == "corrupt bmp")
    }

    @Test("24-bit rows bottom-up and top-down (negative height) decode to the same picture")
    func rowOrder() throws {
        let width = 5, height = 4
        var colors: [RGBA8] = []
        for y in 0..<height {
            for x in 0..<width { colors.append(RGBA8(r: UInt8(x * 50), g: UInt8(y * 60), b: UInt8(200 - x - y))) }
        }
        let rows: [[UInt8]] = (0..<height).map { (y: Int) -> [UInt8] in
            var row: [UInt8] = []
            for x in 0..<width {
                let c = colors[y * width + x]
                row += [c.b, c.g, c.r]
            }
            return row
        }
        let bottomUp = BMPSpec(width: width, height: height, bits: 24, pixels: stored(rows)).data
        let topDown = BMPSpec(width: width, height: -height, bits: 24, pixels: stored(rows, topDown: true)).data
        let expected = try rgba(width, colors)
        #expect(try bmp.decode(bottomUp, options: straight).buffer == expected)
        #expect(try bmp.decode(topDown, options: straight).buffer == expected)
        #expect(try bmp.info(of: topDown).pixelSize == PixelSize(width: 5, height: 4))
        #expect(try bmp.info(of: topDown).bitDepth == 8)
    }

    @Test("16-bit: 5-5-5 by default and 5-6-5 bit fields scale each channel to 8 bits with rounding")
    func sixteenBit() throws {
        // 5-bit levels 0, 1, 16, 31 -> 0, 8, 132, 255; 6-bit 1, 32, 63 -> 4, 130, 255.
        let words555 = [0x7C00, 0x03E0, 0x001F, 0x4000 | 0x0020 | 0x0001]
        let data555 = BMPSpec(width: 4, height: 1, bits: 16, pixels: stored([words555.flatMap(le16)])).data
        #expect(
            try bmp.decode(data555, options: straight).buffer
                == rgba(4, [RGBA8(r: 255, g: 0, b: 0), RGBA8(r: 0, g: 255, b: 0), RGBA8(r: 0, g: 0, b: 255), RGBA8(r: 132, g: 8, b: 8)]))
        let words565 = [0xF800, 0x07E0, 0x001F, 0x0020, 0x0400, 0x8000 | 0x0001]
        let data565 = BMPSpec(
            width: 6, height: 1, bits: 16, compression: 3, masks: [0xF800, 0x07E0, 0x001F],
            pixels: stored([words565.flatMap(le16)])
        ).data
        let expected565 = [
            RGBA8(r: 255, g: 0, b: 0), RGBA8(r: 0, g: 255, b: 0), RGBA8(r: 0, g: 0, b: 255),
            RGBA8(r: 0, g: 4, b: 0), RGBA8(r: 0, g: 130, b: 0), RGBA8(r: 132, g: 0, b: 8)
        ]
        #expect(try bmp.decode(data565, options: straight).buffer == rgba(6, expected565))
        #expect(try !bmp.info(of: data565).hasAlpha)
    }

    @Test("32-bit: BI_RGB ignores the fourth byte; a V5 header's alpha mask makes it alpha, kept exactly when asked straight")
    func thirtyTwoBit() throws {
        let bgra: [UInt8] = [10, 20, 30, 0, 40, 50, 60, 128, 70, 80, 90, 255]
        let plain = BMPSpec(width: 3, height: 1, bits: 32, pixels: bgra).data
        let opaque = try bmp.decode(plain, options: straight)
        #expect(!opaque.hasAlpha)
        #expect(opaque.buffer == (try rgba(3, [RGBA8(r: 30, g: 20, b: 10), RGBA8(r: 60, g: 50, b: 40), RGBA8(r: 90, g: 80, b: 70)])))
        let v5 = BMPSpec(width: 3, height: 1, bits: 32, dibSize: 124, masks: [0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000], pixels: bgra).data
        #expect(try bmp.info(of: v5).hasAlpha)
        let alpha = try bmp.decode(v5, options: straight)
        #expect(alpha.hasAlpha)
        #expect(
            alpha.buffer == (try rgba(3, [RGBA8(r: 30, g: 20, b: 10, a: 0), RGBA8(r: 60, g: 50, b: 40, a: 128), RGBA8(r: 90, g: 80, b: 70)])))
        // Premultiplied, the transparent pixel loses its colour.
        #expect(try bmp.decode(v5, options: .default).buffer.color(atX: 0, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
    }

    @Test("a channel mask wider than 24 bits scales to 8 bits without overflowing (the bmp fuzz target's find)")
    func wideFields() throws {
        // Red takes all 32 bits, green and blue none: red is the top byte of the word, rounded.
        let words: [UInt32] = [0xFFFF_FFFF, 0x8000_0000, 0x1234_5678]
        let data = BMPSpec(
            width: 3, height: 1, bits: 32, compression: 3, dibSize: 108, masks: [0xFFFF_FFFF, 0, 0, 0], pixels: words.flatMap { le32(Int($0)) }
        ).data
        let expected = [RGBA8(r: 255, g: 0, b: 0), RGBA8(r: 128, g: 0, b: 0), RGBA8(r: 18, g: 0, b: 0)]
        #expect(try bmp.decode(data, options: straight).buffer == rgba(3, expected))
    }

    @Test("32-bit bit fields of 10 bits a channel (V4 header) scale to 8 bits; a mask with a gap is corrupt")
    func tenBitFields() throws {
        let masks: [UInt32] = [0x3FF, 0xFFC00, 0x3FF0_0000, 0]
        // r 1023, g 512, b 0 -> 255, 128, 0; r 0, g 0, b 1023 -> 0, 0, 255.
        let words = [1023 | 512 << 10, 1023 << 20]
        let data = BMPSpec(width: 2, height: 1, bits: 32, compression: 3, dibSize: 108, masks: masks, pixels: words.flatMap(le32)).data
        #expect(try bmp.decode(data, options: straight).buffer == rgba(2, [RGBA8(r: 255, g: 128, b: 0), RGBA8(r: 0, g: 0, b: 255)]))
        let gap = BMPSpec(width: 2, height: 1, bits: 32, compression: 3, dibSize: 108, masks: [0xFF_00FF, 0xFF00, 0, 0], pixels: words.flatMap(le32)).data
        #expect(codingFailure { try bmp.decode(gap, options: straight) } == "corrupt bmp")
        // A 16-bit mask reaching past 16 bits is as bad.
        let wide = BMPSpec(width: 2, height: 1, bits: 16, compression: 3, masks: [0x1_F000, 0x0FC0, 0x003F], pixels: [0, 0, 0, 0]).data
        #expect(codingFailure { try bmp.decode(wide, options: straight) } == "corrupt bmp")
    }
}

@Suite("BMP run-length encoding made by hand")
struct BMPRunLengthTests {
    let bmp = BMPCoder()
    let palette = [RGBA8(r: 0, g: 0, b: 0), RGBA8(r: 255, g: 0, b: 0), RGBA8(r: 0, g: 255, b: 0), RGBA8(r: 0, g: 0, b: 255)]
    let clear = RGBA8(r: 0, g: 0, b: 0, a: 0)

    @Test("RLE8: runs, end of line, delta and an absolute run padded to 16 bits; skipped pixels stay transparent")
    func rle8() throws {
        let stream: [UInt8] = [
            2, 1,  // bottom row: two pixels of colour 1
            0, 0,  // end of line
            0, 2, 1, 0,  // delta: one pixel right
            0, 3, 2, 3, 1, 0,  // absolute: colours 2, 3, 1, padded
            0, 1  // end of bitmap
        ]
        let data = BMPSpec(width: 4, height: 2, bits: 8, compression: 1, palette: palette, pixels: stream).data
        #expect(try bmp.info(of: data).hasAlpha)
        let image = try bmp.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(image.hasAlpha)
        let expected = [clear, palette[2], palette[3], palette[1], palette[1], palette[1], clear, clear]
        #expect(image.buffer == (try rgba(4, expected)))
    }

    @Test("RLE4: a run alternates its two nibbles; an absolute run of odd length reads the high nibble last")
    func rle4() throws {
        let stream: [UInt8] = [5, 0x12, 0, 0, 0, 3, 0x32, 0x10, 0, 1]
        let data = BMPSpec(width: 5, height: 2, bits: 4, compression: 2, palette: palette, pixels: stream).data
        let image = try bmp.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        let top = [palette[3], palette[2], palette[1], clear, clear]
        let bottom = [palette[1], palette[2], palette[1], palette[2], palette[1]]
        #expect(image.buffer == (try rgba(5, top + bottom)))
    }

    @Test("a run past the row's end or a colour past the palette is corrupt; a stream cut short keeps what was drawn")
    func rleDamage() throws {
        let overrun = BMPSpec(width: 4, height: 1, bits: 8, compression: 1, palette: palette, pixels: [6, 1, 0, 1]).data
        #expect(codingFailure { try bmp.decode(overrun, options: .default) } == "corrupt bmp")
        let badColour = BMPSpec(width: 4, height: 1, bits: 8, compression: 1, palette: palette, pixels: [2, 9, 0, 1]).data
        #expect(codingFailure { try bmp.decode(badColour, options: .default) } == "corrupt bmp")
        let cut = BMPSpec(width: 4, height: 1, bits: 8, compression: 1, palette: palette, pixels: [2, 3]).data
        let image = try bmp.decode(cut, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(image.buffer == (try rgba(4, [palette[3], palette[3], clear, clear])))
    }

    @Test("RLE cannot be top-down, and RLE8 cannot hold 4-bit pixels")
    func rleHeaders() {
        let topDown = BMPSpec(width: 4, height: -1, bits: 8, compression: 1, palette: palette, pixels: [0, 1]).data
        #expect(codingFailure { try bmp.decode(topDown, options: .default) } == "corrupt bmp")
        let mismatch = BMPSpec(width: 4, height: 1, bits: 4, compression: 1, palette: palette, pixels: [0, 1]).data
        #expect(codingFailure { try bmp.decode(mismatch, options: .default) } == "corrupt bmp")
    }
}

@Suite("BMP damage and limits: typed errors from the header, before any pixel is allocated")
struct BMPDamageTests {
    let bmp = BMPCoder()
    let gray = [RGBA8(r: 0, g: 0, b: 0), RGBA8(r: 255, g: 255, b: 255)]

    /// A 4x4 24-bit image, with its header's fields changed by `change`.
    fileprivate static func rgb(_ change: (inout BMPSpec) -> Void = { _ in }) -> Data {
        var spec = BMPSpec(width: 4, height: 4, bits: 24, pixels: [UInt8](repeating: 0x80, count: 48))
        change(&spec)
        return spec.data
    }

    @Test("impossible headers: planes, bit counts, sizes, densities and compressions")
    func impossibleHeaders() {
        #expect(codingFailure { try bmp.decode(Self.rgb(), options: .default) } == "no error")
        let corrupt: [Data] = [
            Self.rgb { $0.planes = 2 },
            Self.rgb { $0.bits = 3 },
            Self.rgb { $0.width = 0 },
            Self.rgb { $0.height = Int(Int32.min) },
            Self.rgb { $0.density = -1 },
            Self.rgb { $0.density = 2_000_000 },
            Self.rgb { $0.compression = 3 },  // bit fields on 24-bit pixels
            Self.rgb { $0.compression = 7 }
        ]
        for (i, data) in corrupt.enumerated() {
            #expect(codingFailure { try bmp.decode(data, options: .default) } == "corrupt bmp", "case \(i)")
            #expect(codingFailure { try bmp.info(of: data) } == "corrupt bmp", "case \(i)")
        }
        // Embedded JPEG and OS/2 2.x Huffman are recognised, and said to be unsupported.
        #expect(codingFailure { try bmp.decode(Self.rgb { $0.compression = 4 }, options: .default) } == "unsupportedFeature bmp")
        let huffman = BMPSpec(width: 8, height: 1, bits: 1, compression: 3, dibSize: 64, palette: gray, pixels: [0, 0, 0, 0]).data
        #expect(codingFailure { try bmp.decode(huffman, options: .default) } == "unsupportedFeature bmp")
    }

    @Test("an unknown header size is corrupt to the coder and not a BMP to the registry; no signature is corrupt")
    func unknownHeader() {
        let odd = Self.rgb { $0.dibSize = 44 }
        #expect(ImageFormat(sniffing: odd) == nil)
        #expect(codingFailure { try bmp.decode(odd, options: .default) } == "corrupt bmp")
        #expect(codingFailure { try ImageCoderRegistry.makeDefault().decode(odd) } == "unsupportedFormat nil")
        var unsigned = Self.rgb()
        unsigned[1] = UInt8(ascii: "X")
        #expect(codingFailure { try bmp.decode(unsigned, options: .default) } == "corrupt bmp")
    }

    @Test("short files: a stated size past the end, pixel rows missing, an image size past the end")
    func shortFiles() {
        let full = Self.rgb()
        #expect(codingFailure { try bmp.decode(Self.rgb { $0.statedFileSize = full.count + 1 }, options: .default) } == "truncated bmp")
        let twoRows = Self.rgb {
            $0.statedFileSize = 0
            $0.pixels.removeLast(24)
        }
        #expect(codingFailure { try bmp.decode(twoRows, options: .default) } == "truncated bmp")
        #expect(codingFailure { try bmp.info(of: twoRows) } == "no error")
        #expect(codingFailure { try bmp.decode(Self.rgb { $0.sizeImage = 1000 }, options: .default) } == "truncated bmp")
    }

    @Test("every cut of a file that states its size is reported as truncated; without a stated size, typed errors all the same")
    func everyCut() {
        let stated = Self.rgb()
        for n in 2..<stated.count {
            #expect(codingFailure { try bmp.decode(stated.prefix(n), options: .default) } == "truncated bmp", "\(n) bytes")
        }
        let unstated = Self.rgb { $0.statedFileSize = 0 }
        for n in 0..<unstated.count {
            let failure = codingFailure { try bmp.decode(unstated.prefix(n), options: .default) }
            #expect(failure == "truncated bmp" || failure == "corrupt bmp", "\(n) bytes: \(failure)")
        }
    }

    @Test("a header claiming 100000x100000 pixels is refused by the limits; unlimited, by the missing data, never allocated")
    func hugeHeader() throws {
        let huge = BMPSpec(width: 100_000, height: -100_000, bits: 24, statedFileSize: 0).data
        #expect(try bmp.info(of: huge).pixelSize == PixelSize(width: 100_000, height: 100_000))
        #expect(codingFailure { try bmp.decode(huge, options: .default) } == "exceedsLimit maxPixels")
        #expect(codingFailure { try bmp.decode(huge, options: DecodeOptions(limits: .unlimited)) } == "truncated bmp")
        let wide = BMPSpec(width: Int(Int32.max), height: 1, bits: 32, statedFileSize: 0).data
        #expect(codingFailure { try bmp.decode(wide, options: DecodeOptions(limits: .unlimited)) } == "truncated bmp")
    }

    @Test("maxPixels and maxBytes apply to small images too, through the coder and the registry")
    func smallLimits() throws {
        let data = Self.rgb()
        let coders = ImageCoderRegistry.makeDefault()
        #expect(codingFailure { try bmp.decode(data, options: DecodeOptions(limits: DecodingLimits(maxPixels: 15))) } == "exceedsLimit maxPixels")
        #expect(try bmp.decode(data, options: DecodeOptions(limits: DecodingLimits(maxPixels: 16))).pixelSize == PixelSize(width: 4, height: 4))
        let tight = DecodeOptions(limits: DecodingLimits(maxBytes: data.count - 1))
        #expect(codingFailure { try bmp.decode(data, options: tight) } == "exceedsLimit maxBytes")
        #expect(codingFailure { try coders.decode(data, options: tight) } == "exceedsLimit maxBytes")
        #expect(try coders.decode(data, options: DecodeOptions(limits: DecodingLimits(maxBytes: data.count))).format == .bmp)
    }
}

@Suite("The BMP encoder's layout: 24-bit when opaque, 32-bit bit fields with alpha, bottom-up, sRGB")
struct BMPEncoderLayoutTests {
    let bmp = BMPCoder()

    static func u32(_ data: Data, _ at: Int) -> Int {
        let b = [UInt8](data[at..<(at + 4)])
        return Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16 | Int(b[3]) << 24
    }

    static func u16(_ data: Data, _ at: Int) -> Int {
        let b = [UInt8](data[at..<(at + 2)])
        return Int(b[0]) | Int(b[1]) << 8
    }

    @Test("an opaque image: BITMAPV4HEADER, 24 bits, rows padded to 4 bytes, the bottom row first, BGR")
    func opaqueLayout() throws {
        let source = try Fixtures.coordinates(width: 5, height: 3)
        let data = try bmp.encode(Image(buffer: source), as: .bmp, options: .default)
        #expect(data.count == 122 + 16 * 3)
        #expect([UInt8](data.prefix(2)) == Array("BM".utf8))
        #expect(Self.u32(data, 2) == data.count && Self.u32(data, 10) == 122 && Self.u32(data, 14) == 108)
        #expect(Self.u32(data, 18) == 5 && Self.u32(data, 22) == 3 && Self.u16(data, 26) == 1 && Self.u16(data, 28) == 24)
        #expect(Self.u32(data, 30) == 0 && Self.u32(data, 34) == 48 && Self.u32(data, 38) == 2835)
        #expect([UInt8](data[70..<74]) == Array("BGRs".utf8))  // 'sRGB', little-endian
        // The first stored row is the image's last: pixel (0, 2) is r 0, g 2, b 7.
        #expect([UInt8](data[122..<125]) == [7, 2, 0])
        #expect(data[122 + 15] == 0)  // row padding
        let back = try bmp.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(back.buffer == source && !back.hasAlpha)
        #expect(try !bmp.info(of: data).hasAlpha)
    }

    @Test("an image with transparency: 32 bits with BI_BITFIELDS masks that include alpha, read back exactly")
    func alphaLayout() throws {
        let colors: [UInt8] = [1, 2, 3, 0, 4, 5, 6, 100, 7, 8, 9, 255, 10, 11, 12, 254, 13, 14, 15, 1, 16, 17, 18, 255]
        let source = try PixelBuffer(width: 3, height: 2, format: .rgba8, bytes: colors)
        let data = try bmp.encode(Image(buffer: source), as: .bmp, options: .default)
        #expect(data.count == 122 + 12 * 2)
        #expect(Self.u16(data, 28) == 32 && Self.u32(data, 30) == 3)
        #expect(Self.u32(data, 54) == 0xFF_0000 && Self.u32(data, 58) == 0xFF00 && Self.u32(data, 62) == 0xFF)
        #expect(Self.u32(data, 66) == 0xFF00_0000)
        // Bottom row first: pixel (0, 1) is 10, 11, 12 at alpha 254, stored B, G, R, A.
        #expect([UInt8](data[122..<126]) == [12, 11, 10, 254])
        #expect(try bmp.info(of: data).hasAlpha)
        #expect(try bmp.decode(data, options: DecodeOptions(pixelFormat: .rgba8)).buffer == source)
    }

    @Test("orientation is always baked into the pixels, even when EXIF orientation is asked for")
    func orientationBaked() throws {
        let source = Image(buffer: try Fixtures.coordinates(width: 5, height: 3), orientation: .right)
        let upright = source.applyingOrientation().buffer
        for handling in [EncodeOptions.OrientationHandling.bake, .writeEXIF] {
            let data = try bmp.encode(source, as: .bmp, options: EncodeOptions(orientation: handling))
            let back = try bmp.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            #expect(back.pixelSize == PixelSize(width: 3, height: 5) && back.orientation == .up)
            #expect(Fixtures.difference(back.buffer, upright).max == 0)
        }
    }

    @Test("another format, options out of range and images too large for 32-bit sizes are refused")
    func refusals() throws {
        let image = Image(buffer: try Fixtures.gradient(width: 2, height: 2))
        #expect(codingFailure { try bmp.encode(image, as: .png, options: .default) } == "encoderUnavailable png")
        #expect(codingFailure { try bmp.encode(image, as: .bmp, options: EncodeOptions(quality: 2)) } == "invalidArgument")
        #expect(codingFailure { try BMPCoder.header(width: 70_000, height: 70_000, opaque: false) } == "invalidArgument")
        #expect(try BMPCoder.header(width: 7, height: 2, opaque: true).stride == 24)
    }
}
