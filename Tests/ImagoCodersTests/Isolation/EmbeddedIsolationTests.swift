// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

/// An image inside another (an SVG's `data:` image, an ICNS icon's JPEG 2000 entry) is decoded
/// where the registry decoding the outer one sends its format: a format isolated on its own is
/// not decoded in the host because it came inside a container that is not.
@Suite("Embedded images follow the isolation of the registry decoding them")
struct EmbeddedIsolationTests {
    /// A registry that decodes `formats` in one sandboxed worker (the test probe) and the
    /// rest, SVG and ICNS included, in process.
    static func isolating(_ formats: Set<ImageFormat>) -> ImageCoderRegistry {
        ImageCoderRegistry.makeDefault().isolating(
            DecoderIsolation(
                formats: formats, video: false, workers: 1, executable: DecoderIsolationTests.probe.path,
                timeout: .seconds(20), quarantine: .seconds(600), memoryLimit: 2 << 30))
    }

    @Test(
        "an SVG drawn in process sends its embedded AVIF to the worker, and draws the same pixels",
        .enabled(if: SVGCoder().canDecode(.svg) && AVIFCoder().canDecode(.avif), "librsvg or libavif is missing"),
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func svgEmbeddedAVIF() async throws {
        let avif = try Corpus.data("pillow/avif/icc_profile_none.avif").base64EncodedString()
        let svg = Data(SVGRenderFixesTests.document(imageURL: "data:image/avif;base64," + avif).utf8)
        let coders = Self.isolating([.avif])
        #expect(coders.isolationStatistics?.liveWorkers == 0)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        let drawn = try await blocking { try coders.decode(svg, options: options) }.frames[0].buffer
        // The AVIF went to a worker: the pool started its one worker for it.
        #expect(coders.isolationStatistics?.liveWorkers == 1)
        let local = try SVGCoder().decode(svg, options: options).frames[0].buffer
        #expect(PixelMetrics.psnrPremultiplied(drawn, local) == .infinity)
        #expect(drawn.color(atX: 50, y: 50)?.a == 255)
    }

    @Test(
        "an ICNS icon decoded in process reads and decodes its JPEG 2000 entry in the worker",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/opj_compress"), "opj_compress is missing"))
    func icnsJPEG2000Entry() async throws {
        let source = try Fixtures.gradient(width: 64, height: 64)
        let jp2 = try await JPEG2000DecodingTests.compress(source, ext: "jp2")
        let icon = ICNSTests.icns([("ic12", jp2)])
        let coders = Self.isolating([.jp2])
        let image = try await blocking { try coders.decode(icon, options: DecodeOptions(pixelFormat: .rgba8)) }
        #expect(coders.isolationStatistics?.liveWorkers == 1)
        let same = image.format == .icns && image.buffer == source
        #expect(same)
        // A coder called directly, outside any registry's decode, decodes as the shared registry does.
        let direct = try ICNSCoder().decode(icon, options: DecodeOptions(pixelFormat: .rgba8))
        let sameDirect = direct.buffer == source
        #expect(sameDirect)
    }
}
