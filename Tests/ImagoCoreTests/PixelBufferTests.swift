// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("PixelBuffer layout, conversion and orientation")
struct PixelBufferTests {
    @Test("size arithmetic is checked, never trapping")
    func checkedLayout() throws {
        #expect(throws: ImageCodingError.self) { try PixelBuffer(width: 0, height: 1, format: .rgba8) }
        #expect(throws: ImageCodingError.self) { try PixelBuffer(width: -5, height: 3, format: .rgba8) }
        #expect(throws: ImageCodingError.self) { try PixelBuffer.layout(width: Int.max, height: 2, format: .rgba8) }
        #expect(throws: ImageCodingError.self) { try PixelBuffer.layout(width: 1 << 31, height: 1 << 31, format: .rgba8) }
        #expect(throws: ImageCodingError.self) { try PixelBuffer(width: 2, height: 2, format: .rgba8, bytes: [1, 2, 3]) }
        #expect(throws: ImageCodingError.self) { try PixelBuffer(width: 4, height: 1, format: .rgba8, bytesPerRow: 8) }
        let padded = try PixelBuffer(width: 3, height: 2, format: .rgb8, bytesPerRow: 12)
        #expect(padded.bytes.count == 24)
    }

    @Test("premultiply and unpremultiply are exact")
    func premultiplyExact() {
        for a in 0...255 {
            for c in stride(from: 0, through: 255, by: 5) {
                let expected = UInt8((Double(c) * Double(a) / 255).rounded())
                #expect(PixelMath.premultiply(UInt8(c), UInt8(a)) == expected)
                if a > 0 {
                    let back = PixelMath.unpremultiply(expected, UInt8(a))
                    // Premultiplication loses precision at low alpha; the round trip stays within 255/(2a).
                    #expect(abs(Int(back) - c) <= 255 / (2 * a) + 1)
                }
            }
        }
    }

    @Test("conversion round-trips through every format", arguments: PixelFormat.allCases)
    func conversions(_ format: PixelFormat) throws {
        let source = try Fixtures.gradient(width: 17, height: 9, alpha: false)
        let back = source.converted(to: format).converted(to: .rgba8)
        if format.isColor {
            #expect(back == source)
        } else {
            let gray = source.converted(to: .gray8)
            #expect(back == gray.converted(to: .rgba8))
        }
        let display = try Fixtures.gradient(width: 5, height: 3, alpha: true).converted(to: .argb32Premultiplied)
        let off = PixelFormat.argbOffsets
        // Rightmost column has alpha 0: premultiplied colour must be 0.
        let o = (0 * 5 + 4) * 4
        #expect(display.bytes[o + off.a] == 0 && display.bytes[o + off.r] == 0)
    }

    @Test("flattening composites over the background")
    func flatten() throws {
        let px = try PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [255, 0, 0, 0, 255, 0, 0, 128])
        let flat = px.flattened(over: RGBA8(r: 0, g: 0, b: 255))
        #expect(flat.format == .rgb8)
        #expect(Array(flat.bytes[0..<3]) == [0, 0, 255])
        #expect(Array(flat.bytes[3..<6]) == [128, 0, 127])
    }

    /// Where the stored pixel (x, y) of a w×h image must appear after applying each orientation,
    /// from the EXIF definitions: the row/column the 0th row/column is shown as.
    static func expectedPosition(_ o: ImageOrientation, x: Int, y: Int, w: Int, h: Int) -> (Int, Int) {
        switch o {
        case .up: (x, y)
        case .upMirrored: (w - 1 - x, y)
        case .down: (w - 1 - x, h - 1 - y)
        case .downMirrored: (x, h - 1 - y)
        case .leftMirrored: (y, x)
        case .right: (h - 1 - y, x)
        case .rightMirrored: (h - 1 - y, w - 1 - x)
        case .left: (y, w - 1 - x)
        }
    }

    @Test("every orientation moves each pixel where EXIF says", arguments: ImageOrientation.allCases)
    func orientation(_ o: ImageOrientation) throws {
        let w = 7, h = 4
        for format in [PixelFormat.rgba8, .rgb8, .gray8] {
            let source = try Fixtures.coordinates(width: w, height: h).converted(to: format)
            let out = source.applyingOrientation(o)
            #expect(out.size == o.orientedSize(source.size))
            for y in 0..<h {
                for x in 0..<w {
                    let (dx, dy) = Self.expectedPosition(o, x: x, y: y, w: w, h: h)
                    #expect(out.color(atX: dx, y: dy) == source.color(atX: x, y: y))
                }
            }
        }
    }

    @Test("opacity scan")
    func opacity() throws {
        #expect(try Fixtures.gradient(width: 4, height: 4).isOpaque)
        #expect(try !Fixtures.gradient(width: 4, height: 4, alpha: true).isOpaque)
        #expect(try PixelBuffer(width: 2, height: 2, format: .rgb8).isOpaque)
    }
}

