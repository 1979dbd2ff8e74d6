// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

/// Builds TIFF structures (EXIF blocks) field by field, in either byte order.
enum TIFFBlock {
    /// One IFD entry; `value` is its four value bytes as stored (inline data or an offset).
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var value: [UInt8]
    }

    static func u16(_ v: UInt16, _ big: Bool) -> [UInt8] { big ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }

    static func u32(_ v: UInt32, _ big: Bool) -> [UInt8] {
        let bytes = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return big ? bytes : Array(bytes.reversed())
    }

    /// A SHORT value stored inline.
    static func short(_ v: UInt16, _ big: Bool) -> [UInt8] { u16(v, big) + [0, 0] }

    /// Header, `gap` filler bytes, IFD0 with `entries`, a zero next-IFD offset, then `tail`.
    static func make(bigEndian big: Bool, gap: Int = 0, _ entries: [Entry], tail: [UInt8] = []) -> [UInt8] {
        var out: [UInt8] = big ? [0x4D, 0x4D, 0, 0x2A] : [0x49, 0x49, 0x2A, 0]
        out += u32(UInt32(8 + gap), big)
        out += [UInt8](repeating: 0xEE, count: gap)
        out += u16(UInt16(entries.count), big)
        for e in entries { out += u16(e.tag, big) + u16(e.type, big) + u32(e.count, big) + e.value }
        return out + [0, 0, 0, 0] + tail
    }
}

@Suite("EXIF orientation and text tags, XMP orientation")
struct MetadataTests {
    static let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

    @Test(
        "the orientation tag is found after other entries and with IFD0 away from offset 8; setting it changes its two bytes only",
        arguments: [true, false])
    func orientationAmongEntries(_ big: Bool) throws {
        // IFD0 at 16: Make (ASCII inline), XResolution (RATIONAL by offset), Orientation 6.
        let block = TIFFBlock.make(
            bigEndian: big, gap: 8,
            [
                .init(tag: 0x010F, type: 2, count: 4, value: Array("Cam\0".utf8)),
                .init(tag: 0x011A, type: 5, count: 1, value: TIFFBlock.u32(200, big)),
                .init(tag: 0x0112, type: 3, count: 1, value: TIFFBlock.short(6, big))
            ])
        let data = Data(block)
        #expect(EXIF.orientation(in: data) == .right)
        let patched = EXIF.settingOrientation(.left, in: data)
        #expect(EXIF.orientation(in: patched) == .left)
        // The value sits at 16 + 2 + 2 × 12 + 8 = 50.
        let changed = (0..<block.count).filter { patched[$0] != block[$0] }
        #expect(changed == (big ? [51] : [50]))
        #expect(Array(patched[50..<52]) == TIFFBlock.u16(8, big))
        // With the JPEG APP1 prefix, the same tag is read and written 6 bytes on.
        let prefixed = Data(Self.exifPrefix + block)
        #expect(EXIF.orientation(in: prefixed) == .right)
        #expect(EXIF.settingOrientation(.left, in: prefixed) == Data(Self.exifPrefix) + patched)
    }

    @Test("an orientation of the wrong type, or none at all, reads nil and is left as it is")
    func unreadableOrientation() {
        let wrongType = Data(TIFFBlock.make(bigEndian: false, [.init(tag: 0x0112, type: 4, count: 1, value: [6, 0, 0, 0])]))
        #expect(EXIF.orientation(in: wrongType) == nil)
        #expect(EXIF.settingOrientation(.down, in: wrongType) == wrongType)
        let none = Data(TIFFBlock.make(bigEndian: true, [.init(tag: 0x010F, type: 2, count: 2, value: [0x41, 0, 0, 0])]))
        #expect(EXIF.orientation(in: none) == nil && EXIF.settingOrientation(.down, in: none) == none)
        let notTIFF = Data("Exif\0\0GIF89a".utf8)
        #expect(EXIF.orientation(in: notTIFF) == nil && EXIF.settingOrientation(.down, in: notTIFF) == notTIFF)
    }

    @Test("a Data slice that does not start at index 0 is read and patched at the right place")
    func sliceIndices() {
        let block = TIFFBlock.make(bigEndian: true, [.init(tag: 0x0112, type: 3, count: 1, value: TIFFBlock.short(3, true))])
        let slice = Data([9, 9, 9] + block).dropFirst(3)
        #expect(slice.startIndex == 3)
        #expect(EXIF.orientation(in: slice) == .down)
        let patched = EXIF.settingOrientation(.upMirrored, in: slice)
        #expect(EXIF.orientation(in: patched) == .upMirrored && Array(patched) == Array(EXIF.settingOrientation(.upMirrored, in: Data(block))))
    }

