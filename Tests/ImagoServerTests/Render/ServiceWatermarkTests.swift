// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `watermark`: the service's image (`IMAGO_WATERMARK_DATA`, `_PATH`, `_URL`) fitted,
/// placed and blended as imgproxy's processing/watermark.go does.
@Suite("Watermark")
struct ServiceWatermarkTests {
    static let white = RGBA8(r: 255, g: 255, b: 255)
    static let red = RGBA8(r: 255, g: 0, b: 0)
    static let blue = RGBA8(r: 0, g: 0, b: 255)
    static let magenta = RGBA8(r: 255, g: 0, b: 255)

    static func solid(_ width: Int, _ height: Int, _ c: RGBA8) throws -> PixelBuffer {
        try PixelBuffer(width: width, height: height, format: .rgba8, bytes: [UInt8]((0..<(width * height)).flatMap { _ in [c.r, c.g, c.b, c.a] }))
    }

    static func png(_ width: Int, _ height: Int, _ c: RGBA8) throws -> Data {
        try ImageCoderRegistry.shared.encode(Image(buffer: try solid(width, height, c)), as: .png)
    }

    /// The rectangle (x0, y0, x1, y1) of pixels far from white.
    static func marked(_ b: PixelBuffer) -> [Int]? {
        var r: [Int]?
        for y in 0..<b.height {
            for x in 0..<b.width {
                guard let c = b.color(atX: x, y: y), Int(c.g) + Int(c.b) < 400 else { continue }
                r = r.map { [min($0[0], x), min($0[1], y), max($0[2], x + 1), max($0[3], y + 1)] } ?? [x, y, x + 1, y + 1]
            }
        }
        return r
    }

    @Test("positions, offsets (times the dpr), overflow and scale as imgproxy's calcPosition and watermark pipeline")
    func placement() throws {
        let mark = ServiceWatermark(image: try Self.solid(20, 10, Self.red), digest: "red")
        func at(_ spec: String, dpr: Double = 1) throws -> [Int] {
            let o = try ProcessingOptions(parsing: [spec]).watermark!
            let overlay = try #require(try mark.overlay(for: o, width: 100, height: 80, dprScale: dpr))
            return [overlay.x, overlay.y, overlay.image.width, overlay.image.height]
        }
        // The middle at round-half-to-even of (free + 1) / 2: 81/2 = 40.5 → 40, 71/2 = 35.5 → 36.
        #expect(try at("wm:1:ce") == [40, 36, 20, 10])
        #expect(try at("wm:1:no") == [40, 0, 20, 10])
        #expect(try at("wm:1:so") == [40, 70, 20, 10])
        #expect(try at("wm:1:ea") == [80, 36, 20, 10])
        #expect(try at("wm:1:we") == [0, 36, 20, 10])
        #expect(try at("wm:1:noea") == [80, 0, 20, 10])
        #expect(try at("wm:1:sowe") == [0, 70, 20, 10])
        // Offsets push inward from the named edges, pixels times the dpr, fractions of the result.
        #expect(try at("wm:1:soea:10:20") == [70, 50, 20, 10])
        #expect(try at("wm:1:nowe:10:20", dpr: 2) == [20, 40, 20, 10])
        #expect(try at("wm:1:we:0.1:0.25") == [10, 56, 20, 10])
        // It may stick out, keeping one pixel in.
        #expect(try at("wm:1:nowe:-15:-5") == [-15, -5, 20, 10])
        #expect(try at("wm:1:nowe:-300:500") == [-19, 79, 20, 10])
        // Scale: fitted into half the result (50×40), enlarging: 2.5× → 50×25, then centred.
        #expect(try at("wm:1:ce:0:0:0.5") == [26, 28, 50, 25])
        #expect(try at("wm:1:ce:0:0:0.05") == [48, 39, 5, 3])
        // Replicate: the offsets are the gap between copies, split around each (10 → 5 + 5).
        let tiled = try #require(try mark.overlay(for: .init(opacity: 1, position: .replicate, x: 10, y: 4), width: 100, height: 80, dprScale: 1))
        #expect(tiled.tiled && tiled.image.width == 30 && tiled.image.height == 14)
        #expect(tiled.image.color(atX: 4, y: 5)?.a == 0 && tiled.image.color(atX: 5, y: 2) == Self.red)
        // The copies are centred as libvips replicates them for imgproxy (vips_replicate_go): 100
        // across takes 4 copies of 30, made 5 (odd), so the grid starts 25 px before the edge;
        // 80 down takes 6 copies of 14, made 7, 9 px before it.
        #expect(tiled.x == -25 && tiled.y == -9)
        // Opacity: the URL's times IMAGO_WATERMARK_OPACITY; 0 draws nothing.
        let faint = ServiceWatermark(image: try Self.solid(20, 10, Self.red), digest: "red", opacity: 0.5)
        #expect(try faint.overlay(for: .init(opacity: 0.5), width: 100, height: 80, dprScale: 1)?.opacity == 0.25)
        #expect(try mark.overlay(for: .init(opacity: 0), width: 100, height: 80, dprScale: 1) == nil)
        // A scale no result could show is refused, not allocated.
        #expect(throws: ImageCodingError.self) { try mark.overlay(for: .init(opacity: 1, scale: 1e6), width: 100, height: 80, dprScale: 1) }
    }

