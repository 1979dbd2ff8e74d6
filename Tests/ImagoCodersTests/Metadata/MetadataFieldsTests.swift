// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// EXIF (libexif), IPTC and XMP (libxml2) fields found in JPEG, PNG and WebP containers, as
/// `/info` reports them, on the corpus's files and what their upstream tests assert.
@Suite("Metadata fields: EXIF, IPTC, XMP", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct MetadataFieldsTests {
    static func blocks(_ path: String) throws -> MetadataBlocks { MetadataBlocks(reading: try Corpus.data(path)) }

    static func exif(_ path: String, canonical: Bool = false) throws -> [String: String] {
        let block = try #require(try blocks(path).exif)
        return Dictionary(EXIFFields.fields(of: block, canonicalNames: canonical).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    @Test("JPEG: EXIF titles and values as libexif shows them, tag names on request; IPTC as Pillow reads it")
    func jpeg() throws {
        let exif = try Self.exif("pillow/jpeg/iptc.jpg")
        #expect(exif["Manufacturer"] == "Nokia" && exif["Model"] == "N70-1")
        #expect(exif["Date and Time (Original)"] == "2006:07:08 21:14:45" && exif["F-Number"] == "f/3.2")
        let canonical = try Self.exif("pillow/jpeg/iptc.jpg", canonical: true)
        #expect(canonical["Make"] == "Nokia" && canonical["DateTimeOriginal"] == "2006:07:08 21:14:45")
        // Pillow's test_iptc: (2, 90) is Budapest, (2, 101) Hungary.
        let iptc = IPTC.fields(in: try #require(try Self.blocks("pillow/jpeg/iptc.jpg").iptc))
        #expect(iptc.first { $0.name == "City" }?.values == ["Budapest"])
        #expect(iptc.first { $0.name == "Country/Primary Location Name" }?.values == ["Hungary"])
        let keywords = try #require(iptc.first { $0.name == "Keywords" })
        #expect(keywords.repeatable && keywords.values == ["HvK", "2006", "summer", "July", "holiday", "Hungary", "Budapest"])
    }

    @Test("Photoshop resources over several APP13 segments: IPTC and the resolution")
    func photoshop() throws {
        let blocks = try Self.blocks("pillow/jpeg/app13-multiple.jpg")
        let resolution = try #require(blocks.resolution)
        #expect(resolution.x == 300 && resolution.y == 300 && resolution.xUnit == "inches" && resolution.heightUnit == "inches")
        let iptc = IPTC.fields(in: try #require(blocks.iptc))
        #expect(iptc.first { $0.name == "Date Created" }?.values == ["20191014"])
    }

    @Test("XMP by prefix: text, language alternatives, lists; structures left out")
    func xmp() throws {
        let groups = XMPFields.properties(of: try #require(try Self.blocks("image-rs-image/jpg/exif-xmp-metadata.jpg").xmp))
        func value(_ prefix: String, _ name: String) -> XMPFields.Value? {
            groups.first { $0.prefix == prefix }?.properties.first { $0.name == name }?.value
        }
        #expect(value("dc", "description") == .text("test image for XMP metadata"))
        #expect(value("xmp", "CreatorTool") == .text("GIMP"))
        #expect(value("xmpMM", "History") == nil, "a list of structures")
        let packet = Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/jpeg">
            <dc:creator><rdf:Seq><rdf:li>Peter B. Parker</rdf:li><rdf:li>Mary Jane</rdf:li></rdf:Seq></dc:creator>
            <dc:title><rdf:Alt><rdf:li xml:lang="fr">Le pont</rdf:li><rdf:li xml:lang="x-default">The bridge</rdf:li></rdf:Alt></dc:title>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        let made = XMPFields.properties(of: packet)
        #expect(made.count == 1 && made[0].prefix == "dc")
        #expect(made[0].properties.map(\.name) == ["format", "creator", "title"])
        #expect(made[0].properties[1].value == .list(["Peter B. Parker", "Mary Jane"]))
        #expect(made[0].properties[2].value == .text("The bridge"))
        // A document type (where entities would expand) is refused whole.
        let bomb = Data("<!DOCTYPE x [<!ENTITY a \"aaaa\">]>".utf8) + packet
        #expect(XMPFields.properties(of: bomb).isEmpty)
        #expect(XMPFields.properties(of: Data("<not xml".utf8)).isEmpty)
    }

    @Test("PNG eXIf and iTXt, WebP EXIF: found; nothing added that the file lacks")
    func otherContainers() throws {
        #expect(try Self.exif("pngsuite/exif2c08.png")["User Comment"] == "PngSuite")
        let xmp = XMPFields.properties(of: try #require(try Self.blocks("pillow/png/xmp_tags_orientation_exiftool.png").xmp))
        #expect(xmp.first { $0.prefix == "tiff" }?.properties.first { $0.name == "Orientation" }?.value == .text("3"))
        // hopper_orientation_5.webp's EXIF holds the orientation alone: libexif's "fixes" stay off.
        let webp = try Self.exif("pillow/webp/hopper_orientation_5.webp")
        #expect(webp == ["Orientation": "Left-top"])
    }

    @Test("hostile containers and blocks: cut, mutated or malformed, never a crash")
    func hostile() throws {
        var inputs: [Data] = Corpus.files(in: "malformed").prefix(300).compactMap { try? Data(contentsOf: $0) }
        let base = [UInt8](try Corpus.data("pillow/jpeg/iptc.jpg"))
        var state: UInt32 = 11
        for n in 0..<300 {
            var b = base
            // Cut short, and bytes flipped in the metadata segments.
            if n % 3 == 0 { b = Array(b.prefix(Int(state % UInt32(b.count)))) }
            for _ in 0..<8 {
                state = state &* 1_664_525 &+ 1_013_904_223
                let i = Int(state >> 8) % min(b.count, 6000)
                if !b.isEmpty { b[i] ^= UInt8(truncatingIfNeeded: state >> 3) }
            }
            inputs.append(Data(b))
        }
        var found = 0
        for data in inputs {
            let blocks = MetadataBlocks(reading: data)
            if let e = blocks.exif { found += EXIFFields.fields(of: e).count }
            if let i = blocks.iptc { found += IPTC.fields(in: i).count }
            if let x = blocks.xmp { found += XMPFields.properties(of: x).count }
        }
        #expect(found > 0)
        // IIM with a length past the end, an extended length of 8 bytes: stopped, not read past.
        #expect(IPTC.fields(in: Data([0x1C, 2, 25, 0x7F, 0xFF, 65])).isEmpty)
        #expect(IPTC.fields(in: Data([0x1C, 2, 25, 0x80, 0x08, 1, 2, 3])).isEmpty)
        #expect(EXIFFields.fields(of: Data([0x4D, 0x4D, 0, 42, 0xFF, 0xFF, 0xFF, 0xFF])).isEmpty)
    }
}
