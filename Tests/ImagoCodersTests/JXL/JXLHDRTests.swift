// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// HDR JPEG XL (PQ and HLG) tone-mapped to sRGB for an SDR display of 255 nits, beside what
/// libjxl's own decoder, `djxl --display_nits=255`, gives.
@Suite(
    "JPEG XL HDR to SDR against djxl", .serialized, .enabled(if: Corpus.isAvailable, Corpus.missingReason),
    .enabled(if: JXLCoder().canDecode(.jxl), "libjxl is not installed: run scripts/bootstrap"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl"), "cjxl is missing: run scripts/bootstrap"))
struct JXLHDRTests {
    static let djxl = URL(fileURLWithPath: "/usr/bin/djxl"), cjxl = URL(fileURLWithPath: "/usr/bin/cjxl")
    /// 1024x1024, lossless (not XYB), 10-bit PQ, BT.2100 primaries: a grey staircase from 0.6 to
    /// 10,000 nits and ramps of saturated primaries.
    static let pqFile = "libjxl/jxl-rs/hdr_pq_test.jxl"

    static func tool(_ tool: URL, _ arguments: [String]) async throws {
        let (status, _, errors) = try await Subprocess.run(tool, arguments)
        try #require(status == 0, "\(tool.lastPathComponent) \(arguments): \(errors)")
    }

    /// The samples of a binary PPM with a maxval of 65535 (what djxl writes with `--bits_per_sample=16`).
    static func ppm16(_ url: URL) throws -> (width: Int, height: Int, samples: [UInt16]) {
        let data = try Data(contentsOf: url)
        let header = data.prefix(64).split(separator: 0x0A, maxSplits: 3, omittingEmptySubsequences: false)
        try #require(header.count == 4 && header[0].elementsEqual("P6".utf8) && header[2].elementsEqual("65535".utf8), "not a 16-bit PPM")
        let size = String(decoding: header[1], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        let start = data.count - size[0] * size[1] * 6
        let bytes = [UInt8](data)
        let samples = (0..<size[0] * size[1] * 3).map { i in UInt16(bytes[start + 2 * i]) << 8 | UInt16(bytes[start + 2 * i + 1]) }
        return (size[0], size[1], samples)
    }

    /// djxl's tone-mapped PQ (peak 255 nits) taken to sRGB as BT.2100 defines PQ and BT.2020's
    /// primaries, 3 bytes a pixel, where the colour lies inside sRGB (elsewhere `inGamut` is
    /// false: gamut mapping is checked against libjxl's own, below).
    static func referencePixels(_ ppm: (width: Int, height: Int, samples: [UInt16])) -> (rgb: [UInt8], inGamut: [Bool]) {
        let m = [1.660_491, -0.587_641, -0.072_850, -0.124_550, 1.132_900, -0.008_349, -0.018_151, -0.100_579, 1.118_730]
        func eotf(_ code: UInt16) -> Double {
            let e = pow(Double(code) / 65535, 32 / 2523.0)
            return pow(max(e - 0.8359375, 0) / (18.8515625 - 18.6875 * e), 16384 / 2610.0) * 10_000 / 255
        }
        func srgb(_ v: Double) -> UInt8 {
            UInt8(((v <= 0.003_130_8 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055) * 255).rounded())
        }
        let count = ppm.width * ppm.height
        var rgb = [UInt8](repeating: 0, count: count * 3), inGamut = [Bool](repeating: false, count: count)
        for i in 0..<count {
            let r = eotf(ppm.samples[i * 3]), g = eotf(ppm.samples[i * 3 + 1]), b = eotf(ppm.samples[i * 3 + 2])
            let out = (m[0] * r + m[1] * g + m[2] * b, m[3] * r + m[4] * g + m[5] * b, m[6] * r + m[7] * g + m[8] * b)
            guard [out.0, out.1, out.2].allSatisfy({ $0 >= -1e-4 && $0 <= 1 + 1e-4 }) else { continue }
            inGamut[i] = true
            (rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2]) = (srgb(min(max(out.0, 0), 1)), srgb(min(max(out.1, 0), 1)), srgb(min(max(out.2, 0), 1)))
        }
        return (rgb, inGamut)
    }

    /// PSNR over RGB of the pixels `reference` has.
    static func psnr(_ image: PixelBuffer, _ reference: (rgb: [UInt8], inGamut: [Bool])) -> (dB: Double, pixels: Int) {
        var squares = 0.0, count = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = y * image.width + x
                guard reference.inGamut[i], let got = image.color(atX: x, y: y) else { continue }
                for (a, b) in zip([got.r, got.g, got.b], reference.rgb[i * 3..<i * 3 + 3]) { squares += pow(Double(a) - Double(b), 2) }
                count += 1
            }
        }
        let mse = squares / Double(max(1, count * 3))
        return (mse == 0 ? .infinity : 10 * log10(255 * 255 / mse), count)
    }

    @Test("PQ: the corpus's HDR file is djxl --display_nits=255's light, in sRGB, within 40 dB (in-gamut pixels)")
    func pqAgainstDJXL() async throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = Corpus.url(Self.pqFile), ppm = dir.appendingPathComponent("ref.ppm")
        try await Self.tool(Self.djxl, [file.path, ppm.path, "--display_nits=255", "--bits_per_sample=16"])
        let reference = Self.referencePixels(try Self.ppm16(ppm))
        let ours = try ImageCoderRegistry.shared.decode(Data(contentsOf: file), options: DecodeOptions(pixelFormat: .rgba8))
        #expect(ours.metadata.iccProfile == nil, "tone-mapped pixels are sRGB")
        let (dB, pixels) = Self.psnr(ours.frames[0].buffer, reference)
        print("hdr_pq_test against djxl --display_nits=255: \(String(format: "%.1f", dB)) dB over \(pixels) in-gamut pixels")
        #expect(pixels > 1024 * 1024 / 3)
        #expect(dB >= 40)
    }

    @Test(
        "PQ and HLG in XYB: libjxl maps them to sRGB itself, as djxl does; Imago's own mapping of the lossless files is within 35 dB of it, gamut mapping included"
    )
    func xybCrossCheck() async throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Corpus.url(Self.pqFile), samples = dir.appendingPathComponent("src.ppm")
        try await Self.tool(Self.djxl, [source.path, samples.path, "--bits_per_sample=16"])
        let coders = ImageCoderRegistry.shared
        for (space, target) in [("RGB_D65_202_Rel_PeQ", "10000"), ("RGB_D65_202_Rel_HLG", "1000")] {
            let xyb = dir.appendingPathComponent("\(space).jxl"), mapped = dir.appendingPathComponent("\(space).png")
            try await Self.tool(Self.cjxl, [samples.path, xyb.path, "-d", "1", "-x", "color_space=\(space)", "--intensity_target=\(target)"])
            try await Self.tool(Self.djxl, [xyb.path, mapped.path, "--color_space=RGB_D65_SRG_Rel_SRG", "--display_nits=255"])
            let reference = try coders.decode(Data(contentsOf: mapped), options: DecodeOptions(pixelFormat: .rgba8)).frames[0].buffer
            let viaLibjxl = try coders.decode(Data(contentsOf: xyb), options: DecodeOptions(pixelFormat: .rgba8)).frames[0].buffer
            #expect(PixelMetrics.psnr(viaLibjxl, reference) >= 45, "\(space): the XYB file as djxl maps it")
            // The same pixels stored losslessly (not XYB): libjxl keeps PQ or HLG, Imago maps them.
            let lossless = dir.appendingPathComponent("\(space)-lossless.jxl")
            if space.hasSuffix("PeQ") {
                try FileManager.default.copyItem(at: source, to: lossless)
            } else {
                try await Self.tool(Self.cjxl, [samples.path, lossless.path, "-d", "0", "-x", "color_space=\(space)"])
            }
            let ours = try coders.decode(Data(contentsOf: lossless), options: DecodeOptions(pixelFormat: .rgba8)).frames[0].buffer
            let dB = PixelMetrics.psnr(ours, reference)
            print("\(space): Imago's mapping of the lossless file against djxl's of the XYB one: \(String(format: "%.1f", dB)) dB")
            #expect(dB >= 35, "\(space)")
        }
    }

    @Test("without colour management the PQ samples and libjxl's PQ profile are kept, as before")
    func keptWithoutColorManagement() throws {
        let data = try Corpus.data(Self.pqFile)
        let kept = try ImageCoderRegistry.shared.decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
        let profile = try #require(kept.metadata.iccProfile)
        #expect(profile.count > 4000)
        let mapped = try ImageCoderRegistry.shared.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(PixelMetrics.psnr(kept.frames[0].buffer, mapped.frames[0].buffer) < 20)
    }
}
