// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@Suite("ImageFormat sniffing on crafted headers, and the MIME and extension tables")
struct FormatSniffingTests {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A PNG chunk: big-endian length, type, `length` zero bytes of data, a (zero) CRC.
    static func chunk(_ type: String, _ length: Int) -> [UInt8] {
        var out: [UInt8] = [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        out += Array(type.utf8)
        out += [UInt8](repeating: 0, count: length)
        out += [0, 0, 0, 0]
        return out
    }

    /// An ISO-BMFF `ftyp` box with `major` and `compatible` brands, then `extra` bytes outside the box.
    static func ftyp(_ major: String, _ compatible: [String], extra: [UInt8] = []) -> [UInt8] {
        var out: [UInt8] = [0, 0, 0, UInt8(16 + 4 * compatible.count)]
        out += Array("ftyp".utf8) + Array(major.utf8)
        out += [0, 0, 0, 0]
        out += compatible.flatMap { Array($0.utf8) }
        out += extra
        return out
    }

    static func sniff(_ bytes: [UInt8]) -> ImageFormat? { ImageFormat(sniffing: Data(bytes)) }

    @Test("APNG is told from PNG by an acTL chunk anywhere before the first IDAT, walking chunk headers only")
    func apngVersusPNG() {
        let sig = Self.pngSignature
        // acTL after several other chunks, one of them 300 bytes long.
        let animated =
            sig + Self.chunk("IHDR", 13) + Self.chunk("tEXt", 300) + Self.chunk("pHYs", 9)
            + Self.chunk("acTL", 8) + Self.chunk("IDAT", 4)
        #expect(Self.sniff(animated) == .apng)
        // acTL after the image data does not count.
        #expect(Self.sniff(sig + Self.chunk("IHDR", 13) + Self.chunk("IDAT", 4) + Self.chunk("acTL", 8)) == .png)
        // A signature alone, a header cut inside a chunk header, or cut before acTL: plain PNG.
        #expect(Self.sniff(sig) == .png)
        #expect(Self.sniff(sig + [0, 0, 0, 13, 0x49, 0x48]) == .png)
        #expect(Self.sniff(sig + Self.chunk("IHDR", 13)) == .png)
        // A length of 2^31 or more stops the walk before the acTL behind it.
        #expect(Self.sniff(sig + [0x80, 0, 0, 0] + Array("tEXt".utf8) + Self.chunk("acTL", 8)) == .png)
        // The acTL header may sit past the first 4 KiB.
        let far = sig + Self.chunk("IHDR", 13) + Self.chunk("zTXt", 6000) + Self.chunk("acTL", 8)
        #expect(far.count > 4096 && Self.sniff(far) == .apng)
    }

    @Test("ISO-BMFF brands: the major brand first, then the compatible ones, inside the ftyp box only")
    func isoBrands() {
        #expect(Self.sniff(Self.ftyp("heix", [])) == .heic)
        #expect(Self.sniff(Self.ftyp("mif1", ["hevc"])) == .heic)
        #expect(Self.sniff(Self.ftyp("msf1", [])) == .heif)
        #expect(Self.sniff(Self.ftyp("avis", [])) == .avif)
        #expect(Self.sniff(Self.ftyp("jxl ", [])) == .jxl)
        #expect(Self.sniff(Self.ftyp("isom", ["mp41"])) == nil)
        // A brand after the box's end is another box's bytes: it does not make the file AVIF.
        #expect(Self.sniff(Self.ftyp("mif1", [], extra: Array("avif".utf8))) == .heif)
        #expect(Self.sniff(Self.ftyp("mif1", ["avif"])) == .avif)
        #expect(ImageFormat.sequenceBrand(in: Data(Self.ftyp("avis", ["avif"]))))
        #expect(ImageFormat.sequenceBrand(in: Data(Self.ftyp("heic", ["msf1"]))))
        #expect(!ImageFormat.sequenceBrand(in: Data(Self.ftyp("avif", ["mif1", "miaf"]))))
        #expect(!ImageFormat.sequenceBrand(in: Data(Self.ftyp("mif1", [], extra: Array("avis".utf8)))))
        #expect(!ImageFormat.sequenceBrand(in: Data()))
    }

    @Test("BMP, ICO and CUR need a plausible header after their two- or four-byte magic")
    func smallMagics() {
        let bm = Array("BM".utf8)
        for dib: UInt8 in [12, 16, 40, 52, 56, 64, 108, 124] {
            #expect(Self.sniff(bm + [UInt8](repeating: 0, count: 12) + [dib, 0, 0, 0]) == .bmp, "DIB \(dib)")
        }
        #expect(Self.sniff(bm + [UInt8](repeating: 0, count: 12) + [41, 0, 0, 0]) == nil)
        #expect(Self.sniff(bm) == .bmp, "too short to hold a DIB size: the magic decides")
        #expect(Self.sniff([0, 0, 1, 0, 3, 0]) == .ico)
        #expect(Self.sniff([0, 0, 1, 0, 0, 0]) == nil, "no images")
        #expect(Self.sniff([0, 0, 2, 0, 0, 0]) == nil)
        #expect(Self.sniff([0, 0, 2, 0]) == .cur)
        #expect(Self.sniff([0x4D, 0x4D, 0x00, 0x2B]) == .tiff && Self.sniff([0x49, 0x49, 0x2B, 0x00]) == .tiff)
        #expect(Self.sniff(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)) == nil)
        #expect(Self.sniff(Array("GIF88a".utf8)) == nil)
        #expect(Self.sniff([0xFF, 0xD8, 0xFF]) == .jpeg)
    }

    @Test("SVG: a document that starts with markup and has <svg in its first 4 KiB; PDF: %PDF- in the first 1 KiB")
    func textFormats() {
        #expect(Self.sniff([0xEF, 0xBB, 0xBF] + Array(" \n\t<?xml version=\"1.0\"?><!-- x --><svg/>".utf8)) == .svg)
        #expect(Self.sniff(Array("<!DOCTYPE html><html></html>".utf8)) == nil)
        #expect(Self.sniff(Array("hello <svg></svg>".utf8)) == nil, "text before the markup")
        let late = Array("<?xml version=\"1.0\"?>".utf8) + [UInt8](repeating: 0x20, count: 4096) + Array("<svg/>".utf8)
        #expect(Self.sniff(late) == nil)
        let junk = [UInt8](repeating: UInt8(ascii: "x"), count: 1024)
        #expect(Self.sniff(Array(junk.prefix(100)) + Array("%PDF-1.4".utf8)) == .pdf)
        #expect(Self.sniff(junk + Array("%PDF-1.4".utf8)) == .pdf, "at offset 1024, the last place readers look")
        #expect(Self.sniff(junk + [UInt8(ascii: "x")] + Array("%PDF-1.4".utf8)) == nil)
        #expect(Self.sniff(Array("%PDF".utf8)) == nil)
    }

    @Test("a Data slice and raw bytes sniff like the whole data, and every sniff is counted on the probe")
    func slicesAndProbe() {
        let probe = PipelineProbe()
        let framed = Data([0xAA, 0xBB] + Self.pngSignature + Self.chunk("acTL", 8))
        let format = PipelineProbe.$current.withValue(probe) { () -> ImageFormat? in
            let slice = framed.dropFirst(2)
            let fromSlice = ImageFormat(sniffing: slice)
            let fromBytes = slice.withUnsafeBytes { ImageFormat(sniffing: $0) }
            _ = ImageFormat(sniffing: Data())
            return fromSlice == fromBytes ? fromSlice : nil
        }
        #expect(format == .apng)
        #expect(probe.all == [ProbeEvent.sniff: 3])
    }

    @Test("MIME types: every alias, case and parameters ignored, surrounding spaces trimmed")
    func mimeTypes() {
        let aliases: [String: ImageFormat] = [
            "image/jpg": .jpeg, "image/pjpeg": .jpeg, "image/x-png": .png, "image/vnd.mozilla.apng": .apng,
            "image/vnd.microsoft.icon": .ico, "image/x-ico": .ico, "image/x-icns": .icns, "image/x-ms-bmp": .bmp,
            "image/x-bmp": .bmp, "image/jpx": .jp2, "image/jpm": .jp2, "image/heic-sequence": .heic,
            "image/heif-sequence": .heif, "image/avif-sequence": .avif
        ]
        for (mime, format) in aliases { #expect(ImageFormat(mimeType: mime) == format, "\(mime)") }
        #expect(ImageFormat(mimeType: "  Image/SVG+XML ; charset=utf-8") == .svg)
        #expect(ImageFormat(mimeType: "application/pdf") == .pdf)
        #expect(ImageFormat(mimeType: "") == nil && ImageFormat(mimeType: ";") == nil && ImageFormat(mimeType: "image/") == nil)
        #expect(Set(ImageFormat.allCases.map(\.mimeType)).count == ImageFormat.allCases.count, "MIME types are distinct")
    }

    @Test("every listed extension maps back to its format, except that png is never APNG")
    func extensions() {
        for format in ImageFormat.allCases {
            for ext in format.fileExtensions {
                let found = ImageFormat(fileExtension: ext)
                #expect(found == format || (format == .apng && ext == "png" && found == .png), "\(ext)")
                #expect(ImageFormat(fileExtension: "." + ext.uppercased()) == found, "\(ext)")
            }
        }
        #expect(ImageFormat(fileExtension: "apng") == .apng && ImageFormat(fileExtension: "svgz") == .svg)
        #expect(ImageFormat(fileExtension: "hif") == .heif && ImageFormat(fileExtension: "j2c") == .jp2)
        #expect(ImageFormat(fileExtension: "") == nil && ImageFormat(fileExtension: ".") == nil)
        #expect(ImageFormat(fileExtension: "..png") == nil && ImageFormat(fileExtension: "png ") == nil)
    }

    @Test("which formats animate and which are vectors")
    func capabilities() {
        #expect(ImageFormat.allCases.filter(\.supportsAnimation) == [.apng, .gif, .webp, .heic, .heif, .avif, .jxl])
        #expect(ImageFormat.allCases.filter(\.isVector) == [.svg, .pdf])
    }
}
