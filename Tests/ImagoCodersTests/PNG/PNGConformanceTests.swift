// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("PngSuite conformance", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct PNGConformanceTests {
    let coders = ImageCoderRegistry.makeDefault()

    static var validFiles: [URL] {
        Corpus.files(in: "pngsuite", extensions: ["png"]).filter {
            !$0.lastPathComponent.hasPrefix("x") && $0.lastPathComponent != "PngSuite.png"
        }
    }

    static var corruptFiles: [URL] {
        Corpus.files(in: "pngsuite", extensions: ["png"]).filter { $0.lastPathComponent.hasPrefix("x") }
    }

    /// The lunapaint reference decode (straight RGBA, 8-bit; `_to8` for 16-bit files).
    static func reference(for url: URL) throws -> [UInt8]? {
        let stem = url.deletingPathExtension().lastPathComponent
        let dir = Corpus.url("pngsuite/reference-json-lunapaint")
        for name in ["\(stem)_to8.json", "\(stem).json"] {
            let u = dir.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: u.path) {
                let values = try JSONDecoder().decode([Int].self, from: Data(contentsOf: u))
                // Files with only a 16-bit reference hold 0...65535: scale to 8 bits.
                let sixteen = (values.max() ?? 0) > 255
                return values.map { UInt8(clamping: sixteen ? ($0 * 255 + 32767) / 65535 : $0) }
            }
        }
        return nil
    }

    @Test("every valid PngSuite file decodes at its size with the reference pixels")
    func validFilesMatchReference() throws {
        let files = Self.validFiles
        #expect(files.count >= 160, "expected the full suite, found \(files.count)")
        var compared = 0
        for url in files {
            let data = try Data(contentsOf: url)
            let info = try coders.info(of: data)
            // Colour management off: the reference decodes apply no gamma or profile.
            let image = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
            #expect(image.pixelSize == info.pixelSize, "\(url.lastPathComponent)")
            // The sNN files are named for their size.
            let name = url.lastPathComponent
            if name.hasPrefix("s"), let n = Int(name.dropFirst(1).prefix(2)) {
                #expect(image.pixelSize == PixelSize(width: n, height: n), "\(name)")
            }
            guard let reference = try Self.reference(for: url) else { continue }
            compared += 1
            let got = image.buffer.bytes
            guard got.count == reference.count else {
                Issue.record("\(name): \(got.count) bytes decoded, reference has \(reference.count)")
                continue
            }
            // 16-bit files: libpng rounds to 8 bits where the reference truncates; allow 1.
            let tolerance = info.bitDepth == 16 ? 1 : 0
            let worst = zip(got, reference).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= tolerance, "\(name): largest channel difference \(worst)")
        }
        #expect(compared >= 150, "compared \(compared) files against reference decodes")
    }

    @Test("the 14 corrupt x* files are rejected with a typed error")
    func corruptFilesRejected() throws {
        let files = Self.corruptFiles
        #expect(files.count == 14)
        for url in files {
            let data = try Data(contentsOf: url)
            #expect(throws: ImageCodingError.self, "\(url.lastPathComponent)") { _ = try coders.decode(data) }
        }
    }

    @Test("gAMA is applied with colour management on, ignored with it off")
    func gamma() throws {
        let data = try Corpus.data("pngsuite/g03n2c08.png")  // gAMA 0.35
        let managed = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        let raw = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
        #expect(managed.buffer != raw.buffer)
        let reference = try #require(try Self.reference(for: Corpus.url("pngsuite/g03n2c08.png")))
        #expect(raw.buffer.bytes == reference)
    }

    @Test("eXIf orientation and interlacing are reported")
    func exifAndInterlace() throws {
        let exif = try coders.info(of: Corpus.data("pngsuite/exif2c08.png"))
        #expect(exif.format == .png)
        let interlaced = try coders.info(of: Corpus.data("pngsuite/basi6a08.png"))
        #expect(interlaced.progressive && interlaced.hasAlpha && interlaced.bitDepth == 8)
        let palette = try coders.info(of: Corpus.data("pngsuite/tbbn3p08.png"))
        #expect(palette.hasAlpha)
    }

    @Test("an ICC profile on a PNG with alpha is applied to straight pixels, premultiplied once (one-shot, progressive, interlaced)")
    func iccWithAlpha() throws {
        // Display P3, taken from a corpus file, on a synthetic gradient with an alpha ramp.
        let p3 = try #require(
            try coders.decode(
                Corpus.data("wuffs/red-blue-gradient.dcip3d65-no-chrm-no-gama.png"),
                options: DecodeOptions(colorManagement: false)
            ).metadata.iccProfile)
        var image = Image(buffer: try Fixtures.gradient(width: 64, height: 48, alpha: true))
        image.metadata.iccProfile = p3
        for progressive in [false, true] {
            let data = try coders.encode(image, as: .png, options: EncodeOptions(progressive: progressive, keepMetadata: true))
            let straight = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            let display = try coders.decode(data)
            #expect(straight.metadata.iccProfile == nil && straight.buffer != image.buffer)  // converted
            #expect(display.buffer == straight.buffer.converted(to: .argb32Premultiplied), "interlaced: \(progressive)")
            let incremental = try #require(coders.makeProgressiveDecoder(for: data))
            try incremental.update(data, isFinal: true)
            #expect(try incremental.currentImage()?.buffer == display.buffer)
        }
    }
}
