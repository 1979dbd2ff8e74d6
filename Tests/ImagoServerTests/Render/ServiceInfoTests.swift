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

/// `/info` with imgproxy Pro's options and keys: the header's facts by default, the pixel
/// analyses (placeholders, colours, transparency) and digests when asked.
@Suite("Service /info")
struct ServiceInfoTests {
    static func json(_ reply: Reply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
    }

    @Test("by default: size, format, mime_type and the shown dimensions with the orientation")
    func defaults() async throws {
        try await ServiceHarness.with { h in
            // Stored 64x48, orientation 6: shown 48x64.
            let data = try ServerFixtures.jpeg(width: 64, height: 48, orientation: .right)
            h.origin.register("turned.jpg", data: data, contentType: "image/jpeg")
            let r = try await h.get("/info" + h.plain("", "/img/turned.jpg"))
            #expect(r.status == 200 && r["content-type"] == "application/json")
            let json = try Self.json(r)
            #expect(json["size"] as? Int == data.count)
            #expect(json["format"] as? String == "jpeg" && json["mime_type"] as? String == "image/jpeg")
            #expect(json["width"] as? Int == 48 && json["height"] as? Int == 64 && json["orientation"] as? Int == 6)
            for key in ["blurhash", "thumb_hash", "average", "dominant_colors", "palette", "hashsums", "alpha", "bands"] {
                #expect(json[key] == nil, "\(key) is off by default")
            }
            // Turned off one by one.
            let bare = try Self.json(try await h.get("/info" + h.plain("s:0/f:0/d:0", "/img/turned.jpg")))
            for key in ["size", "format", "mime_type", "width", "height", "orientation"] { #expect(bare[key] == nil, "\(key)") }
            #expect(h.service.renderCount == 0, "the header is enough")
        }
    }

    @Test("/info's crop is the render's: c:100.6 is 100 pixels wide in both (imgproxy truncates), c:0 the whole side")
    func cropAsRendered() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 200, height: 100))
            let info = try Self.json(try await h.get("/info" + h.plain("c:100.6:50.9", "/img/a.png")))
            let crop = try #require(info["crop"] as? [String: Double])
            #expect(crop["width"] == 0.5 && crop["height"] == 0.5, "\(crop)")
            let rendered = try await h.get(h.plain("c:100.6:50.9", "/img/a.png", ext: "png"))
            let image = try ImageCoderRegistry.shared.decode(rendered.body)
            #expect(image.buffer.width == 100 && image.buffer.height == 50)
            // A side of 0 is the whole side in both; fractions round as imgproxy's do.
            let whole = try #require(try Self.json(try await h.get("/info" + h.plain("c:0:0.255", "/img/a.png")))["crop"] as? [String: Double])
            #expect(whole["width"] == 1 && whole["height"] == 0.26, "\(whole)")
            let cut = try ImageCoderRegistry.shared.decode(try await h.get(h.plain("c:0:0.255", "/img/a.png", ext: "png")).body)
            #expect(cut.buffer.width == 200 && cut.buffer.height == 26)
        }
    }

    @Test(
        "EXIF, IPTC and XMP by default, as imgproxy Pro names them; tag names on request; each can be turned off",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func metadata() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("iptc.jpg", data: try Corpus.data("pillow/jpeg/iptc.jpg"), contentType: "image/jpeg")
            h.origin.register("xmp.jpg", data: try Corpus.data("image-rs-image/jpg/exif-xmp-metadata.jpg"), contentType: "image/jpeg")
            let json = try Self.json(try await h.get("/info" + h.plain("", "/img/iptc.jpg")))
            let exif = try #require(json["exif"] as? [String: String])
            #expect(exif["Manufacturer"] == "Nokia" && exif["Date and Time (Original)"] == "2006:07:08 21:14:45")
            let iptc = try #require(json["iptc"] as? [String: Any])
            #expect(iptc["City"] as? String == "Budapest" && (iptc["Keywords"] as? [String])?.count == 7)
            #expect(json["xmp"] == nil, "the file has none")
            let canonical = try Self.json(try await h.get("/info" + h.plain("exif:1:1", "/img/iptc.jpg")))
            #expect((canonical["exif"] as? [String: String])?["Make"] == "Nokia")
            let off = try Self.json(try await h.get("/info" + h.plain("exif:0/iptc:0/xmp:0", "/img/iptc.jpg")))
            #expect(off["exif"] == nil && off["iptc"] == nil)
            let xmp = try Self.json(try await h.get("/info" + h.plain("", "/img/xmp.jpg")))
            let dc = try #require((xmp["xmp"] as? [String: Any])?["dc"] as? [String: Any])
            #expect(dc["description"] as? String == "test image for XMP metadata")
        }
    }

    @Test("placeholders and colours from the pixels, as the library makes them")
    func pixelAnalyses() async throws {
        try await ServiceHarness.with { h in
            let pixels = try Fixtures.noisy(width: 300, height: 200, amplitude: 6)
            let data = try ImageCoderRegistry.shared.encode(Image(buffer: pixels), as: .png)
            h.origin.register("photo.png", data: data, contentType: "image/png")
            let r = try await h.get("/info" + h.plain("bh:4:3/th:1/avg:1/dc:1:1/p:8/a:1:1/cs:1/b:1/sf:1/pn:1", "/img/photo.png"))
            #expect(r.status == 200)
            let json = try Self.json(r)
            let blur = try #require(json["blurhash"] as? String)
            #expect(try BlurHash.components(of: blur) == (4, 3))
            // The library's hash of the same picture, shrunk the same way, decodes alike.
            let ours = try BlurHash.decode(try BlurHash.encode(pixels), width: 8, height: 6)
            let theirs = try BlurHash.decode(blur, width: 8, height: 6)
            #expect(PixelMetrics.psnr(ours, theirs) > 35)
            let thumbHex = try #require(json["thumb_hash"] as? String)
            #expect(thumbHex == thumbHex.uppercased() && thumbHex.count % 2 == 0)
            let thumb = stride(from: 0, to: thumbHex.count, by: 2).compactMap { i -> UInt8? in
                let start = thumbHex.index(thumbHex.startIndex, offsetBy: i)
                return UInt8(thumbHex[start..<thumbHex.index(start, offsetBy: 2)], radix: 16)
            }
            #expect(try ThumbHash.aspectRatio(of: thumb) > 1)
            let average = try #require(json["average"] as? [String: Int])
            let expected = ImageColors.average(pixels)
            #expect(abs(average["R", default: -99] - Int(expected.r)) <= 3 && abs(average["G", default: -99] - Int(expected.g)) <= 3)
            #expect(abs(average["B", default: -99] - Int(expected.b)) <= 3 && average["A"] == 255)
            let dominant = try #require(json["dominant_colors"] as? [String: [String: Int]])
            #expect(dominant.count == 6, "build_missed fills every target: \(dominant.keys)")
            #expect(dominant.values.allSatisfy { $0.count == 3 && $0["A"] == nil })
            let palette = try #require(json["palette"] as? [[String: Int]])
            #expect((2...8).contains(palette.count) && palette.allSatisfy { $0.count == 4 })
            #expect(json["alpha"] as? Bool == false && json["transparent"] as? Bool == false)
            #expect(json["colorspace"] as? String == "srgb" && json["bands"] as? Int == 3 && json["sample_format"] as? String == "uchar")
            #expect(json["pages_number"] as? Int == 1)
        }
    }

    @Test("alpha: the channel from the header, real transparency from the pixels")
    func transparency() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("clear.png", data: try ServerFixtures.png(width: 40, height: 30, alpha: true), contentType: "image/png")
            let opaque = try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: 40, height: 30), hasAlpha: true), as: .png)
            h.origin.register("opaque.png", data: opaque, contentType: "image/png")
            let clear = try Self.json(try await h.get("/info" + h.plain("a:1:1/avg:1:0", "/img/clear.png")))
            #expect(clear["alpha"] as? Bool == true && clear["transparent"] as? Bool == true)
            #expect(((clear["average"] as? [String: Int])?["A"] ?? 255) < 255)
            let solid = try Self.json(try await h.get("/info" + h.plain("a:1:1", "/img/opaque.png")))
            #expect(solid["transparent"] as? Bool == false)
        }
    }

    @Test("digests: calc_hashsums reports them, hashsum refuses a source that differs (422)")
    func hashsums() async throws {
        try await ServiceHarness.with { h in
            let data = try ServerFixtures.png(width: 20, height: 20)
            h.origin.register("p.png", data: data, contentType: "image/png")
            let json = try Self.json(try await h.get("/info" + h.plain("chs:md5:sha256", "/img/p.png")))
            let sums = try #require(json["hashsums"] as? [String: String])
            #expect(sums["md5"] == MD5.hex([UInt8](data)))
            #expect(sums["sha256"]?.count == 64 && sums["sha1"] == nil)
            #expect(try await h.get("/info" + h.plain("hs:md5:\(MD5.hex([UInt8](data)))", "/img/p.png")).status == 200)
            let wrong = try await h.get("/info" + h.plain("hs:md5:\(String(repeating: "0", count: 32))", "/img/p.png"))
            #expect(wrong.status == 422 && wrong.errorFields["error"] == "hashsum_mismatch")
        }
    }

    @Test("bad options: unknown names 404, bad arguments refused; ETags follow the options")
    func options() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("p.png", data: try ServerFixtures.png(width: 20, height: 20), contentType: "image/png")
            #expect(try await h.get("/info" + h.plain("w:10", "/img/p.png")).status == 404)
            for bad in ["bh:10:3", "bh:4", "p:1", "p:300", "chs:crc32", "hs:sha3:00"] {
                let r = try await h.get("/info" + h.plain(bad, "/img/p.png"))
                #expect((400..<500).contains(r.status), "\(bad): \(r.status)")
            }
            let plain = try await h.get("/info" + h.plain("", "/img/p.png"))
            let hashed = try await h.get("/info" + h.plain("bh:3:3", "/img/p.png"))
            let etag = try #require(plain["etag"])
            #expect(etag != hashed["etag"])
            #expect(try await h.get("/info" + h.plain("", "/img/p.png"), headers: ["If-None-Match": etag]).status == 304)
        }
    }
}
