// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

private struct InitializerFailure: Error, Equatable {}

@Suite("Pixel conversions: every pair of formats, gray, premultiplication, flattening, layout")
struct PixelConversionTests {
    /// An rgba8 buffer of `pixels`, row by row.
    static func rgba(_ width: Int, _ height: Int, _ pixels: [RGBA8]) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, format: .rgba8, bytes: pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] })
    }

    @Test("colour to gray is Rec. 601 luma, (299 r + 587 g + 114 b) / 1000 rounded; alpha is kept beside it")
    func luma() throws {
        let source = try Self.rgba(
            7, 1,
            [
                RGBA8(r: 255, g: 0, b: 0), RGBA8(r: 0, g: 255, b: 0), RGBA8(r: 0, g: 0, b: 255), RGBA8(r: 255, g: 255, b: 255),
                RGBA8(r: 0, g: 0, b: 0), RGBA8(r: 10, g: 20, b: 30, a: 40), RGBA8(r: 1, g: 1, b: 2, a: 0)
            ])
        // 76.245, 149.685, 29.07, 255, 0, 18.15, 1.114: the straight colour counts even under alpha 0.
        #expect(source.converted(to: .gray8).bytes == [76, 150, 29, 255, 0, 18, 1])
        #expect(source.converted(to: .grayAlpha8).bytes == [76, 255, 150, 255, 29, 255, 255, 255, 0, 255, 18, 40, 1, 0])
        // From premultiplied pixels, gray is the luma of the colour unpremultiplied first.
        let display = source.converted(to: .argb32Premultiplied)
        #expect(display.converted(to: .gray8) == display.converted(to: .rgba8).converted(to: .gray8))
        #expect(display.converted(to: .grayAlpha8) == display.converted(to: .rgba8).converted(to: .grayAlpha8))
    }

    @Test("opaque gray survives a trip through any two formats exactly", arguments: PixelFormat.allCases)
    func grayThroughPairs(_ first: PixelFormat) throws {
        let source = try Self.rgba(16, 16, (0..<256).map { RGBA8(r: UInt8($0), g: UInt8($0), b: UInt8($0)) })
        for second in PixelFormat.allCases {
            #expect(source.converted(to: first).converted(to: second).converted(to: .rgba8) == source, "\(first) -> \(second)")
        }
    }

    @Test("opaque colour survives every trip among the colour formats; through a gray format it becomes its luma")
    func colourThroughPairs() throws {
        let source = try Fixtures.noisy(width: 13, height: 7)
        let colour = PixelFormat.allCases.filter(\.isColor)
        #expect(colour == [.argb32Premultiplied, .rgba8, .rgb8])
        for a in colour {
            for b in colour {
                #expect(source.converted(to: a).converted(to: b).converted(to: .rgba8) == source, "\(a) -> \(b)")
            }
        }
        let gray = source.converted(to: .gray8)
        for a in PixelFormat.allCases {
            #expect(source.converted(to: a).converted(to: .gray8) == gray, "\(a)")
            #expect(gray.converted(to: a).converted(to: .gray8) == gray, "gray -> \(a)")
        }
    }

    @Test("straight alpha is exact between rgba8 and grayAlpha8; formats without alpha keep the straight colour and drop alpha")
    func straightAlpha() throws {
        var pairs: [UInt8] = []
        for v in stride(from: 0, through: 255, by: 15) {
            for a in stride(from: 0, through: 255, by: 17) { pairs += [UInt8(v), UInt8(a)] }
        }
        let grayAlpha = try PixelBuffer(width: pairs.count / 2, height: 1, format: .grayAlpha8, bytes: pairs)
        #expect(grayAlpha.converted(to: .rgba8).converted(to: .grayAlpha8) == grayAlpha)
        #expect(grayAlpha.converted(to: .gray8).bytes == stride(from: 0, to: pairs.count, by: 2).map { pairs[$0] })
        let clear = try Self.rgba(2, 1, [RGBA8(r: 200, g: 100, b: 50, a: 0), RGBA8(r: 9, g: 8, b: 7, a: 128)])
        #expect(clear.converted(to: .rgb8).bytes == [200, 100, 50, 9, 8, 7])
        #expect(clear.converted(to: .rgb8).converted(to: .rgba8).bytes == [200, 100, 50, 255, 9, 8, 7, 255])
        // Premultiplied, the colour under alpha 0 is gone for good.
        #expect(clear.converted(to: .argb32Premultiplied).converted(to: .rgba8).color(atX: 0, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
    }

    @Test("premultiplying rounds c × a / 255 to nearest; unpremultiplying rounds c × 255 / a, for every gray level")
    func premultipliedRounding() throws {
        let off = PixelFormat.argbOffsets
        var mismatches: [String] = []
        for a in [1, 2, 3, 64, 127, 128, 200, 254, 255] {
            var pairs: [UInt8] = []
            for v in 0...255 { pairs += [UInt8(v), UInt8(a)] }
            // grayAlpha8 to premultiplied and back takes the per-pixel path, not the RGBA word path.
            let display = try PixelBuffer(width: 256, height: 1, format: .grayAlpha8, bytes: pairs).converted(to: .argb32Premultiplied)
            let back = display.converted(to: .grayAlpha8)
            for v in 0...255 {
                let premultiplied = UInt8((Double(v) * Double(a) / 255).rounded())
                let p = Array(display.bytes[(v * 4)..<(v * 4 + 4)])
                if p[off.r] != premultiplied || p[off.g] != premultiplied || p[off.b] != premultiplied || p[off.a] != UInt8(a) {
                    mismatches.append("premultiply v \(v) a \(a): \(p)")
                }
                let unpremultiplied = UInt8(min(255, (Double(premultiplied) * 255 / Double(a)).rounded()))
                if back.bytes[v * 2] != unpremultiplied || back.bytes[v * 2 + 1] != UInt8(a) {
                    mismatches.append("unpremultiply v \(v) a \(a): \(back.bytes[v * 2])")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test("premultiplied colour above its alpha, which no premultiplication makes, reads back clamped to 255")
    func clamping() throws {
        let off = PixelFormat.argbOffsets
        var px = [UInt8](repeating: 0, count: 8)
        px[off.r] = 200
        px[off.g] = 100
        px[off.b] = 50
        px[off.a] = 100
        px[4 + off.r] = 64
        px[4 + off.g] = 32
        px[4 + off.b] = 0
        px[4 + off.a] = 128
        let buffer = try PixelBuffer(width: 2, height: 1, format: .argb32Premultiplied, bytes: px)
        // 200 × 255 / 100 = 510 and 100 × 255 / 100 = 255 clamp; 50 × 255 / 100 = 127.5 rounds up.
        #expect(buffer.color(atX: 0, y: 0) == RGBA8(r: 255, g: 255, b: 128, a: 100))
        #expect(buffer.color(atX: 1, y: 0) == RGBA8(r: 128, g: 64, b: 0, a: 128))
        #expect(buffer.converted(to: .rgba8).bytes == [255, 255, 128, 100, 128, 64, 0, 128])
        #expect(RGBA8(premultipliedR: 64, g: 32, b: 0, a: 128).description == "rgba(128,64,0,128)")
        #expect(RGBA8(premultipliedR: 9, g: 9, b: 9, a: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        #expect(buffer.color(atX: 2, y: 0) == nil && buffer.color(atX: -1, y: 0) == nil && buffer.color(atX: 0, y: 1) == nil)
    }

    @Test("the opacity scan reads only the alpha bytes inside rows, whatever the padding holds")
    func opacityScan() throws {
        // 2×2 rgba8 in 12-byte rows: 4 padding bytes of 0 after each row.
        var bytes = [UInt8](repeating: 0, count: 2 * 12)
        for y in 0..<2 { for x in 0..<2 { bytes[y * 12 + x * 4 + 3] = 255 } }
        #expect(try PixelBuffer(width: 2, height: 2, format: .rgba8, bytesPerRow: 12, bytes: bytes).isOpaque)
        bytes[12 + 4 + 3] = 254
        #expect(try !PixelBuffer(width: 2, height: 2, format: .rgba8, bytesPerRow: 12, bytes: bytes).isOpaque)
        let grayAlpha = try PixelBuffer(width: 3, height: 1, format: .grayAlpha8, bytes: [0, 255, 7, 255, 9, 255])
        #expect(grayAlpha.isOpaque && grayAlpha.converted(to: .argb32Premultiplied).isOpaque)
        #expect(try !PixelBuffer(width: 3, height: 1, format: .grayAlpha8, bytes: [0, 255, 7, 255, 255, 254]).isOpaque)
        #expect(try !Fixtures.gradient(width: 3, height: 1, alpha: true).converted(to: .argb32Premultiplied).isOpaque)
    }

    @Test("converting to the same format returns the buffer as it is, stride and all; any other format gives tight rows")
    func sameFormat() throws {
        let original = try Fixtures.noisy(width: 5, height: 3)
        let padded = try paddedCopy(of: original, extra: 3, fill: 0xAB)
        #expect(padded.converted(to: .rgba8) == padded && padded.converted(to: .rgba8).bytesPerRow == 23)
        var inPlace = padded
        inPlace.convert(to: .rgba8)
        #expect(inPlace == padded)
        for format in PixelFormat.allCases where format != .rgba8 {
            let tight = padded.converted(to: format)
            #expect(tight.bytesPerRow == 5 * format.bytesPerPixel && tight.bytes.count == 15 * format.bytesPerPixel, "\(format)")
            #expect(tight == original.converted(to: format), "\(format): the padding changes nothing")
        }
    }

    @Test("flattening blends (c × a + bg × (255 − a) + 127) / 255 from any source format; opaque pixels pass unchanged")
    func flattening() throws {
        let grayAlpha = try PixelBuffer(width: 3, height: 1, format: .grayAlpha8, bytes: [0, 0, 0, 255, 100, 51])
        let flat = grayAlpha.flattened(over: RGBA8(r: 255, g: 255, b: 255))
        // 100 × 51 + 255 × 204 + 127 = 57 247, and 57 247 / 255 = 224.
        #expect(flat.format == .rgb8 && flat.size == grayAlpha.size && flat.bytes == [255, 255, 255, 0, 0, 0, 224, 224, 224])
        let red = try Self.rgba(1, 1, [RGBA8(r: 255, g: 0, b: 0, a: 128)])
        let black = RGBA8(r: 0, g: 0, b: 0)
        #expect(red.flattened(over: black).bytes == [128, 0, 0])
        #expect(red.converted(to: .argb32Premultiplied).flattened(over: black).bytes == [128, 0, 0])
        let clear = try Self.rgba(2, 1, [RGBA8(r: 10, g: 20, b: 30, a: 0), RGBA8(r: 200, g: 100, b: 0, a: 0)])
        #expect(clear.flattened(over: RGBA8(r: 7, g: 8, b: 9)).bytes == [7, 8, 9, 7, 8, 9])
        let opaque = try Fixtures.noisy(width: 6, height: 4)
        #expect(opaque.flattened(over: RGBA8(r: 1, g: 2, b: 3)) == opaque.converted(to: .rgb8))
        #expect(opaque.converted(to: .gray8).flattened(over: black) == opaque.converted(to: .gray8).converted(to: .rgb8))
    }

    @Test("layout accepts exactly maxByteCount bytes and refuses more, overflow included, with the byte count found")
    func layoutBoundaries() throws {
        let limit = PixelBuffer.maxByteCount
        #expect(limit == 1 << 37)
        let exact = try PixelBuffer.layout(width: limit / 4, height: 1, format: .rgba8)
        #expect(exact.bytesPerRow == limit && exact.byteCount == limit)
        let twoRows = try PixelBuffer.layout(width: limit / 8, height: 2, format: .rgba8)
        #expect(twoRows.bytesPerRow == limit / 2 && twoRows.byteCount == limit)
        #expect(throws: ImageCodingError.exceedsLimit(.bytes, found: limit / 2 * 3, limit: limit)) {
            try PixelBuffer.layout(width: limit / 8, height: 3, format: .rgba8)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.bytes, found: limit + 1, limit: limit)) {
            try PixelBuffer.layout(width: 1, height: 1, format: .gray8, bytesPerRow: limit + 1)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.bytes, found: Int.max, limit: limit)) {
            try PixelBuffer.layout(width: 1, height: Int.max, format: .rgb8)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.bytes, found: Int.max, limit: limit)) {
            try PixelBuffer.layout(width: Int.max / 2, height: 1, format: .argb32Premultiplied)
        }
        #expect(throws: ImageCodingError.invalidArgument("bytesPerRow 7 is shorter than one row of 8 bytes")) {
            try PixelBuffer.layout(width: 2, height: 1, format: .rgba8, bytesPerRow: 7)
        }
        #expect(throws: ImageCodingError.invalidArgument("pixel buffer size 3x0 must be at least 1x1")) {
            try PixelBuffer.layout(width: 3, height: 0, format: .gray8)
        }
        #expect(throws: ImageCodingError.invalidArgument("3 bytes given for a 2x2 rgba8 buffer of 16 bytes")) {
            try PixelBuffer(width: 2, height: 2, format: .rgba8, bytes: [1, 2, 3])
        }
        let padded = try PixelBuffer.layout(width: 3, height: 2, format: .rgb8, bytesPerRow: 16)
        #expect(padded.bytesPerRow == 16 && padded.byteCount == 32)
    }

    @Test("an uninitialized buffer holds what its initializer wrote; the initializer's error is rethrown; a bad size never calls it")
    func uninitialized() throws {
        let made = try PixelBuffer(uninitializedWidth: 3, height: 2, format: .gray8, bytesPerRow: 4) { raw in
            for i in 0..<raw.count { raw[i] = UInt8(i * 10) }
        }
        #expect(made.bytes == [0, 10, 20, 30, 40, 50, 60, 70] && made.color(atX: 2, y: 1) == RGBA8(r: 60, g: 60, b: 60))
        #expect(throws: InitializerFailure()) {
            try PixelBuffer(uninitializedWidth: 3, height: 2, format: .gray8) { _ in throw InitializerFailure() }
        }
        var called = false
        do {
            _ = try PixelBuffer(uninitializedWidth: 0, height: 2, format: .gray8) { _ in called = true }
            Issue.record("a buffer 0 pixels wide was made")
        } catch {
            #expect((error as? ImageCodingError) == ImageCodingError.invalidArgument("pixel buffer size 0x2 must be at least 1x1"))
        }
        #expect(!called)
    }

    @Test("the exact format follows the header: gray or colour, with or without alpha; an animation premultiplies")
    func exactFormat() {
        func info(gray: Bool, alpha: Bool, frames: Int = 1) -> ImageInfo {
            ImageInfo(format: .png, width: 4, height: 4, frameCount: frames, hasAlpha: alpha, isGrayscale: gray)
        }
        #expect(PixelFormat.exact(for: info(gray: true, alpha: false)) == .gray8)
        #expect(PixelFormat.exact(for: info(gray: true, alpha: true)) == .grayAlpha8)
        #expect(PixelFormat.exact(for: info(gray: false, alpha: false)) == .rgb8)
        #expect(PixelFormat.exact(for: info(gray: false, alpha: true)) == .rgba8)
        #expect(PixelFormat.exact(for: info(gray: true, alpha: false, frames: 2)) == .argb32Premultiplied)
        #expect(PixelSize(width: Int.max, height: 2).pixelCount == nil && PixelSize(width: 3, height: 4).pixelCount == 12)
        #expect(PixelSize(width: 3, height: 4).description == "3x4")
    }
}
