// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Ultra HDR JPEGs (Google's format, Adobe's `hdrgm` gain-map metadata, ISO 21496-1): an SDR
/// JPEG whose Multi-Picture Format (MPF, CIPA DC-007) segment names a second JPEG after its end,
/// the gain map. Reading finds and decodes that map; writing appends a map to a freshly encoded
/// primary and rewrites the MPF entries and the primary's `hdrgm` container directory for the
/// new sizes and offsets.
///
/// Only maps that say what they are are read: the map image's XMP has `hdrgm:` values or it has
/// an ISO 21496-1 block. Apple's older gain maps (no such metadata) are left alone.
public enum UltraHDR {
    /// One image an MPF segment lists.
    package struct Entry: Sendable, Hashable {
        /// The MP attribute (flags and type: `0x030000` a baseline primary image).
        package var attribute: UInt32
        /// The image's length in bytes.
        package var size: Int
        /// Where the image starts, from the MPF header (0 for the primary).
        package var offset: Int
    }

    /// A JPEG's Multi-Picture Format segment: where its header lies in the file (offsets count
    /// from there) and its entries.
    package struct MultiPicture: Sendable, Hashable {
        /// The position, in the file, of the MPF header's byte-order mark.
        package var base: Int
        /// The images, the primary first.
        package var entries: [Entry]
    }

    static let xmpPrefix = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let isoPrefix = Array("urn:iso:std:iso:ts:21496:-1\0".utf8)
    static let mpfPrefix = Array("MPF\0".utf8)

    /// The APP segments of a JPEG up to its first scan: marker and payload range.
    static func segments(_ d: [UInt8]) -> [(marker: UInt8, payload: Range<Int>)] {
        guard d.count >= 4, d[0] == 0xFF, d[1] == 0xD8 else { return [] }
        var out: [(UInt8, Range<Int>)] = []
        var i = 2
        while i + 4 <= d.count, d[i] == 0xFF {
            let marker = d[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(d[i + 2]) << 8 | Int(d[i + 3])
            guard length >= 2, i + 2 + length <= d.count else { break }
            out.append((marker, (i + 4)..<(i + 2 + length)))
            i += 2 + length
        }
        return out
    }

    /// The MPF segment of a JPEG, or `nil` when it has none or it cannot be read.
    package static func multiPicture(in data: Data) -> MultiPicture? {
        let d = [UInt8](data.prefix(1 << 20))
        for (marker, payload) in segments(d) where marker == 0xE2 && d[payload].starts(with: mpfPrefix) {
            return parseMPF(d, base: payload.lowerBound + 4, end: payload.upperBound)
        }
        return nil
    }

    static func parseMPF(_ d: [UInt8], base: Int, end: Int) -> MultiPicture? {
        guard base + 8 <= end else { return nil }
        let big = d[base] == 0x4D && d[base + 1] == 0x4D
        guard big || (d[base] == 0x49 && d[base + 1] == 0x49) else { return nil }
        func u16(_ at: Int) -> Int? {
            guard at >= base, at + 2 <= end else { return nil }
            return big ? Int(d[at]) << 8 | Int(d[at + 1]) : Int(d[at + 1]) << 8 | Int(d[at])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return big ? a << 16 | b : b << 16 | a
        }
        guard let ifd = u32(base + 4), let count = u16(base + ifd), count <= 64 else { return nil }
        var entriesAt: Int?, entriesLength = 0
        for k in 0..<count {
            let e = base + ifd + 2 + k * 12
            guard let tag = u16(e), let n = u32(e + 4), let value = u32(e + 8) else { return nil }
            if tag == 0xB002 {
                entriesAt = base + value
                entriesLength = n
            }
        }
        guard let at = entriesAt, entriesLength % 16 == 0, entriesLength / 16 <= 16 else { return nil }
        var entries: [Entry] = []
        for k in 0..<(entriesLength / 16) {
            guard let attribute = u32(at + k * 16), let size = u32(at + k * 16 + 4), let offset = u32(at + k * 16 + 8) else { return nil }
            entries.append(Entry(attribute: UInt32(attribute), size: size, offset: offset))
        }
        return MultiPicture(base: base, entries: entries)
    }

    /// The bytes of the gain map JPEG an Ultra HDR file carries, or `nil` when it has none.
    package static func gainMapJPEG(in data: Data) -> Data? {
        guard let mp = multiPicture(in: data), mp.entries.count >= 2 else { return nil }
        let e = mp.entries[1]
        let start = mp.base + e.offset
        guard e.offset > 0, e.size > 4, start >= 0, start < data.count, e.size <= data.count - start else { return nil }
        let map = data.subdata(in: (data.startIndex + start)..<(data.startIndex + start + e.size))
        guard map.count > 4, map[map.startIndex] == 0xFF, map[map.startIndex + 1] == 0xD8 else { return nil }
        return map
    }

    /// The gain map of an Ultra HDR JPEG, decoded at its stored size (`PixelFormat.gray8` or
    /// `PixelFormat.rgb8`, no colour management), with its metadata blocks; `nil` when the
    /// file has none.
    ///
    /// - Throws: `ImageCodingError` when the map is there but cannot be decoded within `limits`.
    public static func gainMap(in data: Data, limits: DecodingLimits = .default) throws -> GainMap? {
        guard let jpeg = gainMapJPEG(in: data) else { return nil }
        let d = [UInt8](jpeg.prefix(1 << 20))
        var xmp: Data?, iso: Data?
        for (marker, payload) in segments(d) {
            let bytes = d[payload]
            if marker == 0xE1, bytes.starts(with: xmpPrefix) { xmp = Data(bytes.dropFirst(xmpPrefix.count)) }
            if marker == 0xE2, bytes.starts(with: isoPrefix) { iso = Data(bytes.dropFirst(isoPrefix.count)) }
        }
        let described = xmp.map { String(decoding: $0, as: UTF8.self).contains("hdr-gain-map") } ?? false
        guard described || iso != nil else { return nil }
        let coder = JPEGCoder()
        let info = try coder.info(of: jpeg)
        var options = DecodeOptions(pixelFormat: info.isGrayscale ? .gray8 : .rgb8, colorManagement: false, limits: limits)
        options.firstFrameOnly = true
        let pixels = try coder.decode(jpeg, options: options).buffer
        return GainMap(pixels: pixels.converted(to: info.isGrayscale ? .gray8 : .rgb8), xmp: xmp, iso21496: iso)
    }

    /// `primary` (a JPEG just encoded) with `gainMap` appended: the map encoded at `quality`
    /// with its XMP and ISO 21496-1 blocks, and the primary given an XMP container directory
    /// (`hdrgm:Version`, the map's `Item:Length`) and an MPF segment naming both images.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` when `primary` is not a JPEG or a
    ///   metadata block is too large for a segment; the encoder's errors.
    public static func write(primary: Data, gainMap: GainMap, quality: Double) throws -> Data {
        var options = EncodeOptions(quality: quality)
        options.keepMetadata = false
        var map = [UInt8](try JPEGCoder().encode(Image(buffer: gainMap.pixels), as: .jpeg, options: options))
        var mapSegments: [[UInt8]] = []
        if let xmp = gainMap.xmp { mapSegments.append(try segment(0xE1, xmpPrefix + [UInt8](xmp))) }
        if let iso = gainMap.iso21496 { mapSegments.append(try segment(0xE2, isoPrefix + [UInt8](iso))) }
        map = try inserting(mapSegments, into: map)
        let directory = try segment(0xE1, xmpPrefix + Array(containerXMP(gainMapLength: map.count).utf8))
        let placeholder = try segment(0xE2, mpfPayload(primarySize: 0, mapSize: 0, mapOffset: 0))
        // A map with ISO 21496-1 metadata: the primary says so too, with the standard's version
        // block (minimum and writer version, both 0), as libultrahdr writes it.
        let iso = gainMap.iso21496 == nil ? [] : [try segment(0xE2, isoPrefix + [0, 0, 0, 0])]
        var out = try inserting([directory] + iso + [placeholder], into: [UInt8](primary))
        // The MPF segment's place is known only now; its entries are rewritten in place.
        guard let at = segments(out).first(where: { $0.marker == 0xE2 && out[$0.payload].starts(with: mpfPrefix) }) else {
            throw ImageCodingError.invalidArgument("the primary JPEG lost its MPF segment")
        }
        let base = at.payload.lowerBound + 4
        let payload = mpfPayload(primarySize: out.count, mapSize: map.count, mapOffset: out.count - base)
        out.replaceSubrange(at.payload, with: payload)
        out += map
        return Data(out)
    }

    /// An APP segment: marker, length, payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) throws -> [UInt8] {
        guard payload.count <= 65533 else { throw ImageCodingError.invalidArgument("a JPEG segment holds at most 65533 bytes") }
        let n = payload.count + 2
        return [0xFF, marker, UInt8(n >> 8), UInt8(n & 0xFF)] + payload
    }

