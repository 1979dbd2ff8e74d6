// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("BMP and ICO")
struct BMPICOTests {
    let coders = ImageCoderRegistry.makeDefault()
    let png = PNGCoder()

    @Test(
        "every file of the BMP Suite's good set decodes, matching its reference renderings; the bad set is rejected",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func bmpSuite() throws {
        let good = Corpus.files(in: "pillow/bmp/bmpsuite/g", extensions: ["bmp"])
        #expect(good.count >= 20)
        for url in good {
            let image = try coders.decode(Data(contentsOf: url))
            let info = try coders.info(of: Data(contentsOf: url))
            #expect(image.pixelSize == info.pixelSize && image.format == .bmp, "\(url.lastPathComponent)")
            let stem = url.deletingPathExtension().lastPathComponent
            let reference = Corpus.url("pillow/bmp/bmpsuite/html/\(stem).png")
            if FileManager.default.fileExists(atPath: reference.path) {
                let expected = try png.decode(Data(contentsOf: reference), options: .default)
                // Within 1: the references were written from decoders that scale palette colours slightly differently.
                #expect(Fixtures.difference(image.buffer, expected.buffer).max <= 1, "\(stem)")
            }
        }
        for url in Corpus.files(in: "pillow/bmp/bmpsuite/b", extensions: ["bmp"]) {
            let data = try Data(contentsOf: url)
            #expect(throws: ImageCodingError.self, "\(url.lastPathComponent)") { _ = try coders.decode(data) }
        }
        // The questionable set: a decode or a typed error, never a crash.
        for url in Corpus.files(in: "pillow/bmp/bmpsuite/q", extensions: ["bmp"]) {
            _ = try? coders.decode(Data(contentsOf: url))
        }
    }

    @Test(
        "image-rs's BMP references (core, info, V3-V5 headers, bit fields, top-down) match exactly",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func imageRSReferences() throws {
        var checked = 0
        // Left out: RLE files whose skipped pixels image-rs paints opaque black (Imago leaves them
        // transparent, as the BMP Suite recommends), and OS/2 RLE24, which Imago does not decode.
        // pal8badindex.bmp is in the BMP Suite's bad set, which Imago rejects.
        let different = ["pal4rlecut.bmp", "pal4rletrns.bmp", "rgb24rle24.bmp", "pal8badindex.bmp"]
        for url in Corpus.files(in: "image-rs-image/bmp/images", extensions: ["bmp"])
        where !url.path.contains("lenient") && !different.contains(url.lastPathComponent) {
            let name = url.lastPathComponent
            let reference = Corpus.url("image-rs-image/reference/bmp/images/\(name).png")
            guard FileManager.default.fileExists(atPath: reference.path) else { continue }
            let image = try coders.decode(Data(contentsOf: url))
            let expected = try png.decode(Data(contentsOf: reference), options: .default)
            // Within 1: odd bit-field widths (10, 6 bits) scale to 8 bits with rounding here.
            #expect(Fixtures.difference(image.buffer, expected.buffer).max <= 1, "\(name)")
            checked += 1
        }
        #expect(checked >= 20)
    }

    @Test("32-bit BMP round trip keeps every pixel and alpha")
    func bmpRoundTrip() throws {
        let source = Image(buffer: try Fixtures.gradient(width: 37, height: 21, alpha: true))
        let data = try coders.encode(source, as: .bmp)
        let back = try coders.decode(data)
        #expect(back.buffer == source.buffer.converted(to: .argb32Premultiplied) && back.hasAlpha)
        #expect(try coders.info(of: data).pixelSize == PixelSize(width: 37, height: 21))
        // Asked for straight alpha, the stored colours come back as stored, even at alpha 1.
        let faint = try PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [253, 254, 254, 1, 10, 200, 30, 128])
        let straight = try coders.decode(try coders.encode(Image(buffer: faint), as: .bmp), options: DecodeOptions(pixelFormat: .rgba8))
        #expect(straight.buffer == faint)
    }

    @Test(
        "ICO and CUR: the largest entry by default, the smallest covering entry on request; PNG and BMP entries",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func icons() throws {
        var decoded = 0
        for url in Corpus.files(in: "pillow/ico") + Corpus.files(in: "image-rs-image/ico") {
            let data = try Data(contentsOf: url)
            guard [.ico, .cur].contains(ImageFormat(sniffing: data)) else { continue }
            // Damaged directories (no entries, entry lengths too short) end in typed errors.
            guard let entries = try? ICOCoder.entries(of: data), let largest = try? coders.decode(data) else {
                #expect(throws: ImageCodingError.self, "\(url.lastPathComponent)") { _ = try coders.decode(data) }
                continue
            }
            let biggest = entries.map { $0.width * $0.height }.max() ?? 0
            #expect(largest.pixelSize.width * largest.pixelSize.height >= min(biggest, 256 * 256) / 4, "\(url.lastPathComponent)")
            if let small = entries.min(by: { $0.width * $0.height < $1.width * $1.height }), entries.count > 1 {
                let chosen = try coders.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: small.width, height: small.height)))
                #expect(chosen.pixelSize.width <= largest.pixelSize.width, "\(url.lastPathComponent)")
            }
            decoded += 1
        }
        #expect(decoded >= 8)
        let pillow = try coders.decode(Corpus.data("pillow/ico/pillow.ico"))
        #expect(pillow.pixelSize == PixelSize(width: 256, height: 256))  // the largest of its five entries
        let python = try coders.decode(Corpus.data("pillow/ico/python.ico"), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20)))
        #expect(python.pixelSize == PixelSize(width: 32, height: 32))  // the smallest entry covering 20x20
        // Cursors: their own format, hotspots, and Pillow's pixels (test_file_cur.py).
        let deerstalker = try Corpus.data("pillow/ico/deerstalker.cur")
        #expect(try coders.info(of: deerstalker).format == .cur)
        let cursor = try coders.decode(deerstalker, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(cursor.format == .cur && cursor.pixelSize == PixelSize(width: 32, height: 32))
        #expect(cursor.buffer.color(atX: 10, y: 1) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        #expect(cursor.buffer.color(atX: 11, y: 1) == RGBA8(r: 253, g: 254, b: 254, a: 1))
        #expect(cursor.buffer.color(atX: 16, y: 16) == RGBA8(r: 84, g: 87, b: 86))
        #expect(try ICOCoder.entries(of: deerstalker).map(\.hotspot) == [ICOCoder.Hotspot(x: 0, y: 0)])
        #expect(try ICOCoder.entries(of: try Corpus.data("pillow/ico/mask_1.cur")).map(\.hotspot) == [ICOCoder.Hotspot(x: 0, y: 0)])
        #expect(throws: ImageCodingError.self) { _ = try coders.decode(try Corpus.data("pillow/ico/no_cursors.cur")) }
        // image-rs's ICO references.
        for url in Corpus.files(in: "image-rs-image/ico", extensions: ["ico"]) {
            let reference = Corpus.url("image-rs-image/reference/ico/\(url.lastPathComponent).png")
            guard FileManager.default.fileExists(atPath: reference.path) else { continue }
            let image = try coders.decode(Data(contentsOf: url))
            let expected = try png.decode(Data(contentsOf: reference), options: .default)
            #expect(image.buffer == expected.buffer, "\(url.lastPathComponent)")
        }
    }
}
