// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

/// Reads and patches the orientation tag of an EXIF block, with every offset bounds-checked.
///
/// Accepts the block with or without its `Exif\0\0` prefix (JPEG APP1 carries it; PNG `eXIf`
/// and WebP `EXIF` chunks usually do not).
public enum EXIF {
    /// The orientation in IFD0, or `nil` when absent, out of 1–8, or the block is malformed.
    public static func orientation(in exif: Data) -> ImageOrientation? {
        guard let loc = orientationLocation(in: exif) else { return nil }
        return ImageOrientation(exifValue: Int(loc.value))
    }

    /// Returns `exif` with its IFD0 orientation tag set to `orientation`; unchanged when the
    /// tag is absent or the block is malformed.
    public static func settingOrientation(_ orientation: ImageOrientation, in exif: Data) -> Data {
        guard let loc = orientationLocation(in: exif) else { return exif }
        var copy = Data(exif)
        let v = UInt16(orientation.rawValue)
        let start = copy.startIndex + loc.offset
        if loc.bigEndian {
            copy[start] = UInt8(v >> 8)
            copy[start + 1] = UInt8(v & 0xFF)
        } else {
            copy[start] = UInt8(v & 0xFF)
            copy[start + 1] = UInt8(v >> 8)
        }
        return copy
    }

    /// The EXIF block without an `Exif\0\0` prefix.
    package static func strippingPrefix(_ exif: Data) -> Data {
        let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        return exif.starts(with: prefix) ? exif.dropFirst(6) : exif
    }

    private static func orientationLocation(in exif: Data) -> (offset: Int, value: UInt16, bigEndian: Bool)? {
        exif.withUnsafeBytes { raw -> (Int, UInt16, Bool)? in
            var base = 0
            let b = Bytes(raw)
            if b.hasPrefix([0x45, 0x78, 0x69, 0x66, 0, 0]) { base = 6 }
            let big: Bool
            if b.matches([0x4D, 0x4D, 0x00, 0x2A], at: base) {
                big = true
            } else if b.matches([0x49, 0x49, 0x2A, 0x00], at: base) {
                big = false
            } else {
                return nil
            }
            func u16(_ o: Int) -> UInt16? {
                guard o >= 0, o <= b.count - 2 else { return nil }
                return big ? UInt16(b[o]) << 8 | UInt16(b[o + 1]) : UInt16(b[o + 1]) << 8 | UInt16(b[o])
            }
            func u32(_ o: Int) -> UInt32? { big ? b.uint32BE(at: o) : b.uint32LE(at: o) }
            guard let ifdOffset = u32(base + 4), ifdOffset < UInt32(Int32.max) else { return nil }
            let ifd = base + Int(ifdOffset)
            guard let entries = u16(ifd) else { return nil }
            for i in 0..<Int(entries) {
                let e = ifd + 2 + i * 12
                guard let tag = u16(e) else { return nil }
                if tag == 0x0112 {
                    guard let type = u16(e + 2), type == 3, let value = u16(e + 8) else { return nil }
                    return (e + 8, value, big)
                }
            }
            return nil
        }.map { (offset: $0.0, value: $0.1, bigEndian: $0.2) }
    }
}
