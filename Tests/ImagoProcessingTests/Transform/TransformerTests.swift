// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@Suite("Transformers")
struct TransformerTests {
    typealias T = ImageTransformers
    let coords = { try Fixtures.coordinates(width: 40, height: 20).converted(to: .argb32Premultiplied) }

    @Test("resize modes: fill stretches, aspectFit fits inside, aspectFill covers and crops the centre")
    func resize() throws {
        let src = try coords()
        #expect(try T.Resize(size: PixelSize(width: 10, height: 10)).transform(src).size == PixelSize(width: 10, height: 10))
        #expect(try T.Resize(size: PixelSize(width: 10, height: 10), mode: .aspectFit).transform(src).size == PixelSize(width: 10, height: 5))
        let fill = try T.Resize(size: PixelSize(width: 10, height: 10), mode: .aspectFill).transform(src)
        #expect(fill.size == PixelSize(width: 10, height: 10))
        #expect(throws: ImageCodingError.self) { try T.Resize(size: PixelSize(width: 0, height: 1)).transform(src) }
        #expect(T.Resize(size: PixelSize(width: 10, height: 5), mode: .aspectFill).key == "Resize(10x5,aspectFill,lanczos3)")
    }

    @Test("crop copies exactly the rectangle, clipped to the image; an empty one is an error")
    func crop() throws {
        let src = try coords()
        let c = try T.Crop(x: 5, y: 3, width: 10, height: 4).transform(src)
        #expect(c.size == PixelSize(width: 10, height: 4))
        #expect(c.color(atX: 0, y: 0) == src.color(atX: 5, y: 3) && c.color(atX: 9, y: 3) == src.color(atX: 14, y: 6))
        #expect(try T.Crop(x: 35, y: 15, width: 100, height: 100).transform(src).size == PixelSize(width: 5, height: 5))
        #expect(throws: ImageCodingError.self) { try T.Crop(x: 50, y: 0, width: 5, height: 5).transform(src) }
        #expect(throws: ImageCodingError.self) { try T.Crop(x: 0, y: 0, width: 0, height: 5).transform(src) }
        #expect(throws: ImageCodingError.self) { try T.Crop(x: Int.max, y: 0, width: Int.max, height: 5).transform(src) }
    }

    @Test("flips mirror rows and columns exactly")
    func flip() throws {
        let src = try coords()
        let h = try T.Flip(horizontal: true, vertical: false).transform(src)
        let v = try T.Flip(horizontal: false, vertical: true).transform(src)
        #expect(h.color(atX: 0, y: 7) == src.color(atX: 39, y: 7) && v.color(atX: 3, y: 0) == src.color(atX: 3, y: 19))
        #expect(try T.Flip(horizontal: true, vertical: true).transform(src).color(atX: 0, y: 0) == src.color(atX: 39, y: 19))
    }

    @Test("rotation: counter-clockwise, exact quarter turns, bounding boxes, transparent corners")
    func rotate() throws {
        let src = try coords()
        let quarter = try T.Rotate(degrees: 90).transform(src)
        #expect(quarter.size == PixelSize(width: 20, height: 40))
        #expect(quarter.color(atX: 0, y: 0) == src.color(atX: 39, y: 0))  // top-right goes to top-left
        #expect(try T.Rotate(degrees: 180).transform(src).color(atX: 0, y: 0) == src.color(atX: 39, y: 19))
        // The general path agrees with the exact one at 90 degrees, away from the edges.
        let general = try T.Rotate(degrees: 90.0000001).transform(src)
        #expect(general.size.width == 21 || general.size.width == 20)
        // The fixture stores x in red and y in green: near the top-left of the result sits the
        // source's top-right, so the general (pixman) path turns the same way as the exact one.
        let near = try #require(general.color(atX: 2, y: 2))
        #expect((35...39).contains(Int(near.r)) && (0...4).contains(Int(near.g)), "\(near)")
        let diag = try T.Rotate(degrees: 45).transform(src)
        let expected = Int((40 * cos(Double.pi / 4) + 20 * sin(Double.pi / 4)).rounded(.up))
        #expect(diag.size == PixelSize(width: expected, height: expected))
        #expect(diag.color(atX: 0, y: 0)?.a == 0)
        #expect(try T.Rotate(degrees: 30, fitSize: false).transform(src).size == src.size)
        #expect(throws: ImageCodingError.self) { try T.Rotate(degrees: .nan).transform(src) }
    }

