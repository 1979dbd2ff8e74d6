// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("Animation compositing (dispose and blend)")
struct AnimationComposerTests {
    /// A premultiplied ARGB32 buffer of one colour.
    static func solid(_ w: Int, _ h: Int, _ c: RGBA8) throws -> PixelBuffer {
        try PixelBuffer(width: w, height: h, format: .rgba8, bytes: Array((0..<(w * h)).flatMap { _ in [c.r, c.g, c.b, c.a] }))
            .converted(to: .argb32Premultiplied)
    }

    static let red = RGBA8(r: 255, g: 0, b: 0), blue = RGBA8(r: 0, g: 0, b: 255), clear = RGBA8(r: 0, g: 0, b: 0, a: 0)
    static let halfGreen = RGBA8(r: 0, g: 255, b: 0, a: 128)

    func composer(_ layouts: [AnimationFrameLayout], _ pixels: [PixelBuffer]) -> AnimationComposer {
        AnimationComposer(canvas: PixelSize(width: 4, height: 4), layouts: layouts) { pixels[$0] }
    }

    func layout(
        _ x: Int, _ y: Int, _ w: Int, _ h: Int, _ disposal: FrameDisposal = .none, _ blend: FrameBlend = .over,
        transparent: Bool = true
    ) -> AnimationFrameLayout {
        AnimationFrameLayout(x: x, y: y, width: w, height: h, duration: 0.1, disposal: disposal, blend: blend, mayBeTransparent: transparent)
    }

    @Test("none keeps the frame, background clears its rectangle, previous restores the canvas before it")
    func disposals() throws {
        let frames = [try Self.solid(4, 4, Self.red), try Self.solid(2, 2, Self.blue), try Self.solid(1, 1, Self.blue)]
        for (disposal, expected) in [(FrameDisposal.none, Self.blue), (.background, Self.clear), (.previous, Self.red)] {
            let c = composer([layout(0, 0, 4, 4), layout(1, 1, 2, 2, disposal), layout(3, 3, 1, 1)], frames)
            let f1 = try c.frame(at: 1), f2 = try c.frame(at: 2)
            #expect(f1.color(atX: 1, y: 1) == Self.blue && f1.color(atX: 0, y: 0) == Self.red)
            #expect(f2.color(atX: 1, y: 1) == expected && f2.color(atX: 2, y: 2) == expected, "\(disposal)")
            #expect(f2.color(atX: 0, y: 0) == Self.red && f2.color(atX: 3, y: 3) == Self.blue, "\(disposal)")
        }
    }

    @Test("over blends premultiplied; source replaces, transparency included")
    func blends() throws {
        let frames = [try Self.solid(4, 4, Self.red), try Self.solid(4, 4, Self.halfGreen)]
        let over = try composer([layout(0, 0, 4, 4), layout(0, 0, 4, 4, .none, .over)], frames).frame(at: 1)
        let p = try #require(over.color(atX: 2, y: 2))
        #expect(p.a == 255 && p.g == 128 && p.r == 127 && p.b == 0)
        let source = try composer([layout(0, 0, 4, 4), layout(0, 0, 4, 4, .none, .source)], frames).frame(at: 1)
        #expect(source.color(atX: 2, y: 2) == Self.halfGreen)
    }

    @Test("frames partly or wholly outside the canvas are clipped; a first frame disposed 'previous' leaves it clear")
    func clipping() throws {
        let frames = [try Self.solid(3, 3, Self.blue), try Self.solid(2, 2, Self.red), try Self.solid(1, 1, Self.red)]
        let c = composer([layout(-1, -1, 3, 3, .previous), layout(3, 3, 2, 2), layout(9, 9, 1, 1)], frames)
        let f0 = try c.frame(at: 0)
        #expect(f0.color(atX: 0, y: 0) == Self.blue && f0.color(atX: 1, y: 1) == Self.blue && f0.color(atX: 2, y: 2) == Self.clear)
        let f1 = try c.frame(at: 1)
        #expect(f1.color(atX: 0, y: 0) == Self.clear && f1.color(atX: 3, y: 3) == Self.red)
        #expect(try c.frame(at: 2) == f1)
        #expect(throws: ImageCodingError.self) { try c.frame(at: 3) }
    }

    @Test("seeking starts from the nearest independent frame and matches playing in order")
    func seeking() throws {
        let colors = [Self.red, Self.blue, Self.halfGreen, Self.red, Self.blue, Self.halfGreen, Self.blue, Self.red]
        let frames = try colors.enumerated().map { i, c in try Self.solid(i % 3 + 1, i % 2 + 1, c) }
        let layouts = (0..<8).map { i -> AnimationFrameLayout in
            let disposal: FrameDisposal = [.none, .background, .previous][i % 3]
            return i == 4 ? layout(0, 0, 4, 4, .none, .source) : layout(i % 2, i % 3, i % 3 + 1, i % 2 + 1, disposal)
        }
        var pixels = frames
        pixels[4] = try Self.solid(4, 4, Self.blue)
        let inOrder = composer(layouts, pixels)
        let expected = try (0..<8).map { try inOrder.frame(at: $0) }
        #expect(composer(layouts, pixels).isIndependent(4) && !composer(layouts, pixels).isIndependent(5))
        let seeker = composer(layouts, pixels)
        for i in [7, 2, 5, 5, 0, 6, 3, 1, 4, 7] {
            #expect(try seeker.frame(at: i) == expected[i], "frame \(i)")
        }
    }

    @Test("the over operator rounds exactly")
    func overRounding() {
        // 50% white over opaque black: 128 + 0, alpha 255.
        #expect(AnimationComposer.over(0x8080_8080, 0xFF00_0000) == 0xFF80_8080)
        // Transparent source leaves the destination.
        #expect(AnimationComposer.over(0, 0xFF12_3456) == 0xFF12_3456)
    }
}
