// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoProcessing

/// The analysis functions on images made to give known answers: averages with transparent
/// pixels, trim rectangles of bordered images, smart crops towards detail, placeholders of flat
/// colours, and every function on 1x1 and one-pixel-wide images.
@Suite("Analysis: averages, trim, smart crop and placeholders at the edges")
struct AnalysisEdgeTests {
    /// A straight `rgba8` buffer whose pixel at (x, y) is `pixel(x, y)`.
    static func image(_ width: Int, _ height: Int, _ pixel: (Int, Int) -> RGBA8) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = pixel(x, y)
                bytes += [c.r, c.g, c.b, c.a]
            }
        }
        return try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes)
    }

    /// A trim rectangle as `[x, y, width, height]`, comparable.
    static func rect(_ r: (x: Int, y: Int, width: Int, height: Int)?) -> [Int]? { r.map { [$0.x, $0.y, $0.width, $0.height] } }

    static let red = RGBA8(r: 255, g: 0, b: 0), white = RGBA8(r: 255, g: 255, b: 255)

    @Test("the average leaves out only fully transparent pixels, whatever their colour or the buffer's format")
    func average() throws {
        let colors = [RGBA8(r: 200, g: 0, b: 0), RGBA8(r: 0, g: 200, b: 0), RGBA8(r: 9, g: 9, b: 9, a: 0), RGBA8(r: 255, g: 255, b: 255, a: 0)]
        let px = try Self.image(2, 2) { x, y in colors[y * 2 + x] }
        #expect(ImageColors.average(px) == RGBA8(r: 100, g: 100, b: 0, a: 255))
        #expect(ImageColors.average(px.converted(to: .argb32Premultiplied)) == RGBA8(r: 100, g: 100, b: 0, a: 255))
        #expect(ImageColors.average(px, ignoringTransparent: false) == RGBA8(r: 116, g: 116, b: 66, a: 128))
        let faint = try Self.image(1, 1) { _, _ in RGBA8(r: 200, g: 10, b: 0, a: 1) }
        #expect(ImageColors.average(faint) == RGBA8(r: 200, g: 10, b: 0, a: 1))
        #expect(ImageColors.hasTransparency(faint) && ImageColors.hasTransparency(px))
        // An alpha channel alone is not transparency.
        let opaque = try Self.image(3, 1) { x, _ in RGBA8(r: UInt8(x), g: 0, b: 0) }
        #expect(opaque.format.hasAlphaChannel && !ImageColors.hasTransparency(opaque))
    }

    @Test("trim finds the content inside a uniform border, by threshold, by colour and with equal sides, as libvips's find_trim")
    func trim() throws {
        // 20x10 white, a 4x3 red block at (5, 2), a near-white 2x3 strip at (0, 2).
        let framed = try Self.image(20, 10) { x, y in
            if (5..<9).contains(x) && (2..<5).contains(y) { return Self.red }
            return x < 2 && (2..<5).contains(y) ? RGBA8(r: 250, g: 250, b: 250) : Self.white
        }
        #expect(Self.rect(ImageAnalysis.trimRect(framed)) == [5, 2, 4, 3])
        #expect(Self.rect(ImageAnalysis.trimRect(framed, threshold: 2)) == [0, 2, 9, 3])
        #expect(Self.rect(ImageAnalysis.trimRect(framed, equalHorizontal: true)) == [5, 2, 10, 3])
        #expect(Self.rect(ImageAnalysis.trimRect(framed, equalVertical: true)) == [5, 2, 4, 6])
        #expect(Self.rect(ImageAnalysis.trimRect(framed, threshold: -1)) == [0, 0, 20, 10])  // nothing is border
        #expect(ImageAnalysis.trimRect(framed, threshold: .infinity) == nil)  // everything is
        // A fraction counts: the strip differs by 5, border at 5.0, not at 4.5.
        #expect(Self.rect(ImageAnalysis.trimRect(framed, threshold: 5)) == [5, 2, 4, 3])
        #expect(Self.rect(ImageAnalysis.trimRect(framed, threshold: 4.5)) == [0, 2, 9, 3])
        // One stray pixel in the border is smoothed away by the 3x3 median, as libvips does:
        // it does not stop the trim.
        let speck = try Self.image(20, 10) { x, y in
            if (5..<9).contains(x) && (2..<5).contains(y) { return Self.red }
            return x == 1 && y == 8 ? RGBA8(r: 0, g: 0, b: 0) : Self.white
        }
        #expect(Self.rect(ImageAnalysis.trimRect(speck)) == [5, 2, 4, 3])
        // Red on the left, a black 3x3 mark at (10, 4): the top-left colour by default, or the one asked for.
        let banded = try Self.image(16, 8) { x, y in
            x < 3 ? Self.red : ((10..<13).contains(x) && (4..<7).contains(y) ? RGBA8(r: 0, g: 0, b: 0) : Self.white)
        }
        #expect(Self.rect(ImageAnalysis.trimRect(banded)) == [3, 0, 13, 8])
        #expect(Self.rect(ImageAnalysis.trimRect(banded, color: Self.white)) == [0, 0, 13, 8])
        // The colour of another corner, when asked (the stored picture's, once turned).
        #expect(Self.rect(ImageAnalysis.trimRect(banded, colorAt: (15, 7))) == [0, 0, 13, 8])
        // A transparent border is cut by default, and as magenta.
        let clear = try Self.image(9, 9) { x, y in
            (3..<6).contains(x) && (3..<6).contains(y) ? RGBA8(r: 0, g: 0, b: 255) : RGBA8(r: 0, g: 0, b: 0, a: 0)
        }
        #expect(Self.rect(ImageAnalysis.trimRect(clear)) == [3, 3, 3, 3])
        #expect(Self.rect(ImageAnalysis.trimRect(clear, color: RGBA8(r: 255, g: 0, b: 255, a: 0))) == [3, 3, 3, 3])
        // Under 3 pixels a side, no median: every pixel counts.
        let column = try Self.image(1, 5) { _, y in y == 2 ? Self.red : Self.white }
        #expect(Self.rect(ImageAnalysis.trimRect(column)) == [0, 2, 1, 1])
    }

    @Test("the median of nine is the fifth of them sorted, for 10,000 random nines")
    func medianOfNine() {
        var g = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let v = (0..<9).map { _ in UInt8.random(in: 0...255, using: &g) }
            #expect(ImageAnalysis.median9(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]) == v.sorted()[4], "\(v)")
        }
    }

    @Test("smart crop: a window as large as the image starts at its corner; detail on one side draws the window there")
    func smartCrop() throws {
        // Flat gray on the left half, busy gray levels on the right.
        let half = try Self.image(64, 16) { x, y in
            let v = x < 32 ? 128 : UInt8(truncatingIfNeeded: x * 37 + y * 91 + (x * y % 13) * 17)
            return RGBA8(r: v, g: v, b: v)
        }
        let o = ImageAnalysis.smartCropOrigin(half, width: 16, height: 16)
        #expect((32...48).contains(o.x) && o.y == 0, "\(o)")
        let whole = ImageAnalysis.smartCropOrigin(half, width: 64, height: 16)
        #expect(whole.x == 0 && whole.y == 0)
        let larger = ImageAnalysis.smartCropOrigin(half, width: 100, height: 100)
        #expect(larger.x == 0 && larger.y == 0)
    }

    @Test(
        "every analysis answers on 1x1 and one-pixel-wide images",
        arguments: [PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 7), PixelSize(width: 9, height: 1)])
    func tinyImages(_ size: PixelSize) throws {
        let c = RGBA8(r: 30, g: 140, b: 220)
        let flat = try Self.image(size.width, size.height) { _, _ in c }
        #expect(ImageColors.average(flat) == c && !ImageColors.hasTransparency(flat))
        #expect(ImageAnalysis.trimRect(flat) == nil)
        let o = ImageAnalysis.smartCropOrigin(flat, width: 1, height: 1)
        #expect((0..<size.width).contains(o.x) && (0..<size.height).contains(o.y), "\(o)")
        #expect(try BlurHash.averageColor(of: BlurHash.encode(flat)) == c)
        let thumb = try ThumbHash.decode(ThumbHash.encode(flat))
        #expect(thumb.width >= 1 && thumb.height >= 1 && thumb.isOpaque)
        let palette = try ImageColors.palette(flat, colors: 2)
        #expect(palette.count == 1)
    }

    @Test("placeholders of a flat colour: BlurHash keeps it exactly, ThumbHash decodes to one colour near it")
    func flatPlaceholders() throws {
        for c in [RGBA8(r: 200, g: 40, b: 90), RGBA8(r: 0, g: 0, b: 0), RGBA8(r: 255, g: 255, b: 255), RGBA8(r: 90, g: 170, b: 30)] {
            let flat = try Self.image(24, 16) { _, _ in c }
            #expect(try BlurHash.averageColor(of: BlurHash.encode(flat)) == c)
            // With one component there are no AC terms: the decode is the colour everywhere.
            let one = try BlurHash.encode(flat, componentsX: 1, componentsY: 1)
            let decoded = try BlurHash.decode(one, width: 5, height: 3)
            #expect(one.count == 6 && decoded.format == .rgb8)
            #expect((0..<15).allSatisfy { decoded.color(atX: $0 % 5, y: $0 / 5) == c }, "\(c)")
            let hash = try ThumbHash.encode(flat)
            let picture = try ThumbHash.decode(hash)
            let first = try #require(picture.color(atX: 0, y: 0))
            #expect((0..<picture.height).allSatisfy { y in (0..<picture.width).allSatisfy { picture.color(atX: $0, y: y) == first } })
            #expect(try ThumbHash.averageColor(of: hash) == first && first.a == 255)
            for (got, want) in [(first.r, c.r), (first.g, c.g), (first.b, c.b)] {
                #expect(abs(Int(got) - Int(want)) <= 6, "\(first) for \(c)")
            }
        }
    }

    @Test("a detected box maps outwards into a cut and scaled image; a box without extent has no area")
    func detectedBoxes() {
        let face = DetectedObject(className: "face", x: 10, y: 20, width: 30, height: 40, confidence: 0.8)
        let m = face.mapped(dx: -5, dy: 5, scale: 0.5)
        #expect([m.x, m.y, m.width, m.height] == [2, 12, 16, 21])
        #expect(m.className == "face" && m.confidence == 0.8 && face.area == 1200)
        let up = face.mapped(scale: 3)
        #expect([up.x, up.y, up.width, up.height] == [30, 60, 90, 120])
        #expect(face.mapped() == face)
        #expect(DetectedObject(className: "x", x: 0, y: 0, width: -3, height: 5).area == 0)
    }
}

