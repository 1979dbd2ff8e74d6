// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("ICNS containers made by hand: entries, the choice of image, damage and options")
struct ICNSContainerTests {
    let coders = ImageCoderRegistry.makeDefault()

    func png(_ side: Int) throws -> (PixelBuffer, Data) {
        let pixels = try Fixtures.gradient(width: side, height: side, alpha: true)
        let data = try coders.encode(Image(buffer: pixels), as: .png)
        return (pixels, data)
    }

    @Test("entries: types in file order, data offsets past each 8-byte header, lengths, PNG bodies recognised")
    func entries() throws {
        let (_, small) = try png(16)
        let legacy = Data(repeating: 7, count: 40)
        let data = ICNSTests.icns([("TOC ", Data(count: 8)), ("icp4", small), ("is32", legacy)])
        let entries = try ICNSCoder.entries(of: data)
        #expect(entries.map(\.type) == ["TOC ", "icp4", "is32"])
        #expect(entries.map(\.offset) == [16, 32, 32 + small.count + 8])
        #expect(entries.map(\.length) == [8, small.count, 40])
        #expect(entries.map(\.format) == [nil, .png, nil])
        #expect(data.subdata(in: entries[1].offset..<(entries[1].offset + entries[1].length)) == small)
        // Bytes past the length the header states are not part of the container.
        #expect(try ICNSCoder.entries(of: data + Data(repeating: 0xAB, count: 50)) == entries)
    }

    @Test("the largest decodable entry by area wins, decoded exactly; a broken larger PNG is passed over")
    func choice() throws {
        let (pixels32, png32) = try png(32)
        let (_, png64) = try png(64)
        let data = ICNSTests.icns([("ic11", png64.prefix(20)), ("icp5", png32)])
        #expect(try ICNSCoder.entries(of: data).map(\.format) == [.png, .png])
        let image = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(image.format == .icns && image.pixelSize == PixelSize(width: 32, height: 32))
        #expect(image.buffer == pixels32)
        let info = try coders.info(of: data)
        #expect(info.format == .icns && info.width == 32 && info.hasAlpha)

        let both = ICNSTests.icns([("icp5", png32), ("ic12", png64)])
        #expect(try coders.decode(both).pixelSize == PixelSize(width: 64, height: 64))
        // A thumbnail size does not choose among entries: the largest is decoded (PNG has no reduced decode).
        #expect(try coders.decode(both, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 16))).pixelSize.width == 64)
    }

    @Test(
        "a JPEG 2000 entry is recognised and chosen when it is the largest",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/opj_compress"), "opj_compress is missing"))
    func jpeg2000Entry() async throws {
        let (_, png32) = try png(32)
        let source = try Fixtures.gradient(width: 64, height: 64)
        let jp2 = try await JPEG2000DecodingTests.compress(source, ext: "jp2")
        let data = ICNSTests.icns([("icp5", png32), ("ic12", jp2)])
        #expect(try ICNSCoder.entries(of: data).map(\.format) == [.png, .jp2])
        let image = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(image.format == .icns && image.buffer == source)
        #expect(try coders.info(of: data).width == 64)
    }

    @Test("damage: no header, a stated size under 8, elements past the end or shorter than their header, legacy entries only")
    func damage() throws {
        let (_, png16) = try png(16)
        let missing = ImageCodingError.corrupt(.icns, "the icns header is missing")
        #expect(throws: missing) { try ICNSCoder.entries(of: Data("icnz\0\0\0\u{10}".utf8)) }
        #expect(throws: missing) { try ICNSCoder.entries(of: Data("icns\0\0\0\u{4}".utf8)) }
        #expect(throws: missing) { try ICNSCoder().decode(Data("icns".utf8), options: .default) }

        var long = ICNSTests.icns([("icp4", png16)])
        long.replaceSubrange(12..<16, with: [0, 1, 0, 0])  // the element claims 65,536 bytes
        #expect(throws: ImageCodingError.corrupt(.icns, "element at 8 runs past the end of the file")) { try coders.decode(long) }
        var short = ICNSTests.icns([("icp4", png16)])
        short.replaceSubrange(12..<16, with: [0, 0, 0, 4])  // shorter than its own header
        #expect(throws: ImageCodingError.corrupt(.icns, "element at 8 runs past the end of the file")) { try coders.info(of: short) }

        let legacy = ICNSTests.icns([("is32", Data(count: 40)), ("s8mk", Data(count: 16)), ("TOC ", Data(count: 16))])
        let unsupported = ImageCodingError.unsupportedFeature(.icns, "no PNG or JPEG 2000 entry (legacy icon formats are not decoded)")
        #expect(throws: unsupported) { try coders.decode(legacy) }
        #expect(throws: unsupported) { try coders.info(of: legacy) }
        #expect(try ICNSCoder.entries(of: ICNSTests.icns([])).isEmpty)
    }

    @Test("decode options reach the entry's decoder: pixel format and limits")
    func options() throws {
        let (pixels, png32) = try png(32)
        let data = ICNSTests.icns([("icp5", png32)])
        #expect(try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8)).buffer == pixels)
        #expect(try coders.decode(data).buffer == pixels.converted(to: .argb32Premultiplied))
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 1024, limit: 1023)) {
            try coders.decode(data, options: DecodeOptions(limits: DecodingLimits(maxPixels: 1023)))
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxBytes, found: data.count, limit: 100)) {
            try ICNSCoder().decode(data, options: DecodeOptions(limits: DecodingLimits(maxBytes: 100)))
        }
    }
}