    /// `jpeg` with `segments` after its last APP segment before the tables.
    static func inserting(_ segments: [[UInt8]], into jpeg: [UInt8]) throws -> [UInt8] {
        let app = Self.segments(jpeg)
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw ImageCodingError.invalidArgument("not a JPEG") }
        var at = 2
        for (marker, payload) in app {
            guard (0xE0...0xEF).contains(marker) else { break }
            at = payload.upperBound
        }
        var out = jpeg
        out.insert(contentsOf: segments.joined(), at: at)
        return out
    }

    /// The MPF payload (big-endian): version, two images, their entries.
    static func mpfPayload(primarySize: Int, mapSize: Int, mapOffset: Int) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16 & 0xFFFF) + u16(v & 0xFFFF) }
        var p = mpfPrefix + [0x4D, 0x4D, 0x00, 0x2A] + u32(8) + u16(3)
        p += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)
        p += u16(0xB001) + u16(4) + u32(1) + u32(2)
        p += u16(0xB002) + u16(7) + u32(32) + u32(8 + 2 + 3 * 12 + 4)
        p += u32(0)
        // The primary: a representative baseline primary image; the map: undefined type.
        p += u32(0x2003_0000) + u32(primarySize) + u32(0) + u16(0) + u16(0)
        p += u32(0) + u32(mapSize) + u32(mapOffset) + u16(0) + u16(0)
        return p
    }

    /// The primary's XMP: `hdrgm:Version` and the container directory libultrahdr writes.
    static func containerXMP(gainMapLength: Int) -> String {
        "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"Imago\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" xmlns:Container=\"http://ns.google.com/photos/1.0/container/\" "
            + "xmlns:Item=\"http://ns.google.com/photos/1.0/container/item/\" xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\" "
            + "hdrgm:Version=\"1.0\"><Container:Directory><rdf:Seq>"
            + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"/></rdf:li>"
            + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\" "
            + "Item:Length=\"\(gainMapLength)\"/></rdf:li></rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>"
    }
}