    @Test("strippingPrefix removes exactly Exif\\0\\0")
    func stripping() {
        let body: [UInt8] = [0x49, 0x49, 0x2A, 0]
        #expect(EXIF.strippingPrefix(Data(Self.exifPrefix + body)) == Data(body))
        #expect(EXIF.strippingPrefix(Data(body)) == Data(body))
        #expect(EXIF.strippingPrefix(Data(Self.exifPrefix.prefix(5) + body)) == Data(Self.exifPrefix.prefix(5) + body))
        #expect(EXIF.strippingPrefix(Data(Self.exifPrefix)) == Data())
    }

    /// A big-endian block with Make, Orientation, Artist (inline) and Copyright (by offset).
    static func textBlock(artist: [UInt8] = Array("Jo\0".utf8), copyrightOffset: UInt32 = 62) -> [UInt8] {
        let copyright = Array("(c) 2026 Imago\0".utf8)  // 15 bytes, stored after the IFD at 8 + 2 + 4 × 12 + 4 = 62
        return TIFFBlock.make(
            bigEndian: true,
            [
                .init(tag: 0x010F, type: 2, count: 4, value: Array("Cam\0".utf8)),
                .init(tag: 0x0112, type: 3, count: 1, value: TIFFBlock.short(6, true)),
                .init(tag: 0x013B, type: 2, count: UInt32(artist.count), value: artist + [UInt8](repeating: 0, count: 4 - artist.count)),
                .init(tag: 0x8298, type: 2, count: UInt32(copyright.count), value: TIFFBlock.u32(copyrightOffset, true))
            ], tail: copyright)
    }

