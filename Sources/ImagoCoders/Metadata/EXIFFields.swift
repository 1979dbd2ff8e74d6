// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

/// An EXIF block's fields by name, with the values as people read them (`f/16.0`, `1/250 sec.`,
/// `2016:09:11 22:15:03`), through libexif, loaded on first use: the names and values libvips
/// and imgproxy Pro report.
public enum EXIFFields {
    /// Whether libexif is installed (the first call loads it).
    public static var isAvailable: Bool { imago_exif_available() != 0 }

    /// The largest EXIF block read: 1 MiB (a JPEG's is at most 64 KiB).
    public static let maxBytes = 1 << 20

    /// The fields of `block` (TIFF-structured, as `MetadataBlocks.exif` holds it), the
    /// thumbnail's (IFD 1) left out, in the file's order; a name met twice keeps its first value.
    ///
    /// - Parameters:
    ///   - block: The EXIF block.
    ///   - canonicalNames: Tag names (`DateTimeOriginal`) instead of titles
    ///     (`Date and Time (Original)`). Default `false`.
    /// - Returns: The fields; none for a block libexif cannot read, one over ``maxBytes``, or
    ///   when libexif is not installed (``isAvailable``).
    public static func fields(of block: Data, canonicalNames: Bool = false) -> [(name: String, value: String)] {
        guard !block.isEmpty, block.count <= maxBytes else { return [] }
        let capacity = 256 << 10
        var out = [CChar](repeating: 0, count: capacity)
        let count = block.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return -1 }
            return out.withUnsafeMutableBufferPointer { o in
                guard let target = o.baseAddress else { return -1 }
                return imago_exif_fields(base, raw.count, canonicalNames ? 1 : 0, target, capacity)
            }
        }
        guard count > 0 else { return [] }
        var fields: [(name: String, value: String)] = []
        var seen = Set<String>()
        var i = 0
        func next() -> String {
            let start = i
            while i < capacity, out[i] != 0 { i += 1 }
            let s = String(decoding: out[start..<i].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            i += 1
            return s
        }
        for _ in 0..<Int(count) {
            let name = next(), value = next()
            if seen.insert(name).inserted { fields.append((name, value.trimmingSpaces)) }
        }
        return fields
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s.removeLast() }
        while s.first == " " { s.removeFirst() }
        return String(s)
    }
}
