// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoProcessing
import Testing

@Suite("Overlay")
struct OverlayTests {
    typealias T = ImageTransformers

    static func solid(_ width: Int, _ height: Int, _ c: RGBA8) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, format: .rgba8, bytes: [UInt8]((0..<(width * height)).flatMap { _ in [c.r, c.g, c.b, c.a] }))
    }

    static let white = RGBA8(r: 255, g: 255, b: 255)
    static let red = RGBA8(r: 255, g: 0, b: 0)

    /// The rectangle (x0, y0, x1, y1) of pixels that are not white.
    static func marked(_ b: PixelBuffer) -> (Int, Int, Int, Int)? {
        var r: (Int, Int, Int, Int)?
        for y in 0..<b.height {
            for x in 0..<b.width where b.color(atX: x, y: y) != white {
                r = r.map { (min($0.0, x), min($0.1, y), max($0.2, x + 1), max($0.3, y + 1)) } ?? (x, y, x + 1, y + 1)
            }
        }
        return r
    }

    @Test("draws at its point, cut at the edges; the canvas keeps its size and stays opaque")
    func placed() throws {
        let canvas = try Self.solid(60, 40, Self.white)
        let mark = try Self.solid(10, 6, Self.red)
        let out = try T.Overlay(mark, identifier: "red", x: 7, y: 5).transform(canvas)
        #expect(out.size == canvas.size && out.isOpaque)
        #expect(Self.marked(out)! == (7, 5, 17, 11))
        #expect(out.color(atX: 7, y: 5) == Self.red && out.color(atX: 16, y: 10) == Self.red)
        // Sticking out on each side: only the part inside is drawn.
        #expect(Self.marked(try T.Overlay(mark, identifier: "red", x: -4, y: -2).transform(canvas))! == (0, 0, 6, 4))
        #expect(Self.marked(try T.Overlay(mark, identifier: "red", x: 55, y: 37).transform(canvas))! == (55, 37, 60, 40))
        // Wholly outside (or invisible): the canvas as it was.
        #expect(Self.marked(try T.Overlay(mark, identifier: "red", x: 60, y: 0).transform(canvas)) == nil)
        #expect(Self.marked(try T.Overlay(mark, identifier: "red", x: -10, y: 0).transform(canvas)) == nil)
        #expect(Self.marked(try T.Overlay(mark, identifier: "red", x: 0, y: 0, opacity: 0).transform(canvas)) == nil)
        #expect(Self.marked(try T.Overlay(mark, identifier: "red", x: Int.max, y: Int.min).transform(canvas)) == nil)
    }

    @Test("opacity and the overlay's own alpha blend over the canvas (OVER)")
    func blends() throws {
        let canvas = try Self.solid(20, 20, Self.white)
        let half = try T.Overlay(try Self.solid(4, 4, Self.red), identifier: "red", x: 0, y: 0, opacity: 0.5).transform(canvas)
        let c = try #require(half.color(atX: 1, y: 1))
        #expect(c.r == 255 && abs(Int(c.g) - 128) <= 1 && abs(Int(c.b) - 128) <= 1 && c.a == 255)
        // A transparent overlay pixel leaves the canvas; a half-transparent one at opacity 0.5 is a quarter.
        let faint = try T.Overlay(try Self.solid(4, 4, RGBA8(r: 255, g: 0, b: 0, a: 128)), identifier: "f", opacity: 0.5).transform(canvas)
        let f = try #require(faint.color(atX: 0, y: 0))
        #expect(abs(Int(f.g) - 191) <= 2)
        let clear = try T.Overlay(try Self.solid(4, 4, RGBA8(r: 255, g: 0, b: 0, a: 0)), identifier: "c").transform(canvas)
        #expect(Self.marked(clear) == nil)
        // A transparent canvas takes the overlay's alpha.
        let clearCanvas = try Self.solid(8, 8, RGBA8(r: 0, g: 0, b: 0, a: 0))
        let glass = try T.Overlay(try Self.solid(4, 4, Self.red), identifier: "red", opacity: 0.5).transform(clearCanvas)
        #expect(glass.color(atX: 0, y: 0)?.a == 128 && glass.color(atX: 5, y: 5)?.a == 0)
        #expect(throws: ImageCodingError.self) { try T.Overlay(try Self.solid(2, 2, Self.red), identifier: "x", opacity: 1.5).transform(canvas) }
        #expect(throws: ImageCodingError.self) { try T.Overlay(try Self.solid(2, 2, Self.red), identifier: "x", opacity: .nan).transform(canvas) }
    }

    @Test("tiled: copies edge to edge over the whole canvas, starting where asked")
    func tiled() throws {
        // A 4×4 tile: red in its top-left 2×2, transparent elsewhere.
        var tile = try Self.solid(4, 4, RGBA8(r: 0, g: 0, b: 0, a: 0))
        tile = try T.Overlay(try Self.solid(2, 2, Self.red), identifier: "r").transform(tile)
        let canvas = try Self.solid(13, 9, Self.white)
        for (x0, y0) in [(0, 0), (1, 2), (-3, 5)] {
            let out = try T.Overlay(tile, identifier: "tile", x: x0, y: y0, tiled: true).transform(canvas)
            for y in 0..<9 {
                for x in 0..<13 {
                    let inTile = (((x - x0) % 4 + 4) % 4 < 2) && (((y - y0) % 4 + 4) % 4 < 2)
                    #expect(out.color(atX: x, y: y) == (inTile ? Self.red : Self.white), "(\(x),\(y)) from (\(x0),\(y0))")
                }
            }
        }
        #expect(T.Overlay(tile, identifier: "tile", x: 1, y: 2, opacity: 0.5, tiled: true).key == "Overlay(tile,1,2,0.5,1)")
    }
}
