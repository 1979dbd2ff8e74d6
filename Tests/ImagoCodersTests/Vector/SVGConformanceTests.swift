// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// librsvg's renders against resvg's reference PNGs (`resvg/` in the corpus), each drawn at the
/// reference's size (300 px wide), and librsvg's own Adwaita icon references at natural size.
@Suite(
    "SVG conformance against resvg's references",
    .enabled(if: Corpus.isAvailable, Corpus.missingReason),
    .enabled(if: SVGCoder().canDecode(.svg), "librsvg is not installed (scripts/bootstrap installs it)"))
struct SVGConformanceTests {
    /// PSNR over premultiplied RGBA that a render must reach, unless listed below.
    static let defaultThreshold = 30.0

    /// The renders that differ from resvg's, with the PSNR each must still reach and why.
    /// A threshold of 0 means only that the file renders without an error.
    static let differing: [String: (Double, String)] = [
        // By design: nothing outside the document loads, while resvg's test loads local resources.
        "tests/structure/image/external-svg.svg": (0, "external file not loaded, by design"),
        "tests/structure/image/external-jpeg.svg": (0, "external file not loaded, by design"),
        "tests/filters/feImage/simple-case.svg": (0, "external file not loaded, by design"),
        "tests/structure/image/recursive-2.svg": (20, "external file (itself) not loaded, by design"),
        // librsvg 2.54's features.
        "tests/filters/feImage/recursive-links-1.svg": (0, "recursive reference (feImage of an element with the same filter): librsvg 2.54 draws nothing"),
        "tests/paint-servers/linearGradient/recursive-xlink-href-1.svg": (0, "librsvg drops a gradient with a recursive href; resvg ignores the link"),
        "tests/paint-servers/linearGradient/self-recursive-xlink-href.svg": (0, "librsvg drops a gradient with a recursive href; resvg ignores the link"),
        "tests/paint-servers/radialGradient/recursive-xlink-href.svg": (0, "librsvg drops a gradient with a recursive href; resvg ignores the link"),
        "tests/paint-servers/radialGradient/self-recursive-xlink-href.svg": (0, "librsvg drops a gradient with a recursive href; resvg ignores the link"),
        "tests/paint-servers/pattern/recursive-on-child.svg": (18, "recursive pattern handled differently (librsvg draws no fill)"),
        "tests/paint-servers/pattern/self-recursive.svg": (18, "recursive pattern handled differently (librsvg draws no fill)"),
        "tests/structure/use/indirect-recursive-2.svg": (15, "recursive use handled differently"),
        "tests/paint-servers/pattern/with-viewBox.svg": (14, "librsvg 2.54 places a pattern's viewBox tiles half a tile off"),
        "tests/masking/clipPath/clip-path-with-transform.svg": (7, "librsvg 2.54 applies a clip path's transform differently"),
        "tests/filters/feMorphology/operator=dilate.svg": (11, "librsvg's feMorphology radius differs at the scaled size"),
        "tests/filters/feMorphology/simple-case.svg": (12, "librsvg's feMorphology radius differs at the scaled size"),
        // Filter regions: the same picture, with the region's edge pixels rounded differently.
        "tests/filters/feComposite/operator=xor.svg": (21, "filter region edges rounded differently"),
        "tests/filters/feFlood/seagreen.svg": (21, "filter region edges rounded differently"),
        "tests/filters/feTurbulence/type=fractalNoise.svg": (26, "noise sampled at pixel centres differently"),
        "tests/painting/marker/orient=auto-start-reverse.svg": (30, "marker angle at the path's start rounded differently"),
        "tests/structure/svg/mixed-namespaces.svg": (22, "text: fontconfig's font, not resvg's Noto Sans"),
        // Text: the references use resvg's test fonts; librsvg uses fontconfig's.
        "tests/text/text/rotate.svg": (15, "per-glyph rotate, which librsvg 2.54 does not implement (18 dB with resvg's fonts too)"),
        "tests/text/writing-mode/tb.svg": (17, "text: fontconfig's font, not resvg's Noto Sans"),
        "tests/text/tspan/mixed.svg": (17, "text: fontconfig's font, not resvg's Noto Sans"),
        "tests/text/text-anchor/end-on-text.svg": (19, "text: fontconfig's font, not resvg's Noto Sans"),
        "tests/text/text-anchor/middle-on-text.svg": (22, "text: fontconfig's font, not resvg's Noto Sans"),
        "tests/text/textPath/startOffset=30.svg": (20, "text: fontconfig's font, not resvg's Noto Sans"),
        "tests/text/font-size/simple-case.svg": (24, "text: fontconfig's font, not resvg's Noto Sans")
    ]

