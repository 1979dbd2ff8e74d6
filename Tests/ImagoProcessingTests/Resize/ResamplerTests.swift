// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// Peak signal-to-noise ratio over RGB of two same-size buffers, in dB.
func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double { PixelMetrics.psnr(a, b) }

/// A smooth but detailed synthetic image: gradients plus a sine pattern.
func pattern(width: Int, height: Int) throws -> PixelBuffer {
    var bytes = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let o = (y * width + x) * 4
            let s = sin(Double(x) / 9) * cos(Double(y) / 13)
            bytes[o] = UInt8(x * 255 / max(1, width - 1))
            bytes[o + 1] = UInt8(max(0, min(255, 128 + 100 * s)))
            bytes[o + 2] = UInt8(y * 255 / max(1, height - 1))
        }
    }
    return try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes)
}

@Suite("Resampler")
struct ResamplerTests {
    @Test("output sizes are exact, up and down, odd and extreme", arguments: [ResamplingQuality.lanczos3, .bilinear])
    func sizes(_ quality: ResamplingQuality) throws {
        let source = try pattern(width: 101, height: 67)
        for size in [
            PixelSize(width: 50, height: 33), PixelSize(width: 7, height: 5), PixelSize(width: 1, height: 1),
            PixelSize(width: 303, height: 201), PixelSize(width: 101, height: 1), PixelSize(width: 3, height: 67)
        ] {
            let out = try Resampler.resize(source, to: size, quality: quality)
            #expect(out.size == size && out.format == .argb32Premultiplied)
        }
        #expect(throws: ImageCodingError.self) { try Resampler.resize(source, to: PixelSize(width: 0, height: 5)) }
        #expect(throws: ImageCodingError.self) { try Resampler.resize(source, to: PixelSize(width: -3, height: 5)) }
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 200_000 * 1_000, limit: 100_000_000)) {
            try Resampler.resize(source, to: PixelSize(width: 200_000, height: 1_000))
        }
    }

    @Test("a flat colour stays flat to the edges (no darkening from outside the image)")
    func flat() throws {
        let bytes = [UInt8](repeating: 0, count: 640 * 480 * 4).enumerated().map { i, _ in [200, 120, 40, 255][i % 4] }
        let source = try PixelBuffer(width: 640, height: 480, format: .rgba8, bytes: bytes.map(UInt8.init))
        for size in [PixelSize(width: 37, height: 29), PixelSize(width: 1000, height: 700)] {
            let out = try Resampler.resize(source, to: size).converted(to: .rgba8)
            for i in stride(from: 0, to: out.bytes.count, by: 4) {
                #expect(abs(Int(out.bytes[i]) - 200) <= 1 && abs(Int(out.bytes[i + 2]) - 40) <= 1 && out.bytes[i + 3] == 255)
            }
        }
    }

    @Test("no dark fringe where opaque meets transparent")
    func alphaEdges() throws {
        var bytes = [UInt8](repeating: 0, count: 200 * 100 * 4)
        for y in 0..<100 {
            for x in 0..<100 {
                let o = (y * 200 + x) * 4
                bytes[o] = 255
                bytes[o + 3] = 255
            }
        }
        let source = try PixelBuffer(width: 200, height: 100, format: .rgba8, bytes: bytes)
        let out = try Resampler.resize(source, to: PixelSize(width: 23, height: 11))
        var edge = 0
        for y in 0..<11 {
            for x in 0..<23 {
                guard let c = out.color(atX: x, y: y), c.a > 16 else { continue }
                if c.a < 250 { edge += 1 }
                #expect(c.r >= 240 && c.g <= 12 && c.b <= 12, "(\(x),\(y)) \(c)")
            }
        }
        #expect(edge > 0, "the edge should be partly transparent")
    }

    @Test("large reductions match libvips' Lanczos3 closely", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/vips"), "vips not installed"))
    func againstVips() throws {
        let dir = try TestFiles.temporaryDirectory("imago-vips")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try pattern(width: 1200, height: 900)
        let input = dir.appendingPathComponent("in.png"), output = dir.appendingPathComponent("out.png")
        try ImageCoderRegistry.shared.encode(Image(buffer: source), as: .png).write(to: input)
        for scale in [0.5, 0.25, 0.1] {
            _ = try Subprocess.runSynchronously("/usr/bin/vips", ["resize", input.path, output.path, String(scale), "--kernel", "lanczos3"])
            let reference = try ImageCoderRegistry.shared.decode(Data(contentsOf: output))
            let ours = try Resampler.resize(source, to: reference.pixelSize)
            let db = psnr(ours, reference.buffer)
            #expect(db > 32, "scale \(scale): \(db) dB against vips resize")
        }
    }
}