    @Test("the service draws it last, over the result's pixels, on every frame; the ETag names it")
    func drawn() async throws {
        try await ServiceHarness.with({ $0.drawing.watermarkImageData = try? Self.png(20, 10, Self.magenta) }) { h in
            h.origin.register("white.png", data: try Self.png(200, 160, Self.white))
            // w:100 halves the source; the mark keeps its size, placed in the result's pixels.
            let r = try await h.get(h.plain("w:100/wm:1:soea:5:5", "/img/white.png", ext: "png"))
            #expect(r.status == 200)
            let out = try r.image().frames[0].buffer
            #expect(out.size == PixelSize(width: 100, height: 80))
            #expect(Self.marked(out) == [75, 65, 95, 75])
            #expect(out.color(atX: 80, y: 70) == Self.magenta && out.color(atX: 50, y: 40) == Self.white)
            // Half opacity over white, in a JPEG: a pale magenta.
            let jpeg = try await h.get(h.plain("w:100/wm:0.5", "/img/white.png", ext: "jpg"))
            let c = try #require(try jpeg.image().frames[0].buffer.color(atX: 50, y: 40))
            #expect(c.r > 240 && c.b > 240 && (110...145).contains(Int(c.g)))
            // No watermark asked, or opacity 0: the plain result, with the same ETag for both.
            let plain = try await h.get(h.plain("w:100", "/img/white.png", ext: "png"))
            let zero = try await h.get(h.plain("w:100/wm:0:soea", "/img/white.png", ext: "png"))
            #expect(try Self.marked(plain.image().frames[0].buffer) == nil && plain["etag"] == zero["etag"])
            #expect(plain["etag"] != r["etag"])
            // Every frame of an animation carries it.
            h.origin.register("anim.gif", data: try ServerFixtures.animation(.gif, frames: 3, width: 60, height: 40))
            let anim = try await h.get(h.plain("wm:1:nowe", "/img/anim.gif"))
            let frames = try anim.image().frames
            #expect(frames.count == 3)
            for (i, frame) in frames.enumerated() {
                let mark = try #require(frame.buffer.color(atX: 3, y: 3)), away = try #require(frame.buffer.color(atX: 30, y: 30))
                #expect(mark.r > 230 && mark.g < 25 && mark.b > 230, "frame \(i): \(mark)")
                #expect(!(away.r > 230 && away.b > 230), "frame \(i): \(away)")
            }
        }
        // Another watermark image: another ETag for the same URL.
        let etags = try await [Self.red, Self.blue].asyncMap { colour in
            try await ServiceHarness.with({ $0.drawing.watermarkImageData = try? Self.png(20, 10, colour) }) { h in
                h.origin.register("white.png", data: try Self.png(200, 160, Self.white))
                return try await h.get(h.plain("wm:1", "/img/white.png", ext: "png"))["etag"]
            }
        }
        #expect(etags[0] != nil && etags[0] != etags[1])
    }

    @Test("IMAGO_WATERMARK_URL: fetched as a source, followed when the origin changes it; unreachable is 503, never an unmarked image")
    func fromURL() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("white.png", data: try Self.png(100, 80, Self.white))
            h.origin.register("wm.png", data: try Self.png(20, 10, Self.red), headers: [("Cache-Control", "no-cache")])
            let origin = h.source("/img/wm.png")
            try await ServiceHarness.with({
                $0.drawing.watermarkImageURL = origin
                $0.security.allowLoopbackSources = true
            }) { s in
                let first = try await s.get("/_/wm:1:nowe/plain/" + ServiceHarness.escaped(h.source("/img/white.png")) + "@png")
                #expect(try first.image().frames[0].buffer.color(atX: 0, y: 0) == Self.red)
                // Replaced at the origin: revalidated (no-cache), decoded again, a new ETag.
                // (Another size: the test origin's ETag is the length and the name.)
                h.origin.register("wm.png", data: try Self.png(24, 12, Self.blue), headers: [("Cache-Control", "no-cache")])
                let second = try await s.get("/_/wm:1:nowe/plain/" + ServiceHarness.escaped(h.source("/img/white.png")) + "@png")
                #expect(try second.image().frames[0].buffer.color(atX: 0, y: 0) == Self.blue)
                #expect(first["etag"] != second["etag"])
            }
            try await ServiceHarness.with({ $0.drawing.watermarkImageURL = h.source("/status/500") }) { s in
                let r = try await s.get("/_/wm:1/plain/" + ServiceHarness.escaped(h.source("/img/white.png")))
                #expect(r.status == 503 && r.errorFields["error"] == "watermark_unavailable" && r["retry-after"] == "5")
                // Without a watermark asked, the same source is answered.
                #expect(try await s.get("/_/w:10/plain/" + ServiceHarness.escaped(h.source("/img/white.png"))).status == 200)
            }
        }
    }

    @Test("settings: checked at start, imgproxy's names accepted, the opacity within (0, 1]")
    func settings() throws {
        let png = try Self.png(4, 4, Self.red)
        for (name, value) in [
            ("IMAGO_WATERMARK_PATH", "/nonexistent/x.png"), ("IMAGO_WATERMARK_DATA", "aGVsbG8="), ("IMAGO_WATERMARK_URL", "ftp://x/a.png"),
            ("IMAGO_WATERMARK_OPACITY", "0"), ("IMAGO_WATERMARK_OPACITY", "1.5"), ("IMAGO_WATERMARK_OPACITY", "x")
        ] {
            let error = #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: [name: value]) }
            #expect(error?.variable == name)
        }
        let c = try ServerConfiguration(environment: [
            "IMGPROXY_WATERMARK_DATA": png.base64EncodedString(), "IMGPROXY_WATERMARK_OPACITY": "0.5"
        ])
        #expect(c.drawing.watermarkImageData == png && c.drawing.watermarkOpacity == 0.5 && c.drawing.hasWatermark)
        // Sniffed as PNG but not decodable: the service does not start.
        var broken = ServerConfiguration()
        broken.drawing.watermarkImageData = png.prefix(40)
        #expect(throws: ConfigurationError.self) { try ImageService(configuration: broken, logger: ServiceHarness.silent) }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
