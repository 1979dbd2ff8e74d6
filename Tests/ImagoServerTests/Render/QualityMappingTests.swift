// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoServiceURL
import Testing

@testable import ImagoServer

/// `IMAGO_QUALITY_MAPPING`: imgproxy's numbers as they are, or JPEG's visual quality mapped to
/// WebP's and AVIF's by the published SSIMULACRA2 tables.
@Suite("Quality mapping: a number means JPEG's visual quality for every format, when asked")
struct QualityMappingTests {
    typealias Mapping = OutputSettings.QualityMapping

    @Test("none passes every number through; visual maps WebP and AVIF monotonically within 1-100 and leaves the rest")
    func tables() {
        for q in 1...100 {
            for format in [ImageFormat.jpeg, .webp, .avif, .jxl, .png] {
                #expect(Mapping.none.quality(q, for: format, avifSpeed: 6) == q)
            }
            #expect(Mapping.visual.quality(q, for: .jpeg, avifSpeed: 6) == q)
            #expect(Mapping.visual.quality(q, for: .jxl, avifSpeed: 6) == q)
            for format in [ImageFormat.webp, .avif] {
                let here = Mapping.visual.quality(q, for: format, avifSpeed: 6)
                #expect((1...100).contains(here))
                if q > 1 { #expect(here >= Mapping.visual.quality(q - 1, for: format, avifSpeed: 6), "\(format) at \(q)") }
            }
        }
        // The tables' own points come back exactly; a faster AVIF needs more quality.
        for point in Mapping.webp { #expect(Mapping.interpolate(point.jpeg, Mapping.webp) == point.other) }
        for point in Mapping.avif { #expect(Mapping.interpolate(point.jpeg, Mapping.avif) == point.other) }
        #expect(Mapping.visual.quality(70, for: .avif, avifSpeed: 9) == Mapping.visual.quality(70, for: .avif, avifSpeed: 6) + 4)
        #expect(Mapping.visual.quality(70, for: .avif, avifSpeed: 5) == Mapping.visual.quality(70, for: .avif, avifSpeed: 6) - 1)
    }

    @Test("IMAGO_QUALITY_MAPPING=visual drops imgproxy's per-format defaults, keeps IMAGO_FORMAT_QUALITY, and rejects other values")
    func environment() throws {
        #expect(try ServerConfiguration(environment: [:]).output.qualityMapping == .none)
        #expect(try ServerConfiguration(environment: [:]).output.formatQuality[.webp] == 79)
        let visual = try ServerConfiguration(environment: ["IMAGO_QUALITY_MAPPING": "visual"])
        #expect(visual.output.qualityMapping == .visual && visual.output.formatQuality.isEmpty)
        let kept = try ServerConfiguration(environment: ["IMAGO_QUALITY_MAPPING": "Visual", "IMAGO_FORMAT_QUALITY": "avif=50"])
        #expect(kept.output.formatQuality == [.avif: 50])
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["IMAGO_QUALITY_MAPPING": "ssim"]) }
    }

    @Test("a plan's quality: the URL's number and IMAGO_QUALITY are mapped, per-format qualities are not, AVIF's follows its speed")
    func plans() throws {
        let info = ImageInfo(format: .jpeg, width: 100, height: 100)
        func plan(_ options: String, _ c: ServerConfiguration) throws -> RenderPlan {
            try RenderPlan(
                info: info, options: try ProcessingOptions(parsing: options.split(separator: "/").map(String.init), allowSecurityOptions: true),
                accept: nil, settings: c.renderSettings, coders: .shared)
        }
        var c = try ServerConfiguration(environment: ["IMAGO_QUALITY_MAPPING": "visual", "IMAGO_QUALITY": "70"])
        #expect(try plan("f:webp", c).quality == Mapping.visual.quality(70, for: .webp, avifSpeed: c.output.avifSpeed))
        #expect(try plan("f:webp/q:85", c).quality == Mapping.visual.quality(85, for: .webp, avifSpeed: c.output.avifSpeed))
        #expect(try plan("f:jpg/q:85", c).quality == 85)
        #expect(try plan("f:webp/fq:webp:61", c).quality == 61)
        var avif = try plan("f:avif", c)
        let atDefault = avif.quality
        #expect(atDefault == Mapping.visual.quality(70, for: .avif, avifSpeed: c.output.avifSpeed))
        avif.setAVIFSpeed(6)
        #expect(avif.quality == atDefault - Mapping.avifSpeedOffset(c.output.avifSpeed))
        // Without the mapping, imgproxy's: the per-format default, whatever the speed.
        c = try ServerConfiguration(environment: ["IMAGO_QUALITY": "70"])
        var plain = try plan("f:avif", c)
        plain.setAVIFSpeed(6)
        #expect(plain.quality == 63)
        #expect(try plan("f:webp/q:85", c).quality == 85)
    }
}