    @Test("keepingTextTags writes a little-endian block of just Artist and Copyright, texts after the IFD, padded to even")
    func keepsCopyright() throws {
        let kept = try #require(EXIF.keepingTextTags(of: Data(Self.textBlock())))
        var expected: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 2, 0]
        expected += [0x3B, 0x01, 2, 0, 3, 0, 0, 0] + Array("Jo".utf8) + [0, 0]  // inline: 3 bytes fit
        expected += [0x98, 0x82, 2, 0, 15, 0, 0, 0, 38, 0, 0, 0]  // 8 + 2 + 2 × 12 + 4 = 38
        expected += [0, 0, 0, 0] + Array("(c) 2026 Imago".utf8) + [0, 0]  // NUL, then the pad byte
        #expect(Array(kept) == expected)
        #expect(EXIF.orientation(in: kept) == nil, "orientation is not text: dropped")
        #expect(EXIF.keepingTextTags(of: kept) == kept, "keeping again changes nothing")
        #expect(EXIF.keepingTextTags(of: Data(Self.exifPrefix + Self.textBlock())) == kept)
        // A caller's own list: Make alone.
        let make = try #require(EXIF.keepingTextTags([0x010F], of: Data(Self.textBlock())))
        var expectedMake: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x0F, 0x01, 2, 0, 4, 0, 0, 0]
        expectedMake += Array("Cam\0".utf8) + [0, 0, 0, 0]
        #expect(Array(make) == expectedMake)
    }

    @Test("keepingTextTags terminates unterminated text, skips entries it cannot read, and gives nil when nothing is left")
    func textTagEdges() throws {
        let unterminated = try #require(EXIF.keepingTextTags([0x013B], of: Data(Self.textBlock(artist: Array("Jo".utf8)))))
        #expect(Array(unterminated) == [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x3B, 0x01, 2, 0, 3, 0, 0, 0, 0x4A, 0x6F, 0, 0, 0, 0, 0, 0])
        // Copyright's text offset points past the end: only Artist survives.
        let pastEnd = try #require(EXIF.keepingTextTags(of: Data(Self.textBlock(copyrightOffset: 1000))))
        #expect(Array(pastEnd) == Array(unterminated))
        #expect(EXIF.keepingTextTags([0x8298], of: Data(Self.textBlock(copyrightOffset: 1000))) == nil)
        let undefinedType = TIFFBlock.make(bigEndian: false, [.init(tag: 0x8298, type: 7, count: 4, value: Array("abc\0".utf8))])
        #expect(EXIF.keepingTextTags(of: Data(undefinedType)) == nil)
        #expect(EXIF.keepingTextTags(of: Data([0x4D, 0x4D, 0, 0x2A, 0, 0, 0])) == nil)
        #expect(EXIF.keepingTextTags(of: Data("XX*\0\0\0\0\u{8}".utf8)) == nil)
        // The IFD claims more entries than the block holds: malformed.
        var truncated = Self.textBlock()
        truncated[9] = 40
        #expect(EXIF.keepingTextTags(of: Data(truncated.prefix(70))) == nil)
    }

    @Test("malformed blocks never crash: random damage keeps sizes, and a readable orientation can always be rewritten")
    func damagedBlocks() {
        let good = Self.textBlock()
        var state: UInt32 = 12_345
        func next(_ bound: Int) -> Int {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int(state >> 8) % bound
        }
        var failures: [String] = []
        for round in 0..<400 {
            var block = good
            for _ in 0..<(1 + next(4)) { block[next(block.count)] = UInt8(truncatingIfNeeded: next(256)) }
            let data = Data(block.prefix(next(block.count + 1)))
            let patched = EXIF.settingOrientation(.left, in: data)
            if patched.count != data.count { failures.append("round \(round): size changed") }
            if EXIF.orientation(in: data) != nil, EXIF.orientation(in: patched) != .left { failures.append("round \(round): not rewritten") }
            if let kept = EXIF.keepingTextTags(of: data), EXIF.keepingTextTags(of: kept) != kept { failures.append("round \(round): not stable") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // An entry count of 65 535 in a short block, and an IFD offset near 2^31.
        var many = good
        many[8] = 0xFF
        many[9] = 0xFF
        #expect(EXIF.orientation(in: Data(many)) == .right, "the tag is found before the count runs out")
        #expect(EXIF.orientation(in: Data(many.prefix(22))) == nil, "the block ends before the tag")
        var far = good
        far[4] = 0x7F
        far[5] = 0xFF
        far[6] = 0xFF
        far[7] = 0xF0
        #expect(EXIF.orientation(in: Data(far)) == nil && EXIF.keepingTextTags(of: Data(far)) == nil)
    }

    @Test("XMP orientation: attribute or element, either quote, spaces around; anything else is nil")
    func xmpOrientation() {
        func read(_ text: String) -> ImageOrientation? { XMP.orientation(in: Data(text.utf8)) }
        #expect(read(#"<rdf:Description tiff:Orientation="6"/>"#) == .right)
        #expect(read("<rdf:Description tiff:Orientation = '8' />") == .left)
        #expect(read("<tiff:Orientation>3</tiff:Orientation>") == .down)
        #expect(read("<tiff:Orientation>\n  5\n</tiff:Orientation>") == .leftMirrored)
        // The name mentioned before the real attribute is skipped.
        #expect(read(#"<x>tiff:Orientation</x> <rdf:Description tiff:OrientationX="1" tiff:Orientation="2"/>"#) == .upMirrored)
        #expect(read(#"tiff:Orientation="9""#) == nil)
        #expect(read(#"tiff:Orientation="0""#) == nil)
        #expect(read(#"tiff:Orientation="12""#) == nil)
        #expect(read("tiff:Orientation=\"\"") == nil)
        #expect(read("tiff:Orientation") == nil)
        #expect(read(#"exif:Orientation="6""#) == nil)
        #expect(read("") == nil)
    }

    @Test("XMP is searched in its first 4 MiB only")
    func xmpScanLimit() {
        let attribute = Data(#" tiff:Orientation="6" "#.utf8)
        #expect(XMP.orientation(in: Data(count: 1000) + attribute) == .right)
        #expect(XMP.orientation(in: Data(count: XMP.scanLimit) + attribute) == nil)
    }

    @Test("a viewer's orientation: EXIF's when it has one, else XMP's, else up")
    func combined() {
        let exif = Data(TIFFBlock.make(bigEndian: false, [.init(tag: 0x0112, type: 3, count: 1, value: TIFFBlock.short(6, false))]))
        let noTag = Data(TIFFBlock.make(bigEndian: false, []))
        let xmp = Data(#"tiff:Orientation="3""#.utf8)
        #expect(ImageOrientation(exif: exif, xmp: xmp) == .right)
        #expect(ImageOrientation(exif: noTag, xmp: xmp) == .down)
        #expect(ImageOrientation(exif: Data([1, 2, 3]), xmp: xmp) == .down)
        #expect(ImageOrientation(exif: nil, xmp: xmp) == .down)
        #expect(ImageOrientation(exif: noTag, xmp: Data("nothing".utf8)) == .up)
        #expect(ImageOrientation(exif: nil, xmp: nil) == .up)
    }
}
