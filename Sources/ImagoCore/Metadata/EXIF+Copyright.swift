// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
package import struct FoundationEssentials.Data
#else
package import struct Foundation.Data
#endif

extension EXIF {
    /// IFD0's `Copyright` (0x8298) and `Artist` (0x013B) text tags.
    package static let copyrightTags: [UInt16] = [0x013B, 0x8298]

    /// A new EXIF block holding only the text (ASCII) tags `tags` of `exif`'s IFD0, or `nil`
    /// when none is present or the block is malformed: what "strip metadata but keep the
    /// copyright" writes. The result is a little-endian TIFF structure without the `Exif\0\0`
    /// prefix; every offset read from the input is bounds-checked.
    package static func keepingTextTags(_ tags: [UInt16] = copyrightTags, of exif: Data) -> Data? {
        let b = [UInt8](strippingPrefix(exif))
        guard b.count >= 8 else { return nil }
        let big: Bool
        if b[0] == 0x4D, b[1] == 0x4D { big = true } else if b[0] == 0x49, b[1] == 0x49 { big = false } else { return nil }
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= b.count else { return nil }
            return big ? Int(b[o]) << 8 | Int(b[o + 1]) : Int(b[o + 1]) << 8 | Int(b[o])
        }
        func u32(_ o: Int) -> Int? {
            guard o >= 0, o + 4 <= b.count else { return nil }
            let v =
                big
                ? (UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3]))
                : (UInt32(b[o + 3]) << 24 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 1]) << 8 | UInt32(b[o]))
            return Int(v)
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        var found: [(tag: UInt16, text: [UInt8])] = []
        for i in 0..<count {
            let e = ifd + 2 + i * 12
            guard let tag = u16(e), let type = u16(e + 2), let n = u32(e + 4) else { return nil }
            guard tags.contains(UInt16(tag)), type == 2, n > 0, n <= 65_535 else { continue }
            let start: Int
            if n <= 4 { start = e + 8 } else if let offset = u32(e + 8) { start = offset } else { continue }
            guard start >= 0, start + n <= b.count else { continue }
            var text = Array(b[start..<(start + n)])
            if text.last != 0 { text.append(0) }
            found.append((UInt16(tag), text))
        }
        guard !found.isEmpty else { return nil }
        found.sort { $0.tag < $1.tag }
        // Header, one IFD (count, entries, next-IFD offset), then the texts.
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func put16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func put32(_ v: Int) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        put16(found.count)
        var dataOffset = 8 + 2 + found.count * 12 + 4
        var blobs: [UInt8] = []
        for f in found {
            put16(Int(f.tag))
            put16(2)
            put32(f.text.count)
            if f.text.count <= 4 {
                out += f.text + [UInt8](repeating: 0, count: 4 - f.text.count)
            } else {
                put32(dataOffset)
                blobs += f.text
                dataOffset += f.text.count
                if f.text.count % 2 == 1 {
                    blobs.append(0)
                    dataOffset += 1
                }
            }
        }
        put32(0)
        return Data(out + blobs)
    }
}