@Suite("Thumbnailer")
struct ThumbnailerTests {
    @Test("target sizes fit the box, keep the aspect, never upscale, stay at least 1x1")
    func targetSizes() {
        let s = PixelSize(width: 4000, height: 3000)
        #expect(Thumbnailer.targetSize(for: s, within: PixelSize(width: 256, height: 256)) == PixelSize(width: 256, height: 192))
        #expect(Thumbnailer.targetSize(for: s, within: PixelSize(width: 8000, height: 8000)) == s)
        #expect(
            Thumbnailer.targetSize(for: PixelSize(width: 10_000, height: 1), within: PixelSize(width: 100, height: 100))
                == PixelSize(width: 100, height: 1))
        #expect(
            Thumbnailer.targetSize(for: s, within: PixelSize(width: 100, height: 50), preserveAspectRatio: false)
                == PixelSize(width: 100, height: 50))
    }

    @Test(
        "thumbnails of the eight orientations are the same upright picture, close to vipsthumbnail",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func orientationThumbnails() throws {
        let box = PixelSize(width: 200, height: 200)
        let reference = try Thumbnailer.thumbnail(of: ImageInput(Corpus.data("exif-orientation/Landscape_1.jpg")), fitting: box)
        #expect(reference.pixelSize == PixelSize(width: 200, height: 133) && reference.orientation == .up)
        for n in 2...8 {
            let t = try Thumbnailer.thumbnail(of: ImageInput(Corpus.data("exif-orientation/Landscape_\(n).jpg")), fitting: box)
            #expect(t.pixelSize == reference.pixelSize, "Landscape_\(n)")
            #expect(psnr(t.buffer, reference.buffer) > 28, "Landscape_\(n)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/vipsthumbnail") else { return }
        let dir = try TestFiles.temporaryDirectory("imago-vt")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("t.png")
        _ = try Subprocess.runSynchronously(
            "/usr/bin/vipsthumbnail", [Corpus.url("exif-orientation/Landscape_6.jpg").path, "--size", "200", "-o", out.path])
        let vips = try ImageCoderRegistry.shared.decode(Data(contentsOf: out))
        let ours = try Thumbnailer.thumbnail(of: ImageInput(Corpus.data("exif-orientation/Landscape_6.jpg")), fitting: box)
        #expect(vips.pixelSize == ours.pixelSize)
        if vips.pixelSize == ours.pixelSize { #expect(psnr(ours.buffer, vips.buffer) > 30) }
    }

    @Test("bad boxes are errors")
    func bad() throws {
        let png = try ImageCoderRegistry.shared.encode(Image(buffer: try pattern(width: 10, height: 10)), as: .png)
        #expect(throws: ImageCodingError.self) { try Thumbnailer.thumbnail(of: ImageInput(png), fitting: PixelSize(width: 0, height: 10)) }
        let small = try Thumbnailer.thumbnail(of: ImageInput(png), fitting: PixelSize(width: 500, height: 500))
        #expect(small.pixelSize == PixelSize(width: 10, height: 10))
    }
}
