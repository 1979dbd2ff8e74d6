// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// Conversions to JPEG that flow from decoder to encoder in rows must write what decoding the
/// whole image and encoding it writes.
@Suite("Streamed transcoding to JPEG")
struct StreamedTranscodingTests {
    let coders = ImageCoderRegistry.shared

    /// The whole-image path as `imago convert` takes it: decode in the exact format, encode.
    func whole(_ data: Data, _ options: EncodeOptions, colorManagement: Bool = true) throws -> Data {
        let decode = DecodeOptions(pixelFormat: .exact(for: try coders.info(of: data)), colorManagement: colorManagement)
        return try coders.encode(try coders.decode(data, options: decode), as: .jpeg, options: options)
    }

    @Test(
        "PNG (RGB, RGBA, gray), baseline and progressive JPEG: the same JPEG as decoding whole",
        arguments: ["rgb.png", "rgba.png", "gray.png", "baseline.jpg", "progressive.jpg"])
    func sameBytes(_ name: String) throws {
        let gradient = try Fixtures.gradient(width: 301, height: 203, alpha: name == "rgba.png")
        let image = Image(buffer: name == "gray.png" ? gradient.converted(to: .gray8) : gradient)
        let source: Data =
            name.hasSuffix(".png")
            ? try coders.encode(image, as: .png)
            : try coders.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.95, progressive: name == "progressive.jpg"))
        for options in [EncodeOptions(quality: 0.8), EncodeOptions(quality: 0.95, progressive: true)] {
            let streamed = try #require(try StreamedTranscoding.transcode(ImageInput(source), to: .jpeg, options: options))
            let reference = try whole(source, options)
            if name == "rgba.png" {
                // Flattening premultiplied rows rounds once more than flattening straight pixels.
                let a = try coders.decode(streamed).buffer, b = try coders.decode(reference).buffer
                #expect(Fixtures.difference(a, b).max <= 2, "\(name), quality \(options.quality)")
            } else {
                #expect(streamed == reference, "\(name), quality \(options.quality)")
            }
        }
        if name == "gray.png" {
            let info = try coders.info(of: try #require(try StreamedTranscoding.transcode(ImageInput(source), to: .jpeg)))
            #expect(info.isGrayscale, "a gray source stays a gray JPEG")
        }
    }

    @Test(
        "colour-managed and metadata-keeping conversions of the corpus's JPEGs match the whole path",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason),
        arguments: ["libavif/apple_gainmap_new.jpg", "pillow/jpeg/flower2.jpg", "exif-orientation/Landscape_1.jpg"])
    func corpusJPEGs(_ path: String) throws {
        let data = try Corpus.data(path)
        for colorManagement in [true, false] {
            let options = EncodeOptions(quality: 0.85)
            let decode = DecodeOptions(colorManagement: colorManagement)
            let streamed = try #require(try StreamedTranscoding.transcode(ImageInput(data), to: .jpeg, options: options, decodeOptions: decode))
            #expect(streamed == (try whole(data, options, colorManagement: colorManagement)), "\(path), colour management \(colorManagement)")
            // With metadata kept, the profile is written only when it was not applied.
            let kept = try coders.decode(streamed, options: DecodeOptions(colorManagement: false)).metadata.iccProfile
            let hasProfile = try coders.info(of: data).hasICCProfile
            #expect((kept != nil) == (!colorManagement && hasProfile), "\(path)")
        }
    }

    @Test(
        "PNG to PNG streams straight rows: PngSuite's files keep every visible pixel and alpha as libpng decodes them",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func pngToPNG() throws {
        let straight = DecodeOptions(pixelFormat: .rgba8, colorManagement: false)
        var streamedCount = 0
        for url in Corpus.files(in: "pngsuite", extensions: ["png"]) where !url.lastPathComponent.hasPrefix("x") {
            let data = try Data(contentsOf: url)
            guard let info = try? coders.info(of: data), info.frameCount == 1 else { continue }
            guard let png = try StreamedTranscoding.transcode(ImageInput(data), to: .png, decodeOptions: DecodeOptions(colorManagement: false)) else {
                #expect(info.progressive, "\(url.lastPathComponent): only interlaced files should not stream")
                continue
            }
            streamedCount += 1
            let want = try coders.decode(data, options: straight).buffer.bytes
            let got = try coders.decode(png, options: straight).buffer.bytes
            #expect(got.count == want.count, "\(url.lastPathComponent)")
            var bad = 0
            for i in stride(from: 0, to: min(got.count, want.count), by: 4)
            where got[i + 3] != want[i + 3]
                || (want[i + 3] > 0 && (got[i] != want[i] || got[i + 1] != want[i + 1] || got[i + 2] != want[i + 2]))
            {
                bad += 1
            }
            #expect(bad == 0, "\(url.lastPathComponent): \(bad) pixels changed")
            let out = try coders.info(of: png)
            #expect(out.isGrayscale == info.isGrayscale, "\(url.lastPathComponent): gray stays gray, colour stays colour")
        }
        #expect(streamedCount >= 100, "streamed \(streamedCount) PngSuite files")
    }

    /// The whole-image path to WebP as the service takes it: straight pixels in, the encoder's bytes out.
    func wholeWebP(_ data: Data, _ options: EncodeOptions, colorManagement: Bool = true) throws -> Data {
        let decode = DecodeOptions(pixelFormat: .exact(for: try coders.info(of: data)), colorManagement: colorManagement)
        return try coders.encode(try coders.decode(data, options: decode), as: .webp, options: options)
    }

    @Test(
        "PNG and JPEG to lossy WebP: the whole-image encoder's bytes, alpha only where a pixel is not opaque",
        arguments: ["rgb", "rgba", "opaque rgba", "gray", "odd", "jpeg"])
    func webPSameBytes(_ kind: String) throws {
        let pixels = try Fixtures.noisy(
            width: kind == "odd" ? 333 : 320, height: kind == "odd" ? 77 : 240, alpha: kind == "rgba",
            noisyAlpha: kind == "rgba", amplitude: 8, seed: 3)
        let image = Image(
            buffer: kind == "gray" ? pixels.converted(to: .gray8) : kind == "opaque rgba" ? pixels.converted(to: .rgba8) : pixels,
            hasAlpha: kind.contains("rgba"))
        let source = kind == "jpeg" ? try coders.encode(image, as: .jpeg) : try coders.encode(image, as: .png)
        for options in [EncodeOptions(quality: 0.8), EncodeOptions(quality: 0.5), EncodeOptions(quality: 0.95, keepMetadata: false)] {
            let streamed = try #require(try StreamedTranscoding.transcode(ImageInput(source), to: .webp, options: options))
            #expect(streamed == (try wholeWebP(source, options)), "\(kind), quality \(options.quality)")
        }
        let hasAlpha = try coders.info(of: try #require(try StreamedTranscoding.transcode(ImageInput(source), to: .webp))).hasAlpha
        #expect(hasAlpha == (kind == "rgba"), "\(kind): alpha only when some pixel is not opaque")
    }

    @Test(
        "PngSuite's and the corpus's stills to WebP stream to the whole-image encoder's bytes",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func webPCorpus() throws {
        var streamedCount = 0
        var files = Corpus.files(in: "pngsuite", extensions: ["png"]).filter { !$0.lastPathComponent.hasPrefix("x") }
        files += ["pillow/jpeg/flower2.jpg", "exif-orientation/Landscape_1.jpg", "libavif/apple_gainmap_new.jpg"].map(Corpus.url)
        for url in files {
            let data = try Data(contentsOf: url)
            guard let info = try? coders.info(of: data), info.frameCount == 1 else { continue }
            for colorManagement in [true, false] {
                let decode = DecodeOptions(colorManagement: colorManagement)
                guard let webp = try StreamedTranscoding.transcode(ImageInput(data), to: .webp, decodeOptions: decode) else {
                    #expect(info.progressive && info.format == .png, "\(url.lastPathComponent): only interlaced PNGs should not stream")
                    continue
                }
                streamedCount += 1
                #expect(webp == (try wholeWebP(data, .default, colorManagement: colorManagement)), "\(url.lastPathComponent)")
            }
        }
        #expect(streamedCount >= 200, "streamed \(streamedCount)")
    }

    @Test("what cannot stream returns nil: other outputs, animations, lossless WebP, orientation to bake")
    func fallbacks() throws {
        let still = Image(buffer: try Fixtures.gradient(width: 40, height: 30))
        let png = try coders.encode(still, as: .png)
        #expect(try StreamedTranscoding.transcode(ImageInput(png), to: .webp, options: EncodeOptions(lossless: true)) == nil, "lossless WebP")
        #expect(try StreamedTranscoding.transcode(ImageInput(png), to: .gif) == nil)
        #expect(try StreamedTranscoding.transcode(ImageInput(png), to: .png, options: EncodeOptions(progressive: true)) == nil, "interlaced output")
        #expect(try StreamedTranscoding.transcode(ImageInput(try coders.encode(still, as: .webp)), to: .jpeg) == nil)
        let animation = try Image(
            frames: [ImageFrame(buffer: still.buffer, duration: 0.1), ImageFrame(buffer: still.buffer, duration: 0.1)],
            loopCount: 0)
        #expect(try StreamedTranscoding.transcode(ImageInput(try coders.encode(animation, as: .apng)), to: .jpeg) == nil)
        var turned = still
        turned.orientation = .right
        let rotated = try coders.encode(turned, as: .jpeg, options: EncodeOptions(orientation: .writeEXIF))
        #expect(try StreamedTranscoding.transcode(ImageInput(rotated), to: .jpeg) == nil, "orientation must be baked into whole pixels")
        // Written to EXIF instead, it streams, and the orientation survives.
        let kept = try #require(try StreamedTranscoding.transcode(ImageInput(rotated), to: .jpeg, options: EncodeOptions(orientation: .writeEXIF)))
        #expect(try coders.info(of: kept).orientation == .right)
    }

    @Test("damaged sources give the decoder's typed error, not a JPEG")
    func damaged() throws {
        let jpeg = try coders.encode(Image(buffer: try Fixtures.gradient(width: 200, height: 150)), as: .jpeg)
        #expect(throws: ImageCodingError.self) { try StreamedTranscoding.transcode(ImageInput(jpeg.prefix(jpeg.count / 2)), to: .jpeg) }
        let png = try coders.encode(Image(buffer: try Fixtures.gradient(width: 200, height: 150)), as: .png)
        #expect(throws: ImageCodingError.self) { try StreamedTranscoding.transcode(ImageInput(png.prefix(png.count / 2)), to: .jpeg) }
    }

    @Test("a file is converted the same way, read in pieces")
    func fromFile() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try coders.encode(Image(buffer: try Fixtures.gradient(width: 640, height: 480)), as: .png)
        let url = dir.appendingPathComponent("in.png")
        try png.write(to: url)
        let streamed = try #require(try StreamedTranscoding.transcode(ImageInput(contentsOf: url), to: .jpeg))
        #expect(streamed == (try whole(png, .default)))
        let file = try ImageFile(path: url.path)
        #expect(try StreamedTranscoding.transcode(ImageInput(file), to: .jpeg) == streamed)
        #expect(try StreamedTranscoding.transcode(ImageInput(file), to: .webp) == (try wholeWebP(png, .default)))
    }
}
