// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// What each transformer tells the pipeline's planner it does to the pixels (`pixelEffect(on:)`),
/// and that the answer holds: a transformer that only moves pixels keeps the buffer's format, one
/// that resamples or composites hands back premultiplied pixels.
@Suite("Transformers' pixel effects")
struct PixelEffectTests {
    typealias T = ImageTransformers

    static let info = ImageInfo(format: .png, width: 40, height: 20, hasAlpha: true)

    @Test("a crop of the whole upright image changes nothing; a smaller one, or any on a turned or mirrored image, moves pixels")
    func crops() {
        #expect(T.Crop(x: 0, y: 0, width: 40, height: 20).pixelEffect(on: Self.info) == PixelEffect.none)
        #expect(T.Crop(x: 1, y: 0, width: 39, height: 20).pixelEffect(on: Self.info) == .movesPixels)
        #expect(T.Crop(x: 0, y: 0, width: 40, height: 19).pixelEffect(on: Self.info) == .movesPixels)
        // Stored 40x20 and shown turned: the whole image as shown is 20x40, and it still needs turning.
        let turned = ImageInfo(format: .jpeg, width: 40, height: 20, orientation: .right)
        #expect(T.Crop(x: 0, y: 0, width: 20, height: 40).pixelEffect(on: turned) == .movesPixels)
        let mirrored = ImageInfo(format: .jpeg, width: 40, height: 20, orientation: .upMirrored)
        #expect(T.Crop(x: 0, y: 0, width: 40, height: 20).pixelEffect(on: mirrored) == .movesPixels)
    }

    @Test("flips and quarter turns move pixels; quarter turns in a kept canvas and other angles resample")
    func flipsAndTurns() throws {
        for (h, v) in [(true, false), (false, true), (true, true)] {
            #expect(T.Flip(horizontal: h, vertical: v).pixelEffect(on: Self.info) == .movesPixels)
        }
        let cases: [(degrees: Double, fit: Bool, effect: PixelEffect)] = [
            (90, true, .movesPixels), (-90, true, .movesPixels), (270, true, .movesPixels), (450, true, .movesPixels),
            (180, false, .movesPixels), (-180, false, .movesPixels), (90, false, .resamples), (270, false, .resamples),
            (45, true, .resamples), (90.5, true, .resamples), (-30, false, .resamples)
        ]
        let straight = try Fixtures.noisy(width: 6, height: 4, alpha: true, noisyAlpha: true)
        for c in cases {
            let rotate = T.Rotate(degrees: c.degrees, fitSize: c.fit)
            #expect(rotate.pixelEffect(on: Self.info) == c.effect, "\(rotate.key)")
            // What the answer promises: moved pixels keep their format, resampled ones are premultiplied.
            let expected: PixelFormat = c.effect == .movesPixels ? .rgba8 : .argb32Premultiplied
            #expect(try rotate.transform(straight).format == expected, "\(rotate.key)")
        }
        #expect(T.Rotate(degrees: .nan).pixelEffect(on: Self.info) == .resamples)
        #expect(T.Rotate(degrees: .infinity).pixelEffect(on: Self.info) == .resamples)
    }

    @Test("resizes, filters, colour changes and composites resample, and return premultiplied pixels")
    func composites() throws {
        let mark = try PixelBuffer(width: 2, height: 2, format: .rgba8)
        let all: [any ImageTransforming] = [
            T.Resize(size: PixelSize(width: 40, height: 20)), T.Blur(radius: 0), T.Tint(color: RGBA8(r: 0, g: 0, b: 0, a: 0)),
            T.Overlay(mark, identifier: "clear"), T.Pad(top: 0, right: 0, bottom: 0, left: 0), T.Pixelate(size: 1),
            T.Sharpen(sigma: 0), T.RoundCorner(radius: 0), T.ColorAdjust(brightness: 1),
            T.SmartFill(size: PixelSize(width: 10, height: 10), faces: nil)
        ]
        let straight = try Fixtures.gradient(width: 40, height: 20, alpha: true)
        for t in all {
            #expect(t.pixelEffect(on: Self.info) == .resamples, "\(t.key)")
            #expect(try t.transform(straight).format == .argb32Premultiplied, "\(t.key)")
        }
    }

    @Test("a pipeline does the most any member does, nothing when empty; its moves keep straight alpha exact")
    func pipelines() throws {
        let whole = T.Crop(x: 0, y: 0, width: 40, height: 20), flip = T.Flip(horizontal: true, vertical: false)
        #expect(T.Pipeline([]).pixelEffect(on: Self.info) == PixelEffect.none)
        #expect(T.Pipeline([whole]).pixelEffect(on: Self.info) == PixelEffect.none)
        #expect(T.Pipeline([whole, flip, T.Rotate(degrees: 180)]).pixelEffect(on: Self.info) == .movesPixels)
        #expect(T.Pipeline([flip, T.Blur(radius: 1), whole]).pixelEffect(on: Self.info) == .resamples)
        #expect(PixelEffect.none < .movesPixels && PixelEffect.movesPixels < .resamples)
        #expect([PixelEffect.resamples, .none, .movesPixels].sorted() == [PixelEffect.none, .movesPixels, .resamples])
        // Alpha as low as 1: premultiplying would lose most of these colours.
        let faint = try Fixtures.noisy(width: 40, height: 20, alpha: true, noisyAlpha: true, amplitude: 255)
        let moves = T.Pipeline([whole, flip, T.Rotate(degrees: 90), T.Rotate(degrees: -90), flip])
        #expect(try moves.transform(faint) == faint)
    }

    @Test("the planner decodes for moves to the format that holds the source, for resampling to premultiplied")
    func plannedFormats() {
        let gray = ImageInfo(format: .png, width: 4, height: 4, isGrayscale: true)
        let animated = ImageInfo(format: .gif, width: 4, height: 4, frameCount: 3, hasAlpha: true)
        let cases: [(ImageInfo, PixelFormat)] = [(Self.info, .rgba8), (gray, .gray8), (animated, .argb32Premultiplied)]
        for (info, exact) in cases {
            #expect(DecodePlanner.pixelFormat(for: info, resamples: false) == exact)
            #expect(DecodePlanner.pixelFormat(for: info, resamples: true) == .argb32Premultiplied)
        }
    }
}
