import Foundation
import ImagoCore
import ImagoCoders
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

    @Test("image-rs's reference decodes (bilevel, fax G4, predictors, PackBits, planar, 16-bit) match within 1",
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
            let stored = try png.decode(Corpus.data("image-rs-image/reference/tiff/testsuite/\(name).tiff.png"),
                                        options: DecodeOptions(pixelFormat: .rgba8)).buffer.bytes
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

    @Test("Pillow's page counts; every TIFF in the corpus decodes or gives a typed error",
          .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func corpus() throws {
        #expect(try coders.decode(Corpus.data("pillow/tiff/multipage.tiff")).frameCount == 3)
        #expect(try coders.info(of: Corpus.data("pillow/tiff/multipage.tiff")).frameCount == 3)
        #expect(try coders.decode(Corpus.data("pillow/tiff/multipage-lastframe.tif")).frameCount == 1)
        var decoded = 0, failed = 0
        for folder in ["image-tiff", "pillow/tiff", "image-rs-image/tiff"] {
            for url in Corpus.files(in: folder, extensions: ["tif", "tiff"]) {
                do { _ = try coders.decode(Data(contentsOf: url)); decoded += 1 } catch is ImageCodingError { failed += 1 }
            }
        }
        print("TIFF corpus sweep: \(decoded) decoded, \(failed) typed errors")
        #expect(decoded > 150)
    }
}
