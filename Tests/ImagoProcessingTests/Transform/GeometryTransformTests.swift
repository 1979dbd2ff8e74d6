// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// Sizes and rectangles of the geometric transformers at their edges: odd aspect ratios,
/// one-pixel-wide images, rectangles off the image, every pixel format.
@Suite("Geometry transformers: exact sizes, clamped rectangles, kept formats")
struct GeometryTransformTests {
    typealias T = ImageTransformers

    @Test("resize modes give exact sizes for an odd aspect ratio and for a one-pixel-wide image")
    func resizeSizes() throws {
        let odd = try Fixtures.coordinates(width: 41, height: 17)
        let cases: [(mode: T.ContentMode, box: PixelSize, expected: PixelSize)] = [
            (.aspectFit, PixelSize(width: 10, height: 10), PixelSize(width: 10, height: 4)),
            (.aspectFit, PixelSize(width: 100, height: 5), PixelSize(width: 12, height: 5)),
            (.aspectFit, PixelSize(width: 82, height: 82), PixelSize(width: 82, height: 34)),
            (.aspectFill, PixelSize(width: 10, height: 10), PixelSize(width: 10, height: 10)),
            (.aspectFill, PixelSize(width: 3, height: 30), PixelSize(width: 3, height: 30)),
            (.fill, PixelSize(width: 3, height: 50), PixelSize(width: 3, height: 50))
        ]
        for c in cases {
            let out = try T.Resize(size: c.box, mode: c.mode, quality: .bilinear).transform(odd)
            #expect(out.size == c.expected, "\(c.mode) into \(c.box)")
        }
        let thin = try Fixtures.coordinates(width: 1, height: 50)
        #expect(try T.Resize(size: PixelSize(width: 10, height: 10), mode: .aspectFit).transform(thin).size == PixelSize(width: 1, height: 10))
        #expect(try T.Resize(size: PixelSize(width: 10, height: 10), mode: .aspectFill).transform(thin).size == PixelSize(width: 10, height: 10))
    }

