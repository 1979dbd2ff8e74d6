// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy Pro's per-URL watermarks: `watermark_text` drawn with Pango, `watermark_url` fetched
/// as a source (signed URLs only), `watermark_size`.
@Suite("Service text and URL watermarks", .enabled(if: TextRenderer.isAvailable, "Pango is not installed"))
struct ServiceTextWatermarkTests {
    static func b64(_ s: String) -> String {
        Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func white(_ w: Int, _ h: Int) throws -> Data {
        let bytes = [UInt8](repeating: 255, count: w * h * 4)
        return try ImageCoderRegistry.shared.encode(Image(buffer: PixelBuffer(width: w, height: h, format: .rgba8, bytes: bytes)), as: .png)
    }

    /// Pixels darker than mid-gray in `rect` of `b`.
    static func dark(_ b: PixelBuffer, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Int {
        var n = 0
        for y in y0..<y1 {
            for x in x0..<x1 {
                if let c = b.color(atX: x, y: y), Int(c.r) + Int(c.g) + Int(c.b) < 384 { n += 1 }
            }
        }
        return n
    }

    @Test("watermark_text: the markup drawn where `watermark` places it; bad markup refused; the ETag follows the text")
    func text() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("w.png", data: try Self.white(240, 120), contentType: "image/png")
            let r = try await h.get(h.plain("wm:1:ce/wmt:\(Self.b64("<b>IMAGO</b>"))", "/img/w.png"))
            #expect(r.status == 200)
            let b = try r.image().buffer.converted(to: .rgba8)
            #expect(Self.dark(b, 80, 40, 160, 80) > 50, "the text in the middle")
            #expect(Self.dark(b, 0, 0, 40, 40) == 0 && Self.dark(b, 200, 80, 240, 120) == 0)
            let corner = try await h.get(h.plain("wm:1:soea:4:4/wmt:\(Self.b64("IMAGO"))", "/img/w.png"))
            let c = try corner.image().buffer.converted(to: .rgba8)
            #expect(Self.dark(c, 160, 80, 240, 120) > 20 && Self.dark(c, 80, 40, 160, 80) == 0)
            #expect(corner["etag"] != r["etag"])
            let bad = try await h.get(h.plain("wm:1/wmt:\(Self.b64("<b>open"))", "/img/w.png"))
            #expect(bad.status == 404 && bad.errorFields["error"] == "invalid_url")
            // Without `wm`'s opacity nothing is drawn, as imgproxy Pro.
            let none = try await h.get(h.plain("wmt:\(Self.b64("IMAGO"))", "/img/w.png"))
            #expect(Self.dark(try none.image().buffer.converted(to: .rgba8), 0, 0, 240, 120) == 0)
        }
    }

    @Test("watermark_size fits the watermark into a box, enlarging")
    func size() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("w.png", data: try Self.white(300, 200), contentType: "image/png")
            let small = try await h.get(h.plain("wm:1:nowe/wmt:\(Self.b64("IMAGO"))", "/img/w.png"))
            let big = try await h.get(h.plain("wm:1:nowe/wmt:\(Self.b64("IMAGO"))/wms:200:0", "/img/w.png"))
            let s = Self.dark(try small.image().buffer.converted(to: .rgba8), 0, 0, 300, 200)
            let l = Self.dark(try big.image().buffer.converted(to: .rgba8), 0, 0, 300, 200)
            #expect(l > 4 * s, "\(l) against \(s)")
        }
    }

    @Test("watermark_rotate turns the watermark clockwise; watermark_shadow adds a blurred shadow under it")
    func rotateAndShadow() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("w.png", data: try Self.white(200, 200), contentType: "image/png")
            let text = Self.b64("IMAGO IMAGO")
            /// The bounding box of the dark pixels.
            func extent(_ path: String) async throws -> (width: Int, height: Int, dark: Int) {
                let b = try await h.get(path).image().buffer.converted(to: .rgba8)
                var x0 = Int.max, x1 = -1, y0 = Int.max, y1 = -1, dark = 0
                for y in 0..<b.height {
                    for x in 0..<b.width {
                        guard let c = b.color(atX: x, y: y), Int(c.r) + Int(c.g) + Int(c.b) < 600 else { continue }
                        x0 = min(x0, x)
                        x1 = max(x1, x)
                        y0 = min(y0, y)
                        y1 = max(y1, y)
                        dark += 1
                    }
                }
                return (x1 - x0 + 1, y1 - y0 + 1, dark)
            }
            let flat = try await extent(h.plain("wm:1/wmt:\(text)", "/img/w.png"))
            let turned = try await extent(h.plain("wm:1/wmt:\(text)/wmr:90", "/img/w.png"))
            #expect(flat.width > 2 * flat.height && turned.height > 2 * turned.width, "\(flat) then \(turned)")
            let shadowed = try await extent(h.plain("wm:1/wmt:\(text)/wmsh:3", "/img/w.png"))
            #expect(shadowed.dark > flat.dark * 3 / 2 && shadowed.width >= flat.width, "\(shadowed) against \(flat)")
            #expect(try await h.get(h.plain("wm:1/wmt:\(text)/wmsh:500", "/img/w.png")).status == 404)
        }
    }

    @Test("watermark_url: refused without signing; with it, the image fetched as a source and placed")
    func url() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("w.png", data: try Self.white(200, 100), contentType: "image/png")
            let red = try ImageCoderRegistry.shared.encode(
                Image(buffer: try PixelBuffer(width: 20, height: 20, format: .rgba8, bytes: Array(repeating: [255, 0, 0, 255], count: 400).flatMap { $0 })),
                as: .png)
            h.origin.register("mark.png", data: red, contentType: "image/png")
            let unsigned = try await h.get(h.plain("wm:1/wmu:\(Self.b64(h.source("/img/mark.png")))", "/img/w.png"))
            #expect(unsigned.status == 403 && unsigned.errorFields["error"] == "watermark_url_unsigned")
        }
        let key = "736563726574", salt = "68656c6c6f"
        try await ServiceHarness.with({
            $0.urls.keys = key
            $0.urls.salts = salt
        }) { h in
            h.origin.register("w.png", data: try Self.white(200, 100), contentType: "image/png")
            let red = try ImageCoderRegistry.shared.encode(
                Image(buffer: try PixelBuffer(width: 20, height: 20, format: .rgba8, bytes: Array(repeating: [255, 0, 0, 255], count: 400).flatMap { $0 })),
                as: .png)
            h.origin.register("mark.png", data: red, contentType: "image/png")
            let signer = try URLSigner(keyList: key, saltList: salt)
            let path = "/wm:1:soea/wmu:\(Self.b64(h.source("/img/mark.png")))/plain/" + ServiceHarness.escaped(h.source("/img/w.png"))
            let r = try await h.get("/" + signer.signature(for: path) + path)
            #expect(r.status == 200)
            let b = try r.image().buffer.converted(to: .rgba8)
            let corner = try #require(b.color(atX: 195, y: 95))
            #expect(corner.r > 200 && corner.g < 60, "\(corner)")
            #expect(try #require(b.color(atX: 5, y: 5)).g > 200)
            #expect(h.origin.count("/img/mark.png") == 1)
            // A watermark URL that does not answer is the source's error.
            let missing = "/wm:1/wmu:\(Self.b64(h.source("/img/none.png")))/plain/" + ServiceHarness.escaped(h.source("/img/w.png"))
            #expect(try await h.get("/" + signer.signature(for: missing) + missing).status == 404)
        }
    }
}