@Suite("Word-wise premultiplication")
struct PremultiplyWordTests {
    @Test("matches the exact per-channel formula for every alpha")
    func exhaustiveAlpha() throws {
        var bytes: [UInt8] = []
        for a in 0...255 {
            for c in [0, 1, 2, 127, 128, 200, 254, 255] {
                var px = [UInt8](repeating: 0, count: 4)
                let off = PixelFormat.argbOffsets
                px[off.r] = UInt8(c)
                px[off.g] = UInt8(255 - c)
                px[off.b] = UInt8(c / 2)
                px[off.a] = UInt8(a)
                bytes += px
            }
        }
        let width = bytes.count / 4
        var buffer = bytes
        buffer.withUnsafeMutableBytes { PixelBuffer.premultiplyARGB32InPlace($0, width: width, height: 1, bytesPerRow: width * 4) }
        let off = PixelFormat.argbOffsets
        for i in 0..<width {
            let o = i * 4, a = bytes[o + off.a]
            #expect(buffer[o + off.a] == a)
            for ch in [off.r, off.g, off.b] {
                #expect(buffer[o + ch] == PixelMath.premultiply(bytes[o + ch], a))
            }
        }
    }

    @Test("RGBA to premultiplied ARGB and back, word by word, match the per-channel formulas for every alpha, strided rows too")
    func rgbaRoundTrip() throws {
        // 256 alphas x 8 colours, in rows of 64 pixels padded to 260 bytes.
        let width = 64, rowBytes = 260
        var rgba: [UInt8] = []
        for a in 0...255 {
            for c in [0, 1, 2, 127, 128, 200, 254, 255] {
                rgba += [UInt8(c), UInt8(255 - c), UInt8(c / 2), UInt8(a)]
            }
        }
        let height = rgba.count / 4 / width
        var padded = [UInt8](repeating: 0xEE, count: rowBytes * height)
        for y in 0..<height { padded.replaceSubrange(y * rowBytes..<(y * rowBytes + width * 4), with: rgba[(y * width * 4)..<((y + 1) * width * 4)]) }
        let source = try PixelBuffer(width: width, height: height, format: .rgba8, bytesPerRow: rowBytes, bytes: padded)
        let premultiplied = source.converted(to: .argb32Premultiplied)
        let off = PixelFormat.argbOffsets
        for i in 0..<(width * height) {
            let r = rgba[i * 4], g = rgba[i * 4 + 1], b = rgba[i * 4 + 2], a = rgba[i * 4 + 3]
            let p = Array(premultiplied.bytes[(i * 4)..<(i * 4 + 4)])
            #expect(
                p[off.a] == a && p[off.r] == PixelMath.premultiply(r, a) && p[off.g] == PixelMath.premultiply(g, a)
                    && p[off.b] == PixelMath.premultiply(b, a), "pixel \(i)")
        }
        let back = premultiplied.converted(to: .rgba8)
        var inPlace = premultiplied
        inPlace.convert(to: .rgba8)
        #expect(inPlace == back)
        for i in 0..<(width * height) {
            let p = Array(premultiplied.bytes[(i * 4)..<(i * 4 + 4)]), a = p[off.a]
            #expect(
                Array(back.bytes[(i * 4)..<(i * 4 + 4)])
                    == [PixelMath.unpremultiply(p[off.r], a), PixelMath.unpremultiply(p[off.g], a), PixelMath.unpremultiply(p[off.b], a), a],
                "pixel \(i)")
            // Opaque pixels come back exactly.
            if a == 255 { #expect(Array(back.bytes[(i * 4)..<(i * 4 + 4)]) == Array(rgba[(i * 4)..<(i * 4 + 4)])) }
        }
    }

    @Test("converting in place gives what converting to a copy gives, for every pair of formats, strided too")
    func convertInPlace() throws {
        var bytes: [UInt8] = []
        for i in 0..<(7 * 40) { bytes.append(UInt8(truncatingIfNeeded: i &* 37 &+ 11)) }
        for source in PixelFormat.allCases {
            // 7x5 with rows padded to 40 bytes (at most 4 bytes x 7 pixels = 28 used).
            var original = try PixelBuffer(width: 7, height: 5, format: .rgba8, bytesPerRow: 40, bytes: Array(bytes.prefix(200)))
                .converted(to: source)
            if source == .argb32Premultiplied { original = original.converted(to: .rgba8).converted(to: source) }
            for target in PixelFormat.allCases {
                let copied = original.converted(to: target)
                var inPlace = original
                inPlace.convert(to: target)
                #expect(inPlace == copied, "\(source) -> \(target)")
                #expect(original.format == source, "the original is untouched")
            }
        }
        // A strided buffer converted in place keeps its pixels.
        var strided = try PixelBuffer(width: 7, height: 5, format: .rgba8, bytesPerRow: 40, bytes: Array(bytes.prefix(200)))
        let expected = strided.converted(to: .rgb8)
        strided.convert(to: .rgb8)
        #expect(strided == expected && strided.bytesPerRow == 21 && strided.bytes.count == 105)
    }
}