    @Test("crop rectangles hanging off any edge are cut to the image; one that only touches it is an error")
    func cropClamping() throws {
        let src = try Fixtures.coordinates(width: 40, height: 20)
        let cases: [(rect: [Int], kept: [Int])] = [
            ([-5, -3, 10, 10], [0, 0, 5, 7]),
            ([30, 15, 50, 50], [30, 15, 10, 5]),
            ([-10, 5, 100, 2], [0, 5, 40, 2]),
            ([39, 19, 1, 1], [39, 19, 1, 1]),
            ([10, -1_000_000, Int.max, Int.max], [10, 0, 30, 20])
        ]
        for c in cases {
            let (r, k) = (c.rect, c.kept)
            let out = try T.Crop(x: r[0], y: r[1], width: r[2], height: r[3]).transform(src)
            #expect(out.size == PixelSize(width: k[2], height: k[3]), "\(r)")
            #expect(out.color(atX: 0, y: 0) == src.color(atX: k[0], y: k[1]), "\(r)")
            #expect(out.color(atX: k[2] - 1, y: k[3] - 1) == src.color(atX: k[0] + k[2] - 1, y: k[1] + k[3] - 1), "\(r)")
        }
        #expect(throws: ImageCodingError.self) { try T.Crop(x: -10, y: 0, width: 10, height: 5).transform(src) }
        #expect(throws: ImageCodingError.self) { try T.Crop(x: 0, y: 20, width: 5, height: 5).transform(src) }
        #expect(throws: ImageCodingError.self) { try T.Crop(x: 0, y: 0, width: 5, height: -1).transform(src) }
        // Whole pixels are copied: straight alpha and gray stay exactly as they were.
        let faint = try PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [200, 100, 50, 3, 1, 2, 3, 0])
        let cut = try T.Crop(x: 0, y: 0, width: 1, height: 1).transform(faint)
        #expect(cut.format == .rgba8 && cut.bytes == [200, 100, 50, 3])
        let gray = src.converted(to: .gray8)
        let grayCut = try T.Crop(x: 3, y: 2, width: 4, height: 5).transform(gray)
        #expect(grayCut.format == .gray8 && grayCut.color(atX: 1, y: 1) == gray.color(atX: 4, y: 3))
    }

    @Test("flips and quarter turns keep every pixel format and undo each other exactly")
    func movesKeepFormat() throws {
        let rgba = try Fixtures.noisy(width: 7, height: 5, alpha: true, noisyAlpha: true)
        let mirror = T.Flip(horizontal: true, vertical: false)
        for format in [PixelFormat.rgba8, .rgb8, .gray8, .grayAlpha8] {
            let src = rgba.converted(to: format)
            #expect(try mirror.transform(mirror.transform(src)) == src, "\(format)")
            let both = try T.Flip(horizontal: true, vertical: true).transform(src)
            let half = try T.Rotate(degrees: 180, fitSize: false).transform(src)
            #expect(both.format == format && both == half, "\(format)")
            let quarter = try T.Rotate(degrees: 90).transform(src)
            #expect(quarter.format == format && quarter.size == PixelSize(width: 5, height: 7), "\(format)")
            #expect(try T.Rotate(degrees: -90).transform(quarter) == src, "\(format)")
            #expect(try T.Rotate(degrees: 360).transform(src) == src, "\(format)")
        }
    }

    @Test("padding adds exact borders of its colour around untouched pixels")
    func padding() throws {
        let src = try Fixtures.coordinates(width: 3, height: 2)
        let red = RGBA8(r: 255, g: 0, b: 0)
        let pad = T.Pad(top: 1, right: 2, bottom: 0, left: 3, color: red)
        #expect(pad.key == "Pad(1,2,0,3,#ff0000ff)")
        let out = try pad.transform(src)
        #expect(out.size == PixelSize(width: 8, height: 3) && out.format == .argb32Premultiplied)
        #expect(out.color(atX: 0, y: 0) == red && out.color(atX: 4, y: 0) == red && out.color(atX: 7, y: 2) == red)
        for y in 0..<2 {
            for x in 0..<3 { #expect(out.color(atX: x + 3, y: y + 1) == src.color(atX: x, y: y)) }
        }
        let clear = try T.Pad(top: 2, right: 2, bottom: 2, left: 2).transform(src)
        #expect(clear.size == PixelSize(width: 7, height: 6) && clear.color(atX: 0, y: 0)?.a == 0 && !clear.isOpaque)
        #expect(try T.Pad(top: 0, right: 0, bottom: 0, left: 0).transform(src) == src.converted(to: .argb32Premultiplied))
        #expect(throws: ImageCodingError.self) { try T.Pad(top: 0, right: -1, bottom: 0, left: 0).transform(src) }
    }

    @Test("pixelate gives each block its average, edge blocks the average of the pixels they have")
    func pixelate() throws {
        // Red is x and green is y: each block's average is its mean coordinate, rounded.
        let src = try Fixtures.coordinates(width: 5, height: 3)
        let out = try T.Pixelate(size: 2).transform(src)
        #expect(out.size == src.size)
        #expect(out.color(atX: 0, y: 0) == RGBA8(r: 1, g: 1, b: 7) && out.color(atX: 1, y: 1) == RGBA8(r: 1, g: 1, b: 7))
        #expect(out.color(atX: 3, y: 0) == RGBA8(r: 3, g: 1, b: 7))
        #expect(out.color(atX: 4, y: 1) == RGBA8(r: 4, g: 1, b: 7))  // a 1x2 block
        #expect(out.color(atX: 2, y: 2) == RGBA8(r: 3, g: 2, b: 7))  // a 2x1 block
        #expect(out.color(atX: 4, y: 2) == RGBA8(r: 4, g: 2, b: 7))  // a single pixel
        #expect(try T.Pixelate(size: 10).transform(src).color(atX: 0, y: 2) == RGBA8(r: 2, g: 1, b: 7))
        #expect(try T.Pixelate(size: 1).transform(src) == src.converted(to: .argb32Premultiplied))
        #expect(throws: ImageCodingError.self) { try T.Pixelate(size: 0).transform(src) }
    }

    @Test("thumbnail sizes: vectors grow to the box, with or without the aspect kept; rasters never grow")
    func thumbnailTargets() {
        let s = PixelSize(width: 100, height: 50), box = PixelSize(width: 400, height: 400)
        #expect(Thumbnailer.targetSize(for: s, within: box, enlarges: true) == PixelSize(width: 400, height: 200))
        #expect(Thumbnailer.targetSize(for: s, within: box) == s)
        #expect(Thumbnailer.targetSize(for: s, within: box, preserveAspectRatio: false, enlarges: true) == box)
        #expect(Thumbnailer.targetSize(for: s, within: box, preserveAspectRatio: false) == s)
        #expect(
            Thumbnailer.targetSize(for: s, within: PixelSize(width: 0, height: 7), preserveAspectRatio: false, enlarges: true)
                == PixelSize(width: 1, height: 7))
        #expect(Thumbnailer.targetSize(for: PixelSize(width: 3, height: 1000), within: PixelSize(width: 50, height: 50)) == PixelSize(width: 1, height: 50))
    }
}
