// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@Suite("ImageFormat sniffing, MIME types and extensions")
struct ImageFormatTests {
    static let samples: [(ImageFormat, [UInt8])] = [
        (.jpeg, [0xFF, 0xD8, 0xFF, 0xE0]),
        (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", 13) + chunk("IDAT", 2)),
        (.apng, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", 13) + chunk("acTL", 8) + chunk("IDAT", 2)),
        (.gif, Array("GIF89a".utf8) + [1, 0, 1, 0]),
        (.gif, Array("GIF87a".utf8)),
        (.webp, Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8)),
        (.tiff, [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]),
        (.tiff, [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]),
        (.bmp, Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0]),
        (.ico, [0, 0, 1, 0, 1, 0]),
        (.cur, [0, 0, 2, 0, 1, 0]),
        (.heic, ftyp("heic", ["mif1", "heic"])),
        (.heic, ftyp("mif1", ["heic"])),
        (.heif, ftyp("mif1", ["miaf"])),
        (.avif, ftyp("avif", ["mif1", "miaf"])),
        (.avif, ftyp("mif1", ["avif"])),
        (.avif, ftyp("avis", ["msf1"])),
        (.jp2, [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]),
        (.jp2, [0xFF, 0x4F, 0xFF, 0x51]),
        (.jxl, [0xFF, 0x0A, 0x00]),
        (.jxl, [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]),
        (.icns, Array("icns".utf8) + [0, 0, 0, 8]),
        (.svg, Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)),
        (.svg, Array("  <svg width=\"1\"></svg>".utf8)),
        (.pdf, Array("%PDF-1.7".utf8))
    ]

    static func chunk(_ type: String, _ length: Int) -> [UInt8] {
        [0, 0, 0, UInt8(length)] + Array(type.utf8) + [UInt8](repeating: 0, count: length) + [0, 0, 0, 0]
    }

    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
    }

    @Test("every format is recognised from its magic bytes", arguments: 0..<samples.count)
    func sniffs(_ index: Int) {
        let (format, bytes) = Self.samples[index]
        #expect(ImageFormat(sniffing: Data(bytes)) == format)
    }

    @Test("short and empty data never crash and mostly give nil")
    func shortData() {
        #expect(ImageFormat(sniffing: Data()) == nil)
        for sample in Self.samples {
            for n in 0..<min(12, sample.1.count) {
                // Any prefix may or may not be recognised, but must not crash.
                _ = ImageFormat(sniffing: Data(sample.1.prefix(n)))
            }
        }
        #expect(ImageFormat(sniffing: Data([0xFF])) == nil)
        #expect(ImageFormat(sniffing: Data([0xFF, 0xD8])) == nil)
        #expect(ImageFormat(sniffing: Data("hello world".utf8)) == nil)
    }

    @Test("a PNG whose chunk lengths are hostile is still PNG, not a crash")
    func hostileChunkLengths() {
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF, 0xFF, 0xFF, 0xF0] + Array("tEXt".utf8)
        #expect(ImageFormat(sniffing: Data(bytes)) == .png)
        let big: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x7F, 0xFF, 0xFF, 0xF0] + Array("tEXt".utf8)
        #expect(ImageFormat(sniffing: Data(big)) == .png)
    }

    @Test("MIME types and extensions map both ways")
    func mimeAndExtensions() {
        for format in ImageFormat.allCases {
            #expect(ImageFormat(mimeType: format.mimeType) == format)
            let ext = format.preferredFileExtension
            #expect(ImageFormat(fileExtension: ext) == format || (format == .apng && ImageFormat(fileExtension: ext) == .apng))
        }
        #expect(ImageFormat(mimeType: "IMAGE/JPEG; charset=binary") == .jpeg)
        #expect(ImageFormat(mimeType: "image/jpg") == .jpeg)
        #expect(ImageFormat(mimeType: "image/vnd.microsoft.icon") == .ico)
        #expect(ImageFormat(mimeType: "text/html") == nil)
        #expect(ImageFormat(fileExtension: ".JPG") == .jpeg)
        #expect(ImageFormat(fileExtension: "png") == .png)
        #expect(ImageFormat(fileExtension: "tif") == .tiff)
        #expect(ImageFormat(fileExtension: "cur") == .cur && ImageFormat(fileExtension: "ico") == .ico)
        #expect(ImageFormat(fileExtension: "txt") == nil)
    }
}
