// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// JPEG 2000 files written by openjpeg's own `opj_compress` with its options (tiles, progression
/// orders, resolution levels, precincts, markers, irreversible compression), decoded by Imago.
@Suite(
    "JPEG 2000: openjpeg's encoder options, gray and alpha components, levels, limits, damage",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/opj_compress"), "opj_compress is missing: run scripts/bootstrap"))
struct JPEG2000DecodingTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// `source` written by `opj_compress` with `arguments`, as .`ext`.
    /// The tool runs off the cooperative pool (``Subprocess``): a child waited for on one of its
    /// two CI threads can stall the parallel run.
    static func compress(_ source: PixelBuffer, ext: String = "j2k", _ arguments: [String] = []) async throws -> Data {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("in.png"), out = dir.appendingPathComponent("out.\(ext)")
        try ImageCoderRegistry.makeDefault().encode(Image(buffer: source), as: .png).write(to: png)
        let (status, _, error) = try await Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/opj_compress"), ["-i", png.path, "-o", out.path] + arguments)
        try #require(status == 0, "opj_compress \(arguments) failed: \(error)")
        return try Data(contentsOf: out)
    }

    @Test("gray is one component and gray with alpha two: header facts and exact pixels")
    func grayComponents() async throws {
        let gray = try Fixtures.gradient(width: 64, height: 40).converted(to: .gray8)
        for ext in ["j2k", "jp2"] {
            let data = try await Self.compress(gray, ext: ext)
            let info = try coders.info(of: data)
            #expect(info.format == .jp2 && info.pixelSize == gray.size && !info.hasAlpha && info.bitDepth == 8, "\(ext)")
            #expect(try coders.decode(data, options: DecodeOptions(pixelFormat: .gray8)).buffer == gray, "\(ext)")
        }
        let grayAlpha = try Fixtures.gradient(width: 64, height: 40, alpha: true).converted(to: .grayAlpha8)
        let data = try await Self.compress(grayAlpha)
        #expect(try coders.info(of: data).hasAlpha)
        let decoded = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(decoded.hasAlpha && decoded.buffer == grayAlpha.converted(to: .rgba8))
    }

    @Test(
        "tiles, progression orders, resolution levels, precincts, code-blocks and markers change the file, never the pixels",
        arguments: [["-t", "32,32"], ["-p", "RPCL"], ["-p", "CPRL"], ["-n", "2"], ["-c", "[64,64]"], ["-b", "16,16"], ["-SOP", "-EPH"]])
    func losslessVariants(_ arguments: [String]) async throws {
        let source = try Fixtures.noisy(width: 96, height: 72, alpha: true)
        let plain = try await Self.compress(source)
        let variant = try await Self.compress(source, arguments)
        #expect(variant != plain)
        let decoded = try coders.decode(variant, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(decoded.buffer == source, "\(arguments)")
        #expect(try coders.info(of: variant).pixelSize == PixelSize(width: 96, height: 72))
    }

    @Test("irreversible compression at 20:1 is smaller and close, not exact")
    func lossy() async throws {
        let source = try Fixtures.gradient(width: 96, height: 72)
        let lossless = try await Self.compress(source, ext: "jp2")
        let lossy = try await Self.compress(source, ext: "jp2", ["-r", "20", "-I"])
        #expect(lossy.count < lossless.count)
        let decoded = try coders.decode(lossy).buffer
        let psnr = PixelMetrics.psnr(decoded, source)
        #expect(psnr > 40 && psnr.isFinite, "\(psnr) dB")
    }

    @Test("shrink-on-load halves per resolution level: the deepest level that still covers the size")
    func resolutionLevels() async throws {
        // opj_compress's default: 6 resolutions, so up to 5 halvings (1/32).
        let data = try await Self.compress(try Fixtures.gradient(width: 160, height: 96))
        func size(_ w: Int, _ h: Int) throws -> PixelSize {
            try coders.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: w, height: h))).pixelSize
        }
        #expect(try size(80, 80) == PixelSize(width: 80, height: 48))
        #expect(try size(20, 20) == PixelSize(width: 20, height: 12))
        #expect(try size(21, 21) == PixelSize(width: 40, height: 24))
        #expect(try size(2, 2) == PixelSize(width: 5, height: 3))
        #expect(try size(1000, 1000) == PixelSize(width: 160, height: 96))
        // A reduced level is the full image averaged down: close to it shrunk.
        let quarter = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, thumbnailPixelSize: PixelSize(width: 40, height: 40)))
        #expect(quarter.buffer.color(atX: 0, y: 0).map { $0.r < 16 && $0.g < 16 } == true)
        #expect(quarter.buffer.color(atX: 39, y: 23).map { $0.r > 239 && $0.g > 239 } == true)
    }

    @Test("limits: the size from the header is refused before decoding; a codestream claiming 100000x100000 too")
    func limits() async throws {
        let data = try await Self.compress(try Fixtures.gradient(width: 160, height: 96))
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 15360, limit: 15359)) {
            try coders.decode(data, options: DecodeOptions(limits: DecodingLimits(maxPixels: 15359)))
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxBytes, found: data.count, limit: 64)) {
            try coders.decode(data, options: DecodeOptions(limits: DecodingLimits(maxBytes: 64)))
        }
        // SIZ: Xsiz and Ysiz at bytes 8 and 12, the tile size XTsiz and YTsiz at 24 and 28 (one tile).
        var huge = data
        #expect(Array(huge.prefix(4)) == [0xFF, 0x4F, 0xFF, 0x51])
        for offset in [8, 12, 24, 28] { huge.replaceSubrange(offset..<(offset + 4), with: [0x00, 0x01, 0x86, 0xA0]) }
        let info = try coders.info(of: huge)
        #expect(info.width == 100_000 && info.height == 100_000)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 10_000_000_000, limit: 100_000_000)) { try coders.decode(huge) }
    }

    @Test("damage: a cut inside the main header is refused; any other cut decodes or gives a typed error")
    func cuts() async throws {
        let source = try Fixtures.noisy(width: 64, height: 48, alpha: true)
        for ext in ["j2k", "jp2"] {
            let data = try await Self.compress(source, ext: ext, ["-t", "32,32"])
            let bytes = [UInt8](data)
            // The first tile part starts at the first SOT marker.
            let sot = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0x90 })
            var refused = 0
            for n in stride(from: 0, to: data.count, by: max(1, data.count / 80)) {
                let failure = codingFailure { try coders.decode(data.prefix(n)) }
                #expect(!failure.hasPrefix("untyped"), "\(ext) cut at \(n): \(failure)")
                if n < sot {
                    #expect(failure != "no error", "\(ext) cut at \(n), inside the header (SOT at \(sot))")
                    refused += 1
                }
            }
            #expect(refused >= 2, "\(ext)")
        }
    }
}
