// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// SVG and PDF sources through the service: drawn at the result's size, never a 5xx.
@Suite(
    "Service: vector sources",
    .enabled(if: SVGCoder().canDecode(.svg) && PDFCoder().canDecode(.pdf), "librsvg, or libImagoPDF with poppler, is missing"))
struct ServiceVectorTests {
    static let icon = Data(
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="16" height="8" viewBox="0 0 16 8">
        <rect width="16" height="8" fill="#00f"/><circle cx="8" cy="4" r="3" fill="#f00"/></svg>
        """.utf8)

    /// A two-page PDF: 200×100 pt pages, the second turned a quarter.
    static let pdf = TestPDF.make(pages: [(200, 100, 0), (200, 100, 90)])

    static func size(_ body: Data) throws -> PixelSize {
        try ImageCoderRegistry.shared.decode(body).frames[0].buffer.size
    }

    @Test("as imgproxy: an SVG with no format asked goes out as SVG, sanitised and unprocessed; a format asked draws it")
    func svgSentAsSVG() async throws {
        try await ServiceHarness.with({ _ in }) { h in
            h.origin.register("icon.svg", data: Self.icon, contentType: "image/svg+xml")
            // Options but no format: the document itself (imgproxy ignores them too), with a policy against scripts.
            for options in ["", "rs:fit:800:800:1", "f:svg", "skp:svg"] {
                let r = try await h.get(h.plain(options, "/img/icon.svg"))
                #expect(r.status == 200 && r["content-type"] == "image/svg+xml" && r.body == Self.icon, "\(options)")
                #expect(r["content-security-policy"]?.contains("default-src 'none'") == true && r["etag"] != nil)
            }
            #expect(try await h.get(h.plain("", "/img/icon.svg", ext: "svg")).status == 200)
            // A format asked: drawn at the result's size.
            let small = try await h.get(h.plain("w:4", "/img/icon.svg", ext: "webp"))
            #expect(small.status == 200 && small["content-type"] == "image/webp")
            #expect(try Self.size(small.body) == PixelSize(width: 4, height: 2))
            // Hostile markup is removed; what cannot be parsed is 422, never sent.
            h.origin.register(
                "evil.svg",
                data: Data(
                    """
                    <svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script>\
                    <a href="javascript:alert(3)"><rect width="5" height="5"/></a></svg>
                    """.utf8), contentType: "image/svg+xml")
            let evil = try await h.get(h.plain("", "/img/evil.svg"))
            #expect(evil.status == 200 && evil.body == Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><a><rect width=\"5\" height=\"5\"/></a></svg>".utf8))
            h.origin.register("broken.svg", data: Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><g></svg>".utf8), contentType: "image/svg+xml")
            let broken = try await h.get(h.plain("", "/img/broken.svg"))
            #expect(broken.status == 422 && broken.errorFields["error"] == "unprocessable_image", "\(broken.status) \(broken.errorFields)")
            // Sent as it is whatever size it declares, as imgproxy sends it (its download reads an SVG
            // as 1x1): the limit guards what this server draws, and it draws nothing here.
            let huge = Data("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30000\" height=\"30000\"/>".utf8)
            h.origin.register("huge.svg", data: huge, contentType: "image/svg+xml")
            let sent = try await h.get(h.plain("", "/img/huge.svg"))
            #expect(sent.status == 200 && sent["content-type"] == "image/svg+xml" && sent.body == huge, "\(sent.status)")
            // Drawn, it is held to the limit as every source is (drawn at the limit's size).
            let drawn = try await h.get(h.plain("rs:fit:64:64", "/img/huge.svg", ext: "png"))
            #expect(drawn.status == 200 && drawn["content-type"] == "image/png", "\(drawn.status)")
        }
        // Drawn, as imgproxy draws it (vectorGuardScale): at most at the limit's size, never refused.
        try await ServiceHarness.with({ $0.security.maxSourceResolution = 1 }) { h in
            h.origin.register(
                "huge.svg",
                data: Data(
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30000\" height=\"15000\"><rect width=\"30000\" height=\"15000\" fill=\"#0a0\"/></svg>"
                        .utf8), contentType: "image/svg+xml")
            let whole = try await h.get(h.plain("", "/img/huge.svg", ext: "png"))
            #expect(whole.status == 200, "\(whole.status) \(whole.errorFields)")
            // 450 MP over a 1 MP limit: each side over sqrt(450), 1414x707.
            #expect(try Self.size(whole.body) == PixelSize(width: 1414, height: 707))
            let small = try await h.get(h.plain("w:100", "/img/huge.svg", ext: "png"))
            #expect(small.status == 200)
            #expect(try Self.size(small.body) == PixelSize(width: 100, height: 50))
            // A result drawn larger than the limit is refused as any render over it is (422, not a 5xx).
            let big = try await h.get(h.plain("rs:fit:5000:5000:1", "/img/huge.svg", ext: "png"))
            #expect(big.status == 422 && big.errorFields["error"] == "limit_exceeded", "\(big.status) \(big.errorFields)")
        }
        // IMAGO_SANITIZE_SVG=false sends the bytes as they are.
        try await ServiceHarness.with({ $0.output.sanitizeSVG = false }) { h in
            let evil = Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>1</script></svg>".utf8)
            h.origin.register("evil.svg", data: evil, contentType: "image/svg+xml")
            let r = try await h.get(h.plain("", "/img/evil.svg"))
            #expect(r.body == evil && r["content-security-policy"]?.hasSuffix("sandbox") == true)
        }
    }

    @Test("IMAGO_ALWAYS_RASTERIZE_SVG: drawn at the result's size, enlarged crisply, as PNG; skp:svg still sends the SVG")
    func svgRasterized() async throws {
        try await ServiceHarness.with({ $0.output.alwaysRasterizeSVG = true }) { h in
            h.origin.register("icon.svg", data: Self.icon, contentType: "image/svg+xml")
            let plain = try await h.get(h.plain("", "/img/icon.svg"))
            #expect(plain.status == 200 && plain["content-type"] == "image/png")
            #expect(try Self.size(plain.body) == PixelSize(width: 16, height: 8))
            // Enlarged: drawn at 800x400, so the disc's edge stays about a pixel wide.
            let big = try await h.get(h.plain("rs:fit:800:800:1", "/img/icon.svg"))
            #expect(big.status == 200)
            let image = try ImageCoderRegistry.shared.decode(big.body)
            let b = image.frames[0].buffer
            #expect(b.size == PixelSize(width: 800, height: 400))
            var blended = 0
            for y in 0..<b.height {
                for x in 0..<b.width {
                    guard let c = b.color(atX: x, y: y) else { continue }
                    if c.r > 40, c.r < 215, c.b > 40, c.b < 215 { blended += 1 }
                }
            }
            // A disc of radius 150 px: a drawn edge has ~1 000 blended pixels; a raster enlarged 50x has tens of thousands.
            #expect(blended < 4_000, "\(blended) blended pixels")
            // Trimmed, it is drawn at its own size and measured as pixels: a fit box no longer
            // enlarges it without el:1 (imgproxy's trim drops the vector's scaling). The blue
            // field goes, leaving the disc, a few pixels across.
            let trimmed = try await h.get(h.plain("t:10/rs:fit:800:800", "/img/icon.svg"))
            let kept = try Self.size(trimmed.body)
            #expect(trimmed.status == 200 && kept.width <= 8 && kept.height <= 8, "\(kept)")
            for path in [h.plain("skp:svg", "/img/icon.svg"), h.plain("", "/img/icon.svg", ext: "svg")] {
                let passed = try await h.get(path)
                #expect(passed.status == 200 && passed["content-type"] == "image/svg+xml" && passed.body == Self.icon)
            }
        }
    }

    @Test("a PDF's first page or a chosen page, as JPEG; hostile vectors get 422")
    func pdfSourceAndHostileInput() async throws {
        try await ServiceHarness.with({ _ in }) { h in
            h.origin.register("doc.pdf", data: Self.pdf, contentType: "application/pdf")
            let first = try await h.get(h.plain("", "/img/doc.pdf"))
            #expect(first.status == 200 && first["content-type"] == "image/jpeg")
            #expect(try Self.size(first.body) == PixelSize(width: 200, height: 100))
            let scaled = try await h.get(h.plain("rs:fit:400:400:1", "/img/doc.pdf", ext: "png"))
            #expect(try Self.size(scaled.body) == PixelSize(width: 400, height: 200))
            let second = try await h.get(h.plain("pg:1", "/img/doc.pdf"))
            #expect(second.status == 200)
            #expect(try Self.size(second.body) == PixelSize(width: 100, height: 200))
            #expect(try await h.get(h.plain("pg:5", "/img/doc.pdf")).status == 422)
            // An entity bomb, a file reference and a broken PDF: each a 422.
            var dtd = "<!ENTITY l0 \"<g/>\">"
            for i in 1...9 { dtd += "<!ENTITY l\(i) \"" + String(repeating: "&l\(i - 1);", count: 10) + "\">" }
            h.origin.register(
                "bomb.svg",
                data: Data(
                    "<?xml version=\"1.0\"?><!DOCTYPE svg [\(dtd)]><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">&l9;</svg>".utf8),
                contentType: "image/svg+xml")
            h.origin.register("broken.pdf", data: Self.pdf.prefix(60), contentType: "application/pdf")
            for path in ["/img/bomb.svg", "/img/broken.pdf"] {
                let r = try await h.get(h.plain("", path))
                #expect(r.status == 422, "\(path): \(r.status) \(r.errorFields)")
            }
        }
    }
}
