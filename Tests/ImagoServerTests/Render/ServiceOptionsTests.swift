// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// Each processing option, through the service, checked on the decoded result.
@Suite("Service options: each option's effect on the result", .serialized)
struct ServiceOptionsTests {
    @Test("sizes: resize, size, width, height, every resizing type, min sizes, zoom, dpr, enlarge, extend, crop, padding, rotate, trim, presets")
    func sizes() async throws {
        try await ServiceHarness.with({ $0.urls.presets = ["thumb": ["rs:fit:50:50"]] }) { h in
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 400, height: 300), contentType: "image/jpeg")
            h.origin.register("framed.png", data: try ServerFixtures.bordered(inner: 60, border: 20))
            let cases: [(String, String, Int, Int)] = [
                ("", "photo.jpg", 400, 300),
                ("rs:fit:100:100", "photo.jpg", 100, 75), ("resize:fit:100:100", "photo.jpg", 100, 75),
                ("s:100:100", "photo.jpg", 100, 75), ("size:100", "photo.jpg", 100, 75),
                ("w:200", "photo.jpg", 200, 150), ("width:200", "photo.jpg", 200, 150), ("h:60", "photo.jpg", 80, 60),
                ("rt:fill/w:100/h:100", "photo.jpg", 100, 100), ("resizing_type:fill/width:100/height:100", "photo.jpg", 100, 100),
                ("rs:force:100:50", "photo.jpg", 100, 50),
                ("rs:fill-down:800:400", "photo.jpg", 400, 200), ("rs:fill-down:200:200", "photo.jpg", 200, 200),
                ("rs:auto:100:200", "photo.jpg", 100, 75), ("rs:auto:200:100", "photo.jpg", 200, 100),
                // A minimum size grows the resize; the asked width or height still crops it (imgproxy's rule).
                ("w:100/mh:150", "photo.jpg", 100, 150), ("h:30/mw:200", "photo.jpg", 200, 30),
                ("h:30/min-width:200", "photo.jpg", 200, 30), ("mw:200", "photo.jpg", 400, 300), ("mh:600/el:1", "photo.jpg", 800, 600),
                ("z:0.5", "photo.jpg", 200, 150), ("zoom:0.5:0.25", "photo.jpg", 200, 75),
                ("dpr:2/w:100", "photo.jpg", 200, 150),
                ("w:800", "photo.jpg", 400, 300), ("w:800/el:1", "photo.jpg", 800, 600), ("w:800/enlarge:true", "photo.jpg", 800, 600),
                ("rs:fit:600:600/ex:1", "photo.jpg", 600, 600), ("rs:fit:600:600/extend:1:so", "photo.jpg", 600, 600),
                ("c:200:100", "photo.jpg", 200, 100), ("crop:0.5:0.5", "photo.jpg", 200, 150), ("c:200:100/w:100", "photo.jpg", 100, 50),
                ("pd:10", "photo.jpg", 420, 320), ("padding:10:20", "photo.jpg", 440, 320), ("pd:1:2:3:4", "photo.jpg", 406, 304),
                ("rot:90", "photo.jpg", 300, 400), ("rotate:180", "photo.jpg", 400, 300), ("rot:270/w:150", "photo.jpg", 150, 200),
                ("t:10", "framed.png", 60, 60), ("trim:10:ffffff", "framed.png", 60, 60), ("t:10/pd:5", "framed.png", 70, 70),
                ("pr:thumb", "photo.jpg", 50, 38), ("preset:thumb/w:20", "photo.jpg", 20, 15)
            ]
            for (options, file, w, hgt) in cases {
                let r = try await h.get(h.plain(options, "/img/\(file)"))
                guard r.status == 200 else {
                    Issue.record("\(options): \(r.status) \(r.errorFields)")
                    continue
                }
                let size = try r.image().pixelSize
                #expect(size.width == w && size.height == hgt, "\(options) on \(file): \(size.width)x\(size.height), expected \(w)x\(hgt)")
            }
            // One download served every size.
            #expect(h.origin.count("/img/photo.jpg") == 1)
        }
    }

    @Test("trim as imgproxy: an image that is all border comes back whole; an animation kept animated is not trimmed")
    func trimEdges() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("white.png", data: try ServerFixtures.bordered(inner: 0, border: 20))
            let whole = try await h.get(h.plain("t:10", "/img/white.png"))
            #expect(whole.status == 200, "\(whole.status)")
            #expect(try whole.image().pixelSize == PixelSize(width: 40, height: 40))
            // Three frames with a square moving over white: trimming by one frame's border would
            // cut the others; imgproxy leaves an animation untrimmed.
            let frames = try (0..<3).map { i -> ImageFrame in
                var bytes = [UInt8](repeating: 255, count: 40 * 30 * 4)
                for y in 5..<15 { for x in (5 + 10 * i)..<(15 + 10 * i) { bytes[(y * 40 + x) * 4] = 0 } }
                return ImageFrame(buffer: try PixelBuffer(width: 40, height: 30, format: .rgba8, bytes: bytes), duration: 0.1)
            }
            h.origin.register("moving.gif", data: try ImageCoderRegistry.shared.encode(try Image(frames: frames), as: .gif))
            let animated = try await h.get(h.plain("t:10", "/img/moving.gif"))
            let image = try animated.image()
            #expect(animated.status == 200 && image.frameCount == 3 && image.pixelSize == PixelSize(width: 40, height: 30))
            // A still of the same first frame is trimmed.
            let still = try await h.get(h.plain("t:10/pg:0", "/img/moving.gif"))
            #expect(still.status == 200)
            #expect(try still.image().pixelSize == PixelSize(width: 10, height: 10))
        }
    }

    @Test("gravity: compass points, focus point and smart pick the kept region")
    func gravity() async throws {
        try await ServiceHarness.with { h in
            // Green grows with y, red with x: the kept region's mean colour says where it was.
            h.origin.register("photo.png", data: try ServerFixtures.png(width: 400, height: 300))
            func mean(_ options: String) async throws -> (r: Double, g: Double) {
                let r = try await h.get(h.plain(options, "/img/photo.png"))
                #expect(r.status == 200, "\(options): \(r.errorFields)")
                let px = try r.image().buffer.converted(to: .rgba8)
                var sr = 0, sg = 0
                for i in stride(from: 0, to: px.bytes.count, by: 4) {
                    sr += Int(px.bytes[i])
                    sg += Int(px.bytes[i + 1])
                }
                let n = Double(px.bytes.count / 4)
                return (Double(sr) / n, Double(sg) / n)
            }
            let north = try await mean("rs:fill:400:50/g:no"), south = try await mean("rs:fill:400:50/gravity:so")
            #expect(north.g < 30 && south.g > 220, "\(north) \(south)")
            let west = try await mean("rs:fill:50:300/g:we"), east = try await mean("rs:fill:50:300/g:ea")
            #expect(west.r < 30 && east.r > 220, "\(west) \(east)")
            let corner = try await mean("c:40:30:soea")
            #expect(corner.r > 220 && corner.g > 220)
            let offset = try await mean("rs:fill:400:50/g:no:0:100")
            #expect(offset.g > north.g + 60, "offsets move the window: \(offset)")
            let focus = try await mean("rs:fill:400:50/g:fp:0.5:0.9")
            #expect(focus.g > 180 && focus.g < 250, "\(focus)")
            let cropped = try await mean("c:100:100:nowe")
            #expect(cropped.r < 70 && cropped.g < 90)
            _ = try await mean("rs:fill:100:100/g:sm")
        }
    }

    @Test("filters and orientation: auto_rotate, flip, background, blur, sharpen, pixelate")
    func filters() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("rotated.jpg", data: try ServerFixtures.jpeg(width: 300, height: 200, orientation: .right), contentType: "image/jpeg")
            h.origin.register("photo.png", data: try ServerFixtures.png(width: 200, height: 100))
            h.origin.register("alpha.png", data: try ServerFixtures.png(width: 100, height: 50, alpha: true))
            // EXIF orientation 6: shown 200x300 by default, stored 300x200 with ar:0.
            #expect(try await h.get(h.plain("", "/img/rotated.jpg")).image().pixelSize == PixelSize(width: 200, height: 300))
            #expect(try await h.get(h.plain("ar:0", "/img/rotated.jpg")).image().pixelSize == PixelSize(width: 300, height: 200))
            #expect(try await h.get(h.plain("auto_rotate:false/w:150", "/img/rotated.jpg")).image().pixelSize == PixelSize(width: 150, height: 100))

            func pixels(_ options: String, _ file: String = "photo.png") async throws -> PixelBuffer {
                let r = try await h.get(h.plain(options, "/img/\(file)"))
                #expect(r.status == 200, "\(options): \(r.errorFields)")
                return try r.image().buffer.converted(to: .rgba8)
            }
            func px(_ b: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] { Array(b.bytes[(y * b.width + x) * 4..<(y * b.width + x) * 4 + 4]) }
            let plain = try await pixels("")
            let flipped = try await pixels("fl:1"), vertical = try await pixels("flip:0:1")
            #expect(px(flipped, 0, 50) == px(plain, 199, 50) && px(vertical, 10, 0) == px(plain, 10, 99))
            let flat = try await pixels("bg:ff0000", "alpha.png")
            #expect(px(flat, 99, 25)[0] > 240 && px(flat, 99, 25)[1] < 20, "transparent pixels take the background")
            let flatJPEG = try await pixels("background:0:0:255/f:jpg", "alpha.png")
            #expect(px(flatJPEG, 99, 25)[2] > 220 && px(flatJPEG, 99, 25)[0] < 40)
            let white = try await pixels("f:jpg", "alpha.png")
            #expect(px(white, 99, 25).allSatisfy { $0 > 230 }, "JPEG without a background flattens over white")
            let blurred = try await pixels("bl:4"), sharpened = try await pixels("sh:2")
            #expect(Fixtures.difference(blurred, plain).mean > 0.2 || Fixtures.difference(blurred, plain).max > 4)
            #expect(Fixtures.difference(sharpened, plain).max > 0)
            let pixelated = try await pixels("pix:10")
            #expect(px(pixelated, 0, 0) == px(pixelated, 9, 9) && px(pixelated, 10, 0) != px(pixelated, 0, 0))
            #expect(try await pixels("pixelate:10").bytes == pixelated.bytes)
        }
    }

    @Test("encoding: quality, format_quality, max_bytes, format, metadata, copyright, colour profile")
    func encoding() async throws {
        try await ServiceHarness.with({ $0.output.formatQuality = [.webp: 40] }) { h in
            let copyright = Self.exif(copyright: "ACME Photo 2026")
            h.origin.register("photo.jpg", data: try ServerFixtures.jpeg(width: 400, height: 300, exif: copyright), contentType: "image/jpeg")
            h.origin.register("photo.png", data: try ServerFixtures.png(width: 64, height: 64))
            let low = try await h.get(h.plain("q:10", "/img/photo.jpg")), high = try await h.get(h.plain("quality:95", "/img/photo.jpg"))
            #expect(low.status == 200 && high.status == 200 && low.body.count < high.body.count / 2)
            let fq = try await h.get(h.plain("fq:jpeg:10:webp:90", "/img/photo.jpg"))
            #expect(abs(fq.body.count - low.body.count) < low.body.count / 10, "fq for the output format wins")
            // ... over the settings', but not over the URL's own q (imgproxy's order: q, fq, settings).
            let both = try await h.get(h.plain("q:95/fq:jpeg:10", "/img/photo.jpg"))
            #expect(both.body.count == high.body.count, "q:95 wins over fq:jpeg:10: \(both.body.count) against \(high.body.count)")
            // IMAGO_FORMAT_QUALITY (webp=40) unless the URL says otherwise.
            let webp40 = try await h.get(h.plain("", "/img/photo.jpg", ext: "webp")), webp90 = try await h.get(h.plain("q:90", "/img/photo.jpg", ext: "webp"))
            #expect(webp40.body.count < webp90.body.count)
            let capped = try await h.get(h.plain("mb:4000", "/img/photo.jpg"))
            #expect(capped.status == 200 && capped.body.count <= 4000 && capped.body.count > 0, "\(capped.body.count)")

            for (options, ext, type) in [
                ("f:png", nil, "image/png"), ("format:webp", nil, "image/webp"), ("ext:gif", nil, "image/gif"),
                ("", "png", "image/png"), ("", "webp", "image/webp"), ("", "jpeg", "image/jpeg"),
                ("", "tiff", "image/tiff"), ("", "bmp", "image/bmp")
            ] as [(String, String?, String)] {
                let r = try await h.get(h.plain(options, "/img/photo.png", ext: ext))
                #expect(r.status == 200 && r["content-type"] == type, "\(options) \(ext ?? ""): \(r.status) \(r["content-type"] ?? "")")
                #expect(ImageFormat(sniffing: r.body)?.mimeType == type)
            }
            // Base64 sources with an extension.
            let encoded = Data(h.source("/img/photo.png").utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let b64 = try await h.get("/_/w:10/" + encoded.prefix(10) + "/" + encoded.dropFirst(10) + ".webp")
            #expect(b64.status == 200 && b64["content-type"] == "image/webp")

            // Metadata: stripped by default; kept with sm:0; only the copyright with kcr.
            func exif(_ options: String) async throws -> Data? {
                let r = try await h.get(h.plain(options, "/img/photo.jpg"))
                return try ImageCoderRegistry.shared.decode(r.body, options: DecodeOptions(colorManagement: false)).metadata.exif
            }
            let text = Data("ACME Photo 2026".utf8)
            #expect(try await exif("kcr:0") == nil)
            #expect(try await exif("strip_metadata:0/w:100")?.range(of: text) != nil)
            #expect(try await exif("keep_copyright:1/w:100")?.range(of: text) != nil)
            #expect(try await exif("w:100")?.range(of: text) != nil, "IMAGO_KEEP_COPYRIGHT defaults to true")
            #expect(try await h.get(h.plain("scp:0", "/img/photo.jpg")).status == 200)
            #expect(try await h.get(h.plain("strip_color_profile:1", "/img/photo.jpg")).status == 200)
        }
    }

    @Test("output and caching options: filename, return_attachment, cachebuster, page, skip_processing, raw")
    func outputOptions() async throws {
        try await ServiceHarness.with { h in
            let jpeg = try ServerFixtures.jpeg(width: 120, height: 80)
            h.origin.register("photo.jpg", data: jpeg, contentType: "image/jpeg")
            h.origin.register("anim.gif", data: try ServerFixtures.animation(frames: 3))
            let plain = try await h.get(h.plain("w:60", "/img/photo.jpg"))
            #expect(plain["content-disposition"] == "inline; filename=\"photo.jpg\"")
            #expect(try await h.get(h.plain("fn:holiday", "/img/photo.jpg", ext: "png"))["content-disposition"] == "inline; filename=\"holiday.png\"")
            #expect(try await h.get(h.plain("att:1", "/img/photo.jpg"))["content-disposition"] == "attachment; filename=\"photo.jpg\"")
            #expect(
                ServiceHeaders.contentDisposition(name: "été", format: .jpeg, attachment: true)
                    == "attachment; filename=\"_t_.jpg\"; filename*=UTF-8''%C3%A9t%C3%A9.jpg")
            #expect(ServiceHeaders.contentDisposition(name: "a\"b/c", format: .png, attachment: false) == "inline; filename=\"abc.png\"")
            let busted = try await h.get(h.plain("w:60/cb:v2", "/img/photo.jpg"))
            #expect(busted.body == plain.body && busted["etag"] != plain["etag"])
            // Page 1 of the animation: its green frame, as a still.
            let page = try await h.get(h.plain("pg:1", "/img/anim.gif", ext: "png"))
            let px = try page.image().buffer.converted(to: .rgba8).bytes
            #expect(px[1] > 200 && px[0] < 50 && px[2] < 50, "\(px.prefix(4))")
            #expect(try await h.get(h.plain("page:7", "/img/anim.gif", ext: "png")).status == 422)
            // A multi-page TIFF's page comes at its own size, not on the largest page's canvas.
            if Corpus.isAvailable {
                h.origin.register("pages.tiff", data: try Corpus.data("pillow/tiff/multipage.tiff"), contentType: "image/tiff")
                for (n, side) in [(0, 10), (2, 20)] {
                    let r = try await h.get(h.plain("pg:\(n)", "/img/pages.tiff", ext: "png"))
                    #expect(
                        r.status == 200 && (try? r.image().pixelSize) == PixelSize(width: side, height: side),
                        "page \(n): \(r.status) \((try? r.image().pixelSize).map { "\($0)" } ?? "-") \(String(decoding: r.body.prefix(300), as: UTF8.self))")
                }
            }
            // skip_processing and raw send the source's bytes untouched.
            let skipped = try await h.get(h.plain("skp:jpg/w:10", "/img/photo.jpg"))
            #expect(skipped.body == jpeg && skipped["content-type"] == "image/jpeg")
            #expect(try await h.get(h.plain("skip_processing:png/w:10", "/img/photo.jpg")).body != jpeg)
            let raw = try await h.get(h.plain("raw:1/w:10", "/img/photo.jpg"))
            #expect(raw.body == jpeg && raw["content-type"] == "image/jpeg")
        }
    }

    /// A little-endian EXIF block holding one Copyright text.
    static func exif(copyright: String) -> Data {
        var text = Array(copyright.utf8) + [0]
        if text.count % 2 == 1 { text.append(0) }
        var b: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0]
        b += [0x98, 0x82, 2, 0]
        let count = copyright.utf8.count + 1
        b += [UInt8(count & 0xFF), UInt8(count >> 8), 0, 0]
        b += [26, 0, 0, 0]
        b += [0, 0, 0, 0]
        return Data(b + text)
    }

    @Test(
        "enforce_thumbnail (and IMAGO_ENFORCE_THUMBNAIL): a HEIC's stored thumbnail is the source; without one, the image",
        .enabled(if: HEIFCoder().canEncode(.heic), "libheif has no HEVC encoder here"))
    func enforceThumbnail() async throws {
        let photo = Image(buffer: try Fixtures.gradient(width: 1200, height: 800))
        let withThumbnail = try ImageCoderRegistry.shared.encode(photo, as: .heic, options: EncodeOptions(embeddedThumbnailSize: 320))
        let stored = try #require(try ImageCoderRegistry.shared.info(of: withThumbnail).embeddedThumbnailSize)
        try await ServiceHarness.with { h in
            h.origin.register("t.heic", data: withThumbnail, contentType: "image/heic")
            h.origin.register("plain.heic", data: try ImageCoderRegistry.shared.encode(photo, as: .heic), contentType: "image/heic")
            func size(_ options: String, _ name: String) async throws -> PixelSize {
                let r = try await h.get(h.plain(options, "/img/" + name, ext: "png"))
                #expect(r.status == 200, "\(options) \(name): \(r.status) \(r.errorFields)")
                return try r.image().pixelSize
            }
            #expect(try await size("eth:1", "t.heic") == stored)
            #expect(try await size("", "t.heic") == PixelSize(width: 1200, height: 800))
            // Sizes are worked out from the thumbnail: enlarging it is asked for, not implied.
            #expect(try await size("eth:1/w:160", "t.heic").width == 160)
            #expect(try await size("eth:1/w:600", "t.heic") == stored)
            #expect(try await size("eth:1", "plain.heic") == PixelSize(width: 1200, height: 800))
            let a = try await h.get(h.plain("eth:1", "/img/t.heic", ext: "png")), b = try await h.get(h.plain("", "/img/t.heic", ext: "png"))
            #expect(a["etag"] != b["etag"])
        }
        try await ServiceHarness.with({ $0.output.enforceThumbnail = true }) { (h: ServiceHarness) async throws in
            h.origin.register("t.heic", data: withThumbnail, contentType: "image/heic")
            #expect(try await h.get(h.plain("", "/img/t.heic", ext: "png")).image().pixelSize == stored)
            #expect(try await h.get(h.plain("eth:0", "/img/t.heic", ext: "png")).image().pixelSize == PixelSize(width: 1200, height: 800))
        }
    }
}
