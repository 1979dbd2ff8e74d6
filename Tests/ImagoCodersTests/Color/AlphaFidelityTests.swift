// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// A conversion that neither resizes nor composites must not change a visible pixel: PngSuite's
/// alpha and tRNS files go through PNG and lossless WebP and come back as libpng decodes them.
@Suite("Alpha fidelity through lossless conversions", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct AlphaFidelityTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// PngSuite's files with an alpha channel or a tRNS chunk.
    static var transparentFiles: [URL] {
        PNGConformanceTests.validFiles.filter {
            guard let data = try? Data(contentsOf: $0), let info = try? ImageCoderRegistry.shared.info(of: data) else { return false }
            return info.hasAlpha
        }
    }

    /// Straight RGBA as libpng decodes it (16-bit rounded to 8 by `png_set_scale_16`), colour
    /// management off so nothing but the file's samples count.
    func libpngDecode(_ data: Data) throws -> PixelBuffer {
        try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false)).buffer
    }

    /// Visible pixels (alpha above 0 in `want`) that differ by more than `tolerance` in any
    /// channel, alpha included, and invisible ones whose alpha differs by more. Returns the
    /// worst difference and the count of such pixels.
    func compare(_ got: PixelBuffer, _ want: [UInt8], tolerance: Int) -> (worst: Int, bad: Int) {
        let g = got.converted(to: .rgba8).bytes
        guard g.count == want.count else { return (Int.max, Int.max) }
        var worst = 0, bad = 0
        for i in stride(from: 0, to: g.count, by: 4) {
            var d = abs(Int(g[i + 3]) - Int(want[i + 3]))
            if want[i + 3] > 0 {
                for c in 0..<3 { d = max(d, abs(Int(g[i + c]) - Int(want[i + c]))) }
            }
            worst = max(worst, d)
            if d > tolerance { bad += 1 }
        }
        return (worst, bad)
    }

    @Test("PngSuite's alpha and tRNS files round-trip through PNG and lossless WebP unchanged")
    func roundTrips() throws {
        let files = Self.transparentFiles
        #expect(files.count >= 28, "expected PngSuite's transparent files, found \(files.count)")
        for url in files {
            let name = url.lastPathComponent
            let data = try Data(contentsOf: url)
            let info = try coders.info(of: data)
            let reference = try libpngDecode(data).bytes
            let lunapaint = try PNGConformanceTests.reference(for: url)
            // Decoded as a conversion decodes: in the exact format for the header, unpremultiplied.
            let image = try coders.decode(data, options: DecodeOptions(pixelFormat: .exact(for: info), colorManagement: false))
            #expect(!image.buffer.format.isPremultiplied, "\(name)")
            for (format, options) in [(ImageFormat.png, EncodeOptions()), (.webp, EncodeOptions(lossless: true))] {
                let encoded = try coders.encode(image, as: format, options: options)
                let back = try coders.decode(encoded, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
                #expect(back.pixelSize == info.pixelSize, "\(name) via \(format)")
                // Against libpng's own decode: every visible pixel and every alpha exactly.
                let exact = compare(back.buffer, reference, tolerance: 0)
                #expect(exact.bad == 0, "\(name) via \(format): \(exact.bad) visible pixels differ from libpng's decode, by up to \(exact.worst)")
                // Against the independent reference decode (16-bit samples truncated or rounded to 8 bits): within one level.
                if let lunapaint {
                    let near = compare(back.buffer, lunapaint, tolerance: 1)
                    #expect(near.bad == 0, "\(name) via \(format): \(near.bad) visible pixels off the reference by up to \(near.worst)")
                }
            }
        }
    }

    @Test("the premultiplied display format is what loses levels, so conversions must avoid it")
    func premultipliedLoses() throws {
        // basn4a08 is gray with an alpha ramp: premultiplying at 8 bits drops levels where alpha is low.
        let data = try Corpus.data("pngsuite/basn4a08.png")
        let reference = try libpngDecode(data).bytes
        let premultiplied = try coders.decode(data, options: DecodeOptions(colorManagement: false))
        let lossy = compare(premultiplied.buffer, reference, tolerance: 1)
        #expect(lossy.worst > 1, "expected the premultiplied round trip to lose levels, worst \(lossy.worst)")
        let info = try coders.info(of: data)
        #expect(PixelFormat.exact(for: info) == .grayAlpha8)
        let exact = try coders.decode(data, options: DecodeOptions(pixelFormat: .exact(for: info), colorManagement: false))
        #expect(compare(exact.buffer, reference, tolerance: 0).bad == 0)
    }

    @Test("the exact format follows the header")
    func exactFormat() {
        func info(gray: Bool, alpha: Bool, frames: Int = 1) -> ImageInfo {
            ImageInfo(format: .png, width: 1, height: 1, frameCount: frames, hasAlpha: alpha, isGrayscale: gray)
        }
        #expect(PixelFormat.exact(for: info(gray: true, alpha: false)) == .gray8)
        #expect(PixelFormat.exact(for: info(gray: true, alpha: true)) == .grayAlpha8)
        #expect(PixelFormat.exact(for: info(gray: false, alpha: false)) == .rgb8)
        #expect(PixelFormat.exact(for: info(gray: false, alpha: true)) == .rgba8)
        #expect(PixelFormat.exact(for: info(gray: false, alpha: true, frames: 3)) == .argb32Premultiplied)
    }
}
