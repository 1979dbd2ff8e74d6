// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("TIFF (libtiff)")
struct TIFFTests {
    let tiff = TIFFCoder()
    let coders = ImageCoderRegistry.makeDefault()

    @Test("round trips: RGB and RGBA, several pages, orientation baked")
    func roundTrips() throws {
        let rgba = Image(buffer: try Fixtures.gradient(width: 40, height: 30, alpha: true))
        let back = try coders.decode(try coders.encode(rgba, as: .tiff))
        #expect(back.format == .tiff && back.hasAlpha)
        // Compared premultiplied: colours under alpha 0 are not stored by a premultiplied decoder.
        let a = back.buffer.bytes, b = rgba.buffer.converted(to: .argb32Premultiplied).bytes
        #expect(zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        let rgb = Image(buffer: try Fixtures.coordinates(width: 300, height: 200))
        #expect(try coders.decode(try coders.encode(rgb, as: .tiff)).buffer == rgb.buffer.converted(to: .argb32Premultiplied))
        let pages = try Image(frames: [ImageFrame(buffer: rgb.buffer), ImageFrame(buffer: try Fixtures.gradient(width: 300, height: 200))])
        let multi = try coders.decode(try coders.encode(pages, as: .tiff))
        let multiInfo = try coders.info(of: try coders.encode(pages, as: .tiff))
        #expect(multi.frameCount == 2 && multiInfo.frameCount == 2)
        var turned = rgb
        turned.orientation = .right
        #expect(try coders.decode(try coders.encode(turned, as: .tiff)).pixelSize == PixelSize(width: 200, height: 300))
    }

    @Test(
        "image-rs's reference decodes (bilevel, fax G4, predictors, PackBits, planar, 16-bit) match within 1",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func references() throws {
        let png = PNGCoder()
        for name in ["fax4", "l1", "mandrill", "planar", "rgb-3c-16b"] {
            let image = try coders.decode(Corpus.data("image-rs-image/tiff/testsuite/\(name).tiff"))
            let reference = try png.decode(Corpus.data("image-rs-image/reference/tiff/testsuite/\(name).tiff.png"), options: .default)
            #expect(image.pixelSize == reference.pixelSize, "\(name)")
            #expect(Fixtures.difference(image.buffer, reference.buffer).max <= 1, "\(name)")
        }
        // hpredict*: associated (premultiplied) alpha. image-rs's references hold those stored values
        // as they are, so they are compared as premultiplied pixels; shown straight, they are the
        // colours Pillow reports too (e.g. (255, 255, 0, 165) for the stored (165, 165, 0, 165)).
        for name in ["hpredict", "hpredict_packbits"] {
            let image = try coders.decode(Corpus.data("image-rs-image/tiff/testsuite/\(name).tiff"))
            let stored = try png.decode(
                Corpus.data("image-rs-image/reference/tiff/testsuite/\(name).tiff.png"),
                options: DecodeOptions(pixelFormat: .rgba8)
            ).buffer.bytes
            let o = PixelFormat.argbOffsets
            let ours = image.buffer.bytes
            let same = (0..<(stored.count / 4)).allSatisfy { i in
                ours[i * 4 + o.r] == stored[i * 4] && ours[i * 4 + o.g] == stored[i * 4 + 1]
                    && ours[i * 4 + o.b] == stored[i * 4 + 2] && ours[i * 4 + o.a] == stored[i * 4 + 3]
            }
            #expect(same, "\(name)")
            #expect(image.buffer.color(atX: 10, y: 10) == RGBA8(r: 255, g: 255, b: 0, a: 165))
        }
    }

    @Test(
        "Pillow's page counts; every TIFF in the corpus decodes or gives a typed error",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func corpus() throws {
        #expect(try coders.decode(Corpus.data("pillow/tiff/multipage.tiff")).frameCount == 3)
        #expect(try coders.info(of: Corpus.data("pillow/tiff/multipage.tiff")).frameCount == 3)
        #expect(try coders.decode(Corpus.data("pillow/tiff/multipage-lastframe.tif")).frameCount == 1)
        var decoded = 0, failed = 0
        for folder in ["image-tiff", "pillow/tiff", "image-rs-image/tiff"] {
            for url in Corpus.files(in: folder, extensions: ["tif", "tiff"]) {
                do {
                    _ = try coders.decode(Data(contentsOf: url))
                    decoded += 1
                } catch is ImageCodingError { failed += 1 }
            }
        }
        print("TIFF corpus sweep: \(decoded) decoded, \(failed) typed errors")
        #expect(decoded > 150)
    }

    @Test(
        "a page decoded alone keeps its own size; all pages together share the largest page's canvas",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func pagesAtTheirOwnSizes() throws {
        // Page sizes as Pillow reports them.
        let multipage = try Corpus.data("pillow/tiff/multipage.tiff")
        func page(_ data: Data, _ n: Int) throws -> Image {
            var options = DecodeOptions(pixelFormat: .rgba8)
            options.page = n
            return try coders.decode(data, options: options)
        }
        #expect(try page(multipage, 0).pixelSize == PixelSize(width: 10, height: 10))
        #expect(try page(multipage, 1).pixelSize == PixelSize(width: 10, height: 10))
        #expect(try page(multipage, 2).pixelSize == PixelSize(width: 20, height: 20))
        #expect(try page(multipage, 2).frameCount == 1)
        let dscf = try Corpus.data("image-tiff/libtiffpic/dscf0013.tif")
        #expect(try page(dscf, 0).pixelSize == PixelSize(width: 640, height: 480))
        #expect(try page(dscf, 1).pixelSize == PixelSize(width: 160, height: 120), "the EXIF thumbnail page")
        let overviews = try Corpus.data("pillow/tiff/tiff_strip_planar_raw_with_overviews.tif")
        #expect(try page(overviews, 4).pixelSize == PixelSize(width: 18, height: 24))
        // The same pixels as the page's corner of the shared canvas.
        let all = try coders.decode(multipage, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(all.pixelSize == PixelSize(width: 20, height: 20))
        let alone = try page(multipage, 0).buffer
        let canvas = all.frames[0].buffer
        let corner = (0..<10).flatMap { y in canvas.bytes[(y * canvas.bytesPerRow)..<(y * canvas.bytesPerRow + 40)] }
        #expect(alone.bytes == corner)
        #expect(throws: ImageCodingError.invalidArgument("page 3 is out of range: the image has 3 page(s)")) { try page(multipage, 3) }
    }

    @Test("through the registry, page N of an animation is frame N composited, as a still")
    func animationPage() throws {
        let frames = try (0..<4).map { i in
            ImageFrame(
                buffer: try PixelBuffer(
                    width: 8, height: 6, format: .rgba8,
                    bytes: [UInt8]((0..<48).flatMap { _ in [UInt8(i * 60), 100, 200, 255] })),
                duration: 0.1)
        }
        let gif = try coders.encode(try Image(frames: frames, loopCount: 0), as: .gif)
        let reference = try coders.decode(gif, options: DecodeOptions(pixelFormat: .rgba8)).frames
        for n in 0..<4 {
            var options = DecodeOptions(pixelFormat: .rgba8)
            options.page = n
            let still = try coders.decode(gif, options: options)
            #expect(still.frameCount == 1 && still.buffer.bytes == reference[n].buffer.bytes, "frame \(n)")
        }
        var past = DecodeOptions()
        past.page = 4
        #expect(throws: ImageCodingError.invalidArgument("page 4 is out of range: the image has 4 frame(s)")) {
            try coders.decode(gif, options: past)
        }
    }
}
