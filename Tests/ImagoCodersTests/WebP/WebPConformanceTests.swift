// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("libwebp test vectors", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct WebPConformanceTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// `file.webp.pam` → md5 of dwebp's PAM output (straight RGBA).
    static func referenceSums() throws -> [String: String] {
        let text = try String(contentsOf: Corpus.url("libwebp-test-data/reference/libwebp_tests.md5"), encoding: .utf8)
        var sums: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, parts[1].hasSuffix(".webp.pam") else { continue }
            sums[String(parts[1].dropLast(4))] = String(parts[0])
        }
        return sums
    }

    /// The bytes dwebp writes for `-pam`.
    static func pam(_ buffer: PixelBuffer) -> [UInt8] {
        let header = "P7\nWIDTH \(buffer.width)\nHEIGHT \(buffer.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        return Array(header.utf8) + buffer.converted(to: .rgba8).bytes
    }

    @Test("decodes match the reference md5 of dwebp's RGBA output")
    func referenceMD5() throws {
        let sums = try Self.referenceSums()
        #expect(sums.count >= 90)
        var matched = 0
        for (file, expected) in sums.sorted(by: { $0.key < $1.key }) {
            let data = try Corpus.data("libwebp-test-data/\(file)")
            let image = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
            let md5 = MD5.hex(Self.pam(image.buffer))
            #expect(md5 == expected, "\(file)")
            if md5 == expected { matched += 1 }
        }
        #expect(matched == sums.count)
    }

    @Test("lossless vectors decode to the grid and peak references")
    func losslessVectors() throws {
        let grid = try coders.decode(Corpus.data("libwebp-test-data/reference/grid.png"), options: DecodeOptions(pixelFormat: .rgba8))
        let peak = try coders.decode(Corpus.data("libwebp-test-data/reference/peak.png"), options: DecodeOptions(pixelFormat: .rgba8))
        let vectors = Corpus.files(in: "libwebp-test-data", extensions: ["webp"]).filter { $0.lastPathComponent.hasPrefix("lossless_vec_") }
        #expect(vectors.count >= 30)
        for url in vectors {
            let image = try coders.decode(Data(contentsOf: url), options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
            let reference = url.lastPathComponent.hasPrefix("lossless_vec_1_") ? grid : peak
            #expect(image.buffer == reference.buffer, "\(url.lastPathComponent)")
        }
    }

    @Test("decoded as RGB, every reference vector has the RGBA decode's colours: libwebp's own RGB output for opaque stills, alpha dropped otherwise")
    func rgbMatchesRGBA() throws {
        var opaque = 0
        for file in try Self.referenceSums().keys.sorted() {
            let data = try Corpus.data("libwebp-test-data/\(file)")
            let rgba = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
            let rgb = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgb8, colorManagement: false))
            #expect(rgb.buffer.format == .rgb8, "\(file)")
            #expect(rgb.buffer.bytesPerRow == rgb.buffer.width * 3, "\(file)")
            #expect(rgb.buffer.bytes == rgba.buffer.converted(to: .rgb8).bytes, "\(file)")
            if try !coders.info(of: data).hasAlpha { opaque += 1 }
        }
        #expect(opaque >= 40, "the opaque vectors take libwebp's RGB output")
    }

    @Test("every vector decodes or fails with a typed error; odd sizes keep their size")
    func allVectors() throws {
        for url in Corpus.files(in: "libwebp-test-data", extensions: ["webp"]) {
            let data = try Data(contentsOf: url)
            do {
                let info = try coders.info(of: data)
                let image = try coders.decode(data)
                #expect(image.pixelSize == info.pixelSize, "\(url.lastPathComponent)")
            } catch is ImageCodingError {
                // Some vectors are deliberately broken (very_short, bad_palette_index ...).
            }
        }
    }
}
