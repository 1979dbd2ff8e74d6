// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// HDR AVIF (nclx transfer PQ or HLG) tone-mapped to sRGB for a 255-nit display with BT.2408's
/// curve, as libjxl 0.8 and later draw it (libavif and avifdec do not tone-map).
@Suite(
    "AVIF HDR to SDR", .serialized, .enabled(if: Corpus.isAvailable, Corpus.missingReason),
    .enabled(if: AVIFCoder().canDecode(.avif), "libavif is not installed: run scripts/bootstrap"))
struct AVIFHDRTests {
    static let coders = ImageCoderRegistry.shared

    static func decode(_ path: String, managed: Bool = true) throws -> PixelBuffer {
        try coders.decode(Corpus.data(path), options: DecodeOptions(pixelFormat: .rgba8, colorManagement: managed)).frames[0].buffer
    }

    @Test("the same HDR colours stored with BT.709, P3 and BT.2020 primaries come out alike in sRGB")
    func primaries() throws {
        for stem in ["libavif/colors_hdr_", "libavif/colors_text_hdr_"] {
            let srgb = try Self.decode(stem + "srgb.avif")
            for other in ["p3", "rec2020"] {
                let dB = PixelMetrics.psnr(srgb, try Self.decode(stem + other + ".avif"))
                print("\(stem)srgb against \(other): \(String(format: "%.1f", dB)) dB")
                #expect(dB >= 35, "\(stem)\(other)")
            }
        }
        let seine = PixelMetrics.psnr(try Self.decode("libavif/seine_hdr_srgb.avif"), try Self.decode("libavif/seine_hdr_rec2020.avif"))
        print("seine_hdr_srgb against seine_hdr_rec2020: \(String(format: "%.1f", seine)) dB")
        #expect(seine >= 35)
    }

    @Test(
        "BT.2408: the grey steps of hdr_pq_test (0.6 to 10,000 nits) stored as PQ AVIF land where the curve puts them",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/avifenc"), "avifenc is missing: run scripts/bootstrap"),
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/djxl"), "djxl is missing: run scripts/bootstrap"))
    func staircase() async throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("pq.png"), avif = dir.appendingPathComponent("pq.avif")
        let made = try await Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/djxl"), [Corpus.url("libjxl/jxl-rs/hdr_pq_test.jxl").path, png.path, "--bits_per_sample=16"])
        try #require(made.0 == 0, "\(made.2)")
        let encoded = try await Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/avifenc"), [png.path, avif.path, "-l", "-d", "12", "--cicp", "9/16/0", "--ignore-icc", "-s", "10"])
        try #require(encoded.0 == 0, "\(encoded.2)")
        let image = try Self.coders.decode(Data(contentsOf: avif), options: DecodeOptions(pixelFormat: .rgba8)).frames[0].buffer
        // BT.2408 from 10,000 to 255 nits, then sRGB, computed apart (numpy) for the steps of 0.6,
        // 5.1, 24.4, 91.8, 307.9, 981.1, 3095 and 10,000 nits (docs/issue-51-hdr-research.md).
        let expected: [UInt8] = [8, 39, 87, 152, 206, 240, 253, 255]
        let got = (0..<8).map { image.color(atX: $0 * 128, y: 50)?.g ?? 0 }
        print("PQ AVIF steps: \(got)")
        #expect(zip(got, expected).allSatisfy { abs(Int($0) - Int($1)) <= 3 }, "\(got) against \(expected)")
        #expect(got == got.sorted(), "the steps stay in order")
    }

    @Test("the primary item's content light level is read from its clli property, which libavif 0.11 skips")
    func contentLightLevel() throws {
        // The values libheif reports for the same files.
        let levels: [(String, Double?)] = [
            ("colors_hdr_srgb", 486), ("colors_hdr_p3", 470), ("colors_wcg_hdr_rec2020", 506), ("seine_hdr_rec2020", 703),
            ("seine_hdr_gainmap_srgb", 707), ("colors_sdr_srgb", nil)
        ]
        for (name, expected) in levels {
            #expect(AVIFContentLight.maximum(in: try Corpus.data("libavif/\(name).avif")) == expected, "\(name)")
        }
        #expect(AVIFContentLight.maximum(in: Data()) == nil)
    }

    @Test("without colour management the PQ code values are kept as they are stored")
    func keptWithoutColorManagement() throws {
        let kept = try Self.decode("libavif/colors_hdr_srgb.avif", managed: false)
        let mapped = try Self.decode("libavif/colors_hdr_srgb.avif")
        #expect(PixelMetrics.psnr(kept, mapped) < 25)
    }
}
