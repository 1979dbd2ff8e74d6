// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("HEIC, HEIF and AVIF (libheif)")
struct HEIFTests {
    let heif = HEIFCoder()
    let coders = ImageCoderRegistry.makeDefault()

    @Test("libheif's codecs are reported honestly; HEIC and AVIF round trips keep size, alpha and colours")
    func roundTrips() throws {
        #expect(heif.canDecode(.heic) && heif.canDecode(.avif) && !heif.canDecode(.png))
        let source = Image(buffer: try Fixtures.gradient(width: 96, height: 64, alpha: true))
        for format in [ImageFormat.heic, .avif] where heif.canEncode(format) {
            let data = try coders.encode(source, as: format, options: EncodeOptions(quality: 0.9))
            #expect(ImageFormat(sniffing: data) == format)
            let back = try coders.decode(data)
            #expect(back.pixelSize == source.pixelSize && back.hasAlpha && back.format == format, "\(format)")
            #expect(Fixtures.difference(back.buffer, source.buffer).mean < 6, "\(format): \(Fixtures.difference(back.buffer, source.buffer))")
            let info = try coders.info(of: data)
            #expect(info.width == 96 && info.height == 64 && info.hasAlpha && info.frameCount == 1)
        }
    }

    @Test("an embedded thumbnail is used when it covers the requested size (shrink-on-load), the full image otherwise")
    func embeddedThumbnail() throws {
        try #require(heif.canEncode(.heic), "libheif has no HEVC encoder here")
        let source = Image(buffer: try Fixtures.gradient(width: 1200, height: 800))
        let data = try coders.encode(source, as: .heic, options: EncodeOptions(embeddedThumbnailSize: 320))
        let small = try coders.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 200)))
        // libheif sizes the thumbnail to even dimensions for its 4:2:0 chroma: 320x212.
        #expect(small.pixelSize.width == 320 && (212...213).contains(small.pixelSize.height))
        let large = try coders.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 600, height: 600)))
        #expect(large.pixelSize == PixelSize(width: 1200, height: 800))
        #expect(Fixtures.difference(small.buffer, try heifResize(large.buffer, to: small.pixelSize)).mean < 8)
    }

    @Test("enforce_thumbnail's decode: the header names the stored thumbnail's size, and the decode takes it whatever the size asked")
    func enforcedThumbnail() throws {
        try #require(heif.canEncode(.heic), "libheif has no HEVC encoder here")
        let source = Image(buffer: try Fixtures.gradient(width: 1200, height: 800))
        let data = try coders.encode(source, as: .heic, options: EncodeOptions(embeddedThumbnailSize: 320))
        let stored = try #require(try heif.info(of: data).embeddedThumbnailSize)
        #expect(stored.width == 320 && (212...213).contains(stored.height))
        var options = DecodeOptions()
        options.embeddedThumbnail = true
        #expect(try heif.decode(data, options: options).pixelSize == stored)
        options.thumbnailPixelSize = PixelSize(width: 1000, height: 1000)
        #expect(try heif.decode(data, options: options).pixelSize == stored)
        // Without a stored thumbnail: nothing named, the image decoded.
        let plain = try coders.encode(source, as: .heic)
        #expect(try heif.info(of: plain).embeddedThumbnailSize == nil)
        options.thumbnailPixelSize = nil
        #expect(try heif.decode(plain, options: options).pixelSize == PixelSize(width: 1200, height: 800))
    }

    /// A box-average reduction good enough to compare a thumbnail with its full image.
    func heifResize(_ b: PixelBuffer, to size: PixelSize) throws -> PixelBuffer {
        let src = b.converted(to: .rgba8)
        var out = [UInt8](repeating: 0, count: size.width * size.height * 4)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let sx = x * src.width / size.width, sy = y * src.height / size.height
                for c in 0..<4 { out[(y * size.width + x) * 4 + c] = src.bytes[(sy * src.width + sx) * 4 + c] }
            }
        }
        return try PixelBuffer(width: size.width, height: size.height, format: .rgba8, bytes: out)
    }

    @Test(
        "the corpus's HEIC and AVIF files: sizes, alpha, rotation applied as browsers show it; nothing crashes",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func corpus() throws {
        let rainbow = try coders.decode(Corpus.data("libheif/tests-data/rainbow-451x461.heic"))
        #expect(rainbow.pixelSize == PixelSize(width: 451, height: 461) && rainbow.orientation == .up)
        let alpha = try coders.decode(Corpus.data("libheif/tests-data/with-alpha-512x512.heic"), options: DecodeOptions(pixelFormat: .rgba8))
        #expect(alpha.hasAlpha && !alpha.buffer.isOpaque)
        // A 512x256 picture whose colour item carries irot (90°): it comes out turned, 256x512,
        // already upright (orientation .up), and info reports the size a viewer shows.
        for name in ["abc_color_irot_alpha_NOirot.avif", "abc_color_irot_alpha_irot.avif"] {
            let data = try Corpus.data("libavif/" + name)
            let image = try coders.decode(data)
            #expect(image.pixelSize == PixelSize(width: 256, height: 512) && image.orientation == .up, "\(name)")
            #expect(try coders.info(of: data).pixelSize == image.pixelSize, "\(name)")
        }
        var decoded = 0, failed = 0
        for url in Corpus.files(in: "libheif") + Corpus.files(in: "libavif", extensions: ["avif", "heic", "heif"]) {
            let data = try Data(contentsOf: url)
            guard let format = ImageFormat(sniffing: data), [.heic, .heif, .avif].contains(format) else { continue }
            do {
                _ = try coders.decode(data)
                decoded += 1
            } catch is ImageCodingError { failed += 1 }
        }
        #expect(decoded > 20)
        print("HEIF corpus sweep: \(decoded) decoded, \(failed) typed errors")
    }

    @Test("libheif's own message names what is wrong with a file it refuses, read before its context is freed")
    func refusalKeepsLibheifsMessage() throws {
        // The decode fuzz target's find (AddressSanitizer: heap-use-after-free): the message of a
        // container error lies in the context's memory, and was read after the context was freed.
        // This file's primary item (`pitm`) names an item that does not exist.
        let data = Self.heifNamingAMissingPrimaryItem()
        for read in [{ try heif.info(of: data) } as () throws -> Any, { try heif.decode(data, options: DecodeOptions()) }] {
            #expect {
                _ = try read()
            } throws: { error in
                guard case .corrupt(.heic, let message) = error as? ImageCodingError else { return false }
                return message.contains("'pitm' box references a non-existing image") && message.hasSuffix("(reading the container)")
            }
        }
    }

    /// An ISOBMFF file with `ftyp` (mif1, heic), and a `meta` whose `pitm` names item 7 while
    /// `iinf` lists none (the same file as Fuzz/regressions/decode/heif-missing-primary-item.heic).
    static func heifNamingAMissingPrimaryItem() -> Data {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let size = UInt32(8 + payload.count)
            return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + payload
        }
        func fullBox(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }
        let ftyp = box("ftyp", Array("mif1".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let handler = fullBox("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let primary = fullBox("pitm", [0, 7])
        let locations = fullBox("iloc", [0x44, 0x00, 0, 0])
        let items = fullBox("iinf", [0, 0])
        let properties = box("iprp", box("ipco", []) + fullBox("ipma", [0, 0, 0, 0]))
        return Data(ftyp + fullBox("meta", handler + primary + locations + items + properties))
    }
}