    /// resvg's invalid documents: their PNGs are placeholders.
    static let mustFail = ["tests/structure/svg/zero-size.svg", "tests/structure/svg/not-UTF-8-encoding.svg"]

    @Test("every resvg test renders at its reference's size within its threshold")
    func resvgReferences() throws {
        let files = Corpus.files(in: "resvg/tests", extensions: ["svg"])
        #expect(files.count >= 140)
        var results: [String] = []
        var passed = 0
        for url in files {
            let name = "tests/" + url.path.components(separatedBy: "/resvg/tests/").last!
            let data = try Data(contentsOf: url)
            if Self.mustFail.contains(name) {
                #expect(throws: ImageCodingError.self, "\(name) is invalid") { _ = try SVGCoder().decode(data, options: .default) }
                continue
            }
            let reference = try ImageCoderRegistry.shared.decode(try Data(contentsOf: url.deletingPathExtension().appendingPathExtension("png")))
            var options = DecodeOptions()
            options.thumbnailPixelSize = reference.frames[0].buffer.size
            options.preserveAspectRatio = false
            let image = try SVGCoder().decode(data, options: options)
            #expect(image.frames[0].buffer.size == reference.frames[0].buffer.size, "\(name)")
            let psnr = PixelMetrics.psnrPremultiplied(image.frames[0].buffer, reference.frames[0].buffer)
            let (threshold, why) = Self.differing[name] ?? (Self.defaultThreshold, "")
            #expect(psnr >= threshold, "\(name): \(psnr) dB, under \(threshold) dB \(why)")
            if psnr >= Self.defaultThreshold { passed += 1 }
            results.append("\(name) \(psnr.isFinite ? String(format: "%.1f", psnr) : "exact")")
        }
        print("SVG conformance: \(passed) of \(results.count) at or above \(Self.defaultThreshold) dB; \(Self.differing.count) listed as differing")
    }

    @Test("librsvg's Adwaita icons match its own references at natural size")
    func adwaitaIcons() throws {
        let icons = Corpus.files(in: "resvg/librsvg/adwaita", extensions: ["svg"])
        #expect(icons.count >= 8)
        for url in icons {
            let reference = try ImageCoderRegistry.shared.decode(try Data(contentsOf: URL(fileURLWithPath: url.deletingPathExtension().path + "-ref.png")))
            let image = try ImageCoderRegistry.shared.decode(try Data(contentsOf: url))
            #expect(image.frames[0].buffer.size == PixelSize(width: 16, height: 16))
            let psnr = PixelMetrics.psnrPremultiplied(image.frames[0].buffer, reference.frames[0].buffer)
            #expect(psnr >= 40, "\(url.lastPathComponent): \(psnr) dB")
        }
    }

    @Test("librsvg's crash and limit fixtures: a render or a typed error, promptly")
    func crashFixtures() throws {
        let files = [
            "librsvg/api/too-big.svg", "librsvg/crash/bug349-too-big-image-in-href-data.svg", "librsvg/crash/bug785276-empty.svg",
            "librsvg/crash/bug942-xinclude-recursion.svg", "librsvg/crash/mask-cycles.svg",
            "librsvg/errors/bug515-pattern-billion-laughs.svg", "librsvg/errors/bug515-too-many-elements.svgz"
        ]
        var limits = DecodingLimits.default
        limits.maxRenderSeconds = 5
        for path in files {
            let started = ContinuousClock.now
            do {
                _ = try ImageCoderRegistry.shared.decode(try Corpus.data("resvg/" + path), options: DecodeOptions(limits: limits))
            } catch is ImageCodingError {
            } catch {
                Issue.record("\(path): untyped error \(error)")
            }
            #expect(ContinuousClock.now - started < .seconds(8), "\(path)")
        }
        // librsvg's API test expects this one not to render: 32768 px is past cairo's largest surface.
        #expect(throws: ImageCodingError.self) { _ = try ImageCoderRegistry.shared.decode(try Corpus.data("resvg/librsvg/api/too-big.svg")) }
    }
}
