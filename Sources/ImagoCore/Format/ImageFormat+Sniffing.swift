// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

extension ImageFormat {
    /// Detects the format from magic bytes, or returns `nil`.
    ///
    /// Safe on data of any length, including empty data. Reads at most the first 4 KiB,
    /// except that telling APNG from PNG walks PNG chunk headers (never their data) until
    /// the first `IDAT`: an `acTL` chunk before it makes the file APNG.
    public init?(sniffing data: Data) {
        PipelineProbe.record(ProbeEvent.sniff)
        guard let f = data.withUnsafeBytes({ Self.sniff(Bytes($0)) }) else { return nil }
        self = f
    }

    /// Detects the format from raw bytes; see `init(sniffing:)`.
    public init?(sniffing bytes: UnsafeRawBufferPointer) {
        PipelineProbe.record(ProbeEvent.sniff)
        guard let f = Self.sniff(Bytes(bytes)) else { return nil }
        self = f
    }

    static func sniff(_ b: Bytes) -> ImageFormat? {
        if b.hasPrefix([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if b.hasPrefix([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return isAPNG(b) ? .apng : .png }
        if b.hasPrefix(Array("GIF87a".utf8)) || b.hasPrefix(Array("GIF89a".utf8)) { return .gif }
        if b.hasPrefix(Array("RIFF".utf8)), b.matches(Array("WEBP".utf8), at: 8) { return .webp }
        if b.hasPrefix([0x49, 0x49, 0x2A, 0x00]) || b.hasPrefix([0x4D, 0x4D, 0x00, 0x2A])
            || b.hasPrefix([0x49, 0x49, 0x2B, 0x00]) || b.hasPrefix([0x4D, 0x4D, 0x00, 0x2B])
        {
            return .tiff
        }
        if b.matches(Array("ftyp".utf8), at: 4), let f = isoBMFFFormat(b) { return f }
        if b.hasPrefix([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
            || b.hasPrefix([0xFF, 0x4F, 0xFF, 0x51])
        {
            return .jp2
        }
        if b.hasPrefix([0xFF, 0x0A])
            || b.hasPrefix([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
        {
            return .jxl
        }
        if b.hasPrefix(Array("icns".utf8)) { return .icns }
        if b.hasPrefix(Array("%PDF-".utf8)) { return .pdf }
        if b.hasPrefix(Array("BM".utf8)), isBMP(b) { return .bmp }
        if b.hasPrefix([0, 0, 1, 0]), isICO(b) { return .ico }
        if b.hasPrefix([0, 0, 2, 0]), isICO(b) { return .cur }
        if isSVG(b) { return .svg }
        // PDF readers accept the header anywhere in the first 1024 bytes, after junk.
        let marker = Array("%PDF-".utf8)
        if b.count >= marker.count, (0...min(1024, b.count - marker.count)).contains(where: { b.matches(marker, at: $0) }) { return .pdf }
        return nil
    }

    /// Walks chunk headers from offset 8 looking for `acTL` before `IDAT`.
    private static func isAPNG(_ b: Bytes) -> Bool {
        var offset = 8
        while let length = b.uint32BE(at: offset), let type = b.uint32BE(at: offset + 4) {
            if type == 0x6163_544C { return true }  // acTL
            if type == 0x4944_4154 { return false }  // IDAT
            // length + type + data + crc; a length past 2^31 is invalid PNG: stop.
            guard length < 0x8000_0000 else { return false }
            let (next, o) = offset.addingReportingOverflow(Int(length) + 12)
            if o { return false }
            offset = next
        }
        return false
    }

    /// Whether an ISO-BMFF file's brands announce an image sequence (AVIF `avis`, HEIF `msf1`,
    /// HEVC `hevc`/`hevx`/`hevm`/`hevs`).
    package static func sequenceBrand(in data: Data) -> Bool {
        data.prefix(4096).withUnsafeBytes { sequenceBrand(Bytes($0)) }
    }

    private static func sequenceBrand(_ b: Bytes) -> Bool {
        guard let boxSize = b.uint32BE(at: 0), let major = b.string4(at: 8) else { return false }
        var brands = [major]
        var offset = 16
        while offset + 4 <= min(Int(boxSize), b.count, 4096), let brand = b.string4(at: offset) {
            brands.append(brand)
            offset += 4
        }
        return brands.contains { ["avis", "msf1", "hevc", "hevx", "hevm", "hevs"].contains($0) }
    }

    /// HEIF-family brands: major brand first, then the compatible brands.
    private static func isoBMFFFormat(_ b: Bytes) -> ImageFormat? {
        guard let boxSize = b.uint32BE(at: 0), let major = b.string4(at: 8) else { return nil }
        var brands = [major]
        var offset = 16
        let end = min(Int(boxSize), b.count, 4096)
        while offset + 4 <= end, let brand = b.string4(at: offset) {
            brands.append(brand)
            offset += 4
        }
        func classify(_ brand: String) -> ImageFormat? {
            switch brand {
            case "avif", "avis": .avif
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs": .heic
            default: nil
            }
        }
        if let f = classify(major) { return f }
        for brand in brands.dropFirst() { if let f = classify(brand) { return f } }
        if brands.contains(where: { ["mif1", "msf1", "mif2", "miaf"].contains($0) }) { return .heif }
        if major == "jxl " { return .jxl }
        return nil
    }

    /// "BM" plus, when present, a known DIB header size.
    private static func isBMP(_ b: Bytes) -> Bool {
        guard let dib = b.uint32LE(at: 14) else { return b.count >= 2 }
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(dib)
    }

    /// ICO/CUR: reserved 0, type 1 or 2, then a non-zero image count.
    private static func isICO(_ b: Bytes) -> Bool {
        guard let count = b.uint16LE(at: 4) else { return b.count >= 4 }
        return count > 0
    }

    /// An XML or bare `<svg` document within the first 4 KiB.
    private static func isSVG(_ b: Bytes) -> Bool {
        var i = 0
        if b.hasPrefix([0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
        guard i < b.count, b[i] == UInt8(ascii: "<") else { return false }
        let end = min(b.count, 4096)
        let needle = Array("<svg".utf8)
        guard end >= needle.count else { return false }
        var j = i
        while j + needle.count <= end {
            if b.matches(needle, at: j) { return true }
            j += 1
        }
        return false
    }
}

/// A bounds-checked view of raw bytes: every read returns `nil` past the end.
struct Bytes {
    let raw: UnsafeRawBufferPointer
    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }
    var count: Int { raw.count }
    subscript(i: Int) -> UInt8 { raw[i] }

    func hasPrefix(_ p: [UInt8]) -> Bool { matches(p, at: 0) }
    func matches(_ p: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset <= count, p.count <= count - offset else { return false }
        for (k, v) in p.enumerated() where raw[offset + k] != v { return false }
        return true
    }
    func uint32BE(at o: Int) -> UInt32? {
        guard o >= 0, o <= count - 4 else { return nil }
        return UInt32(raw[o]) << 24 | UInt32(raw[o + 1]) << 16 | UInt32(raw[o + 2]) << 8 | UInt32(raw[o + 3])
    }
    func uint32LE(at o: Int) -> UInt32? {
        guard o >= 0, o <= count - 4 else { return nil }
        return UInt32(raw[o + 3]) << 24 | UInt32(raw[o + 2]) << 16 | UInt32(raw[o + 1]) << 8 | UInt32(raw[o])
    }
    func uint16LE(at o: Int) -> UInt16? {
        guard o >= 0, o <= count - 2 else { return nil }
        return UInt16(raw[o + 1]) << 8 | UInt16(raw[o])
    }
    func string4(at o: Int) -> String? {
        guard o >= 0, o <= count - 4 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[o..<(o + 4)]), as: UTF8.self)
    }
}
