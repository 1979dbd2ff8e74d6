// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@Suite("Decode for display and colour sampling")
struct DisplayTests {
    @Test("any format becomes premultiplied ARGB32; opaque images are flagged opaque")
    func display() throws {
        let opaqueRGBA = Image(buffer: try Fixtures.gradient(width: 8, height: 8))  // RGBA, all alpha 255
        #expect(opaqueRGBA.hasAlpha)
        let shown = opaqueRGBA.decodedForDisplay()
        #expect(shown.isDecoded && !shown.hasAlpha)
        let translucent = Image(buffer: try Fixtures.gradient(width: 8, height: 8, alpha: true)).decodedForDisplay()
        #expect(translucent.isDecoded && translucent.hasAlpha)
        let gray = Image(buffer: try Fixtures.gradient(width: 4, height: 4).converted(to: .gray8)).decodedForDisplay()
        #expect(gray.isDecoded && !gray.hasAlpha)
    }

    @Test("colours at points and in rectangles, straight alpha, clipped")
    func sampling() throws {
        let px = try PixelBuffer(
            width: 2, height: 2, format: .rgba8,
            bytes: [255, 0, 0, 255, 0, 0, 255, 255, 0, 255, 0, 128, 0, 0, 0, 0]
        ).converted(to: .argb32Premultiplied)
        #expect(px.color(atX: 0, y: 1)?.g ?? 0 >= 254 && px.color(atX: 0, y: 1)?.a == 128)
        #expect(px.colors(x: -5, y: -5, width: 6, height: 6).count == 1)
        #expect(px.colors(x: 0, y: 0, width: 2, height: 2).count == 4)
        #expect(px.colors(x: 3, y: 0, width: 2, height: 2).isEmpty)
        let avg = try #require(px.averageColor(x: 0, y: 0, width: 2, height: 1))
        #expect(avg.r == 127 && avg.b == 127 && avg.a == 255)
        #expect(px.averageColor(x: 1, y: 1, width: 1, height: 1) == RGBA8(r: 0, g: 0, b: 0, a: 0))
    }
}