    @Test("round corners: corners clear, centre untouched, border drawn along the edge")
    func roundCorner() throws {
        let src = try coords()
        let r = try T.RoundCorner(radius: 8).transform(src)
        #expect(r.color(atX: 0, y: 0)?.a == 0 && r.color(atX: 39, y: 19)?.a == 0)
        #expect(r.color(atX: 20, y: 10) == src.color(atX: 20, y: 10))
        #expect(r.color(atX: 20, y: 0) == src.color(atX: 20, y: 0))
        let only = try T.RoundCorner(radius: 8, corners: .topLeft).transform(src)
        #expect(only.color(atX: 39, y: 0) == src.color(atX: 39, y: 0) && only.color(atX: 0, y: 0)?.a == 0)
        let bordered = try T.RoundCorner(radius: 6, borderWidth: 2, borderColor: RGBA8(r: 0, g: 0, b: 255)).transform(src)
        #expect(bordered.color(atX: 20, y: 0) == RGBA8(r: 0, g: 0, b: 255))
        #expect(bordered.color(atX: 20, y: 10) == src.color(atX: 20, y: 10))
        #expect(throws: ImageCodingError.self) { try T.RoundCorner(radius: -1).transform(src) }
    }

    @Test("tint: source-in takes the colour and keeps alpha; source-atop mixes by the colour's alpha")
    func tint() throws {
        let half = try PixelBuffer(width: 1, height: 1, format: .rgba8, bytes: [200, 100, 0, 128])
        let sourceIn = try T.Tint(color: RGBA8(r: 0, g: 255, b: 0), blendMode: .sourceIn).transform(half)
        let c = try #require(sourceIn.color(atX: 0, y: 0))
        #expect(c.a == 128 && c.g >= 253 && c.r == 0)
        let opaque = try PixelBuffer(width: 1, height: 1, format: .rgba8, bytes: [200, 100, 0, 255])
        let atop = try #require(try T.Tint(color: RGBA8(r: 0, g: 0, b: 255, a: 128)).transform(opaque).color(atX: 0, y: 0))
        #expect(abs(Int(atop.r) - 100) <= 1 && abs(Int(atop.b) - 128) <= 1 && atop.a == 255)
    }

    @Test("blur keeps flat areas flat and turns a step into a ramp")
    func blur() throws {
        var bytes = [UInt8](repeating: 255, count: 60 * 10 * 4)
        for y in 0..<10 {
            for x in 0..<30 {
                let o = (y * 60 + x) * 4
                bytes[o] = 0
                bytes[o + 1] = 0
                bytes[o + 2] = 0
            }
        }
        let step = try PixelBuffer(width: 60, height: 10, format: .rgba8, bytes: bytes)
        let b = try T.Blur(radius: 3).transform(step)
        #expect(b.color(atX: 2, y: 5)?.r == 0 && b.color(atX: 57, y: 5)?.r == 255)
        let values = (24...36).compactMap { b.color(atX: $0, y: 5)?.r }
        #expect(values == values.sorted() && values.first! < 40 && values.last! > 215 && Set(values).count > 8)
        #expect(try T.Blur(radius: 0).transform(step) == step.converted(to: .argb32Premultiplied))
        #expect(throws: ImageCodingError.self) { try T.Blur(radius: -2).transform(step) }
        #expect(throws: ImageCodingError.self) { try T.Blur(radius: .infinity).transform(step) }
    }

    @Test("a pipeline applies its members in order and joins their keys")
    func pipeline() throws {
        let p = T.Pipeline([T.Crop(x: 0, y: 0, width: 20, height: 20), T.Flip(horizontal: true, vertical: false)])
        #expect(p.key == "Crop(0,0,20,20)-Flip(1,0)")
        let src = try coords()
        #expect(try p.transform(src).color(atX: 0, y: 0) == src.color(atX: 19, y: 0))
    }

    @Test("images: turned upright first, every frame transformed, or only the first when asked")
    func images() throws {
        let a = try coords(), b = try T.Flip(horizontal: true, vertical: false).transform(a)
        let anim = try Image(frames: [ImageFrame(buffer: a, duration: 0.1), ImageFrame(buffer: b, duration: 0.2)])
        let out = try T.Crop(x: 0, y: 0, width: 5, height: 5).transform(anim)
        #expect(out.frames.count == 2 && out.frames[1].duration == 0.2 && out.pixelSize == PixelSize(width: 5, height: 5))
        #expect(try T.Crop(x: 0, y: 0, width: 5, height: 5).transform(anim, animated: false).frames.count == 1)
        let turned = Image(buffer: a, orientation: .right)
        #expect(try T.Crop(x: 0, y: 0, width: 20, height: 40).transform(turned).pixelSize == PixelSize(width: 20, height: 40))
    }
}