@Suite("Analysis: libvips's attention crop, as imgproxy's smart gravity")
struct AttentionCropTests {
    @Test("the window goes to the skin-toned, saturated, edged part; a flat picture keeps its corner; a window as large as the image starts at 0")
    func attention() throws {
        // 400x200 grey, a 60x60 skin-toned square with a dark outline near the right edge.
        let picture = try AnalysisEdgeTests.image(400, 200) { x, y in
            let inSquare = (320..<380).contains(x) && (120..<180).contains(y)
            let outline = inSquare && (x < 323 || x >= 377 || y < 123 || y >= 177)
            return outline ? RGBA8(r: 20, g: 20, b: 20) : inSquare ? RGBA8(r: 224, g: 172, b: 138) : RGBA8(r: 128, g: 128, b: 128)
        }
        let origin = ImageAnalysis.attentionCropOrigin(picture, width: 100, height: 100)
        // The window holds the square's middle (the outline's edges score highest, so it may
        // sit nearer them than the middle).
        #expect((origin.x..<(origin.x + 100)).contains(350) && (origin.y..<(origin.y + 100)).contains(150), "\(origin)")
        let flat = try AnalysisEdgeTests.image(300, 100) { _, _ in RGBA8(r: 90, g: 90, b: 90) }
        #expect(ImageAnalysis.attentionCropOrigin(flat, width: 100, height: 100) == (0, 0))
        #expect(ImageAnalysis.attentionCropOrigin(picture, width: 400, height: 200) == (0, 0))
        // The same square on the left pulls the window there.
        let mirrored = try AnalysisEdgeTests.image(400, 200) { x, y in
            let inSquare = (20..<80).contains(x) && (20..<80).contains(y)
            return inSquare ? RGBA8(r: 224, g: 172, b: 138) : RGBA8(r: 128, g: 128, b: 128)
        }
        let left = ImageAnalysis.attentionCropOrigin(mirrored, width: 100, height: 100)
        #expect((left.x..<(left.x + 100)).contains(50) && (left.y..<(left.y + 100)).contains(50), "\(left)")
    }
}
