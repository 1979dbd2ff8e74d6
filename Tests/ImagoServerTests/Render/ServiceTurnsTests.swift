// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// Crops and trims land where imgproxy's land: imgproxy cuts the stored picture, before the EXIF
/// orientation, `rotate` and the flips, with its gravity turned back; Imago turns first and asks
/// ``ServiceTurns`` where that cut is.
@Suite("Crops and trims after turns and flips, as imgproxy cuts the stored picture")
struct ServiceTurnsTests {
    static func options(_ path: String) throws -> ProcessingOptions {
        try ProcessingOptions(parsing: path.split(separator: "/").map(String.init))
    }

    /// A 5x3 picture whose every pixel differs: red is x, green y.
    static func numbered() throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<3 { for x in 0..<5 { bytes += [UInt8(x * 40), UInt8(y * 80), 7, 255] } }
        return try PixelBuffer(width: 5, height: 3, format: .rgba8, bytes: bytes)
    }

    @Test("forward maps every stored pixel where the service's own turning puts it: 8 orientations, 4 angles, both flips")
    func forwardIsTheServicesTurning() throws {
        let stored = try Self.numbered()
        for orientation in ImageOrientation.allCases {
            for rotate in [0, 90, 180, 270] {
                for (fl, flipX, flipY) in [("", false, false), ("/fl:1", true, false), ("/fl::1", false, true), ("/fl:1:1", true, true)] {
                    let transformer = ServiceTransformer(
                        options: try Self.options("rot:\(rotate)" + fl), autoRotate: true, sourceSize: PixelSize(width: 0, height: 0),
                        flattenColor: nil, maxResultDimension: nil)
                    let upright = Image(buffer: stored, orientation: orientation).applyingOrientation().frames[0].buffer
                    let turned = try transformer.orient(upright).converted(to: .rgba8)
                    let turns = ServiceTurns(orientation: orientation, rotate: rotate, flipX: flipX, flipY: flipY)
                    #expect(turns.swapsAxes == (turned.width == 3), "\(orientation) rot:\(rotate)\(fl)")
                    var wrong = 0
                    for y in 0..<3 {
                        for x in 0..<5 {
                            let r = turns.forward((x, y, 1, 1), in: 5, 3)
                            if turned.color(atX: r.x, y: r.y) != stored.color(atX: x, y: y) { wrong += 1 }
                        }
                    }
                    #expect(wrong == 0, "\(orientation) rot:\(rotate)\(fl): \(wrong) pixels elsewhere")
                }
            }
        }
    }

    @Test("an odd margin splits as imgproxy's does on the stored picture: c:51:51 keeps stored columns 25-75 whatever the flip")
    func cropAfterFlip() throws {
        let buffer = try Fixtures.gradient(width: 100, height: 100)
        func origin(_ path: String) throws -> (Int, Int) {
            let t = ServiceTransformer(
                options: try Self.options(path), autoRotate: true, sourceSize: PixelSize(width: 100, height: 100), flattenColor: nil,
                maxResultDimension: nil)
            let crop = try #require(try t.plan(for: buffer).crop)
            return (crop.x, crop.y)
        }
        #expect(try origin("c:51:51") == (25, 25))
        // Flipped after the cut: stored column 25 is turned column 100 - 25 - 51 = 24.
        #expect(try origin("c:51:51/fl:1") == (24, 25))
        #expect(try origin("c:51:51/rot:180") == (24, 24))
        // Compass gravities and their offsets are the turned picture's, as before.
        #expect(try origin("c:51:51:ea:10/fl:1") == (39, 25))
        #expect(try origin("c:51:51:nowe:3:4/rot:90") == (3, 4))
        // A focus point is turned back (x to 1 - x), placed, and the cut turned again.
        let stored = ServiceGeometry.place(51, 51, in: 100, 100, gravity: .init(.focusPoint, x: 0.7, y: 0.6))
        #expect(try origin("c:51:51:fp:0.3:0.6/fl:1") == (100 - stored.x - 51, stored.y))
        // The EXIF orientation takes part: mirrored (2) is a flip before the URL's turns.
        #expect(ServiceTurns(orientation: .upMirrored).place(51, 51, in: 100, 100, gravity: .center, pixelScale: 1) == (24, 25))
        let t = ServiceTransformer(
            options: try Self.options("c:51:51"), autoRotate: true, sourceSize: PixelSize(width: 100, height: 100), flattenColor: nil,
            maxResultDimension: nil)
        let result = try t.transform(Image(buffer: buffer, orientation: .upMirrored), animated: false).frames[0].buffer
        let upright = Image(buffer: buffer, orientation: .upMirrored).applyingOrientation().frames[0].buffer
        #expect(result.size == PixelSize(width: 51, height: 51))
        #expect(result.color(atX: 0, y: 0) == upright.color(atX: 24, y: 25) && result.color(atX: 50, y: 50) == upright.color(atX: 74, y: 75))
    }

    @Test("trim takes the stored picture's top-left colour, and its horizontal, whatever the turns")
    func trimBeforeTurns() throws {
        // 40x20: a red strip 5 wide on the left, white elsewhere, a black mark in the middle.
        var bytes = [UInt8](repeating: 255, count: 40 * 20 * 4)
        for y in 0..<20 {
            for x in 0..<5 {
                bytes[(y * 40 + x) * 4 + 1] = 0
                bytes[(y * 40 + x) * 4 + 2] = 0
            }
        }
        for y in 9..<11 { for x in 20..<22 { for c in 0..<3 { bytes[(y * 40 + x) * 4 + c] = 0 } } }
        let stored = try PixelBuffer(width: 40, height: 20, format: .rgba8, bytes: bytes)
        func trimmed(_ path: String, _ orientation: ImageOrientation = .up) throws -> PixelSize {
            let t = ServiceTransformer(
                options: try Self.options(path), autoRotate: true, sourceSize: PixelSize(width: 0, height: 0), flattenColor: nil,
                maxResultDimension: nil)
            return try t.transform(Image(buffer: stored, orientation: orientation), animated: false).pixelSize
        }
        // The red strip is the border (the stored top-left is red): 35x20 is left, turned or not.
        #expect(try trimmed("t:10") == PixelSize(width: 35, height: 20))
        #expect(try trimmed("t:10/rot:180") == PixelSize(width: 35, height: 20))
        #expect(try trimmed("t:10/rot:90") == PixelSize(width: 20, height: 35))
        #expect(try trimmed("t:10", .down) == PixelSize(width: 35, height: 20))
        #expect(try trimmed("t:10/fl:1") == PixelSize(width: 35, height: 20))
    }
}
