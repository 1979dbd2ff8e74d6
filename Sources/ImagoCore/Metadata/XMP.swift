// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

/// Reads the orientation from an XMP packet (`tiff:Orientation`), for files that carry it only
/// there, as some editors write it. ImageIO and Pillow honour it; EXIF wins when both are present.
///
/// Both XMP spellings are read: the attribute (`tiff:Orientation="6"`) and the element
/// (`<tiff:Orientation>6</tiff:Orientation>`). Only the first 4 MiB of a packet are searched, and
/// nothing is allocated from its contents.
public enum XMP {
    /// The largest packet prefix searched, and kept by the coders that read one.
    package static let scanLimit = 4 << 20

    /// The `tiff:Orientation` value, or `nil` when absent or not 1–8.
    public static func orientation(in xmp: Data) -> ImageOrientation? {
        let name = Array("tiff:Orientation".utf8)
        return xmp.prefix(scanLimit).withUnsafeBytes { raw -> ImageOrientation? in
            let b = raw.bindMemory(to: UInt8.self)
            var i = 0
            while i + name.count < b.count {
                guard b[i] == name[0], b[i + 1] == name[1] else {
                    i += 1
                    continue
                }
                var matched = true
                for k in 2..<name.count where b[i + k] != name[k] {
                    matched = false
                    break
                }
                guard matched else {
                    i += 1
                    continue
                }
                var j = i + name.count
                func skipSpace() { while j < b.count, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D { j += 1 } }
                skipSpace()
                guard j < b.count else { return nil }
                if b[j] == UInt8(ascii: "=") {
                    j += 1
                    skipSpace()
                    guard j < b.count, b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") else {
                        i = j
                        continue
                    }
                    j += 1
                } else if b[j] == UInt8(ascii: ">") {
                    j += 1
                } else {
                    i = j
                    continue
                }
                skipSpace()
                // One digit, then the end of the value.
                guard j < b.count, (0x31...0x38).contains(b[j]) else { return nil }
                let value = Int(b[j] - 0x30)
                j += 1
                skipSpace()
                guard j < b.count, b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") || b[j] == UInt8(ascii: "<") else { return nil }
                return ImageOrientation(exifValue: value)
            }
            return nil
        }
    }
}

extension ImageOrientation {
    /// The orientation a viewer applies: EXIF's when it has one, else XMP's, else `.up`.
    public init(exif: Data?, xmp: Data?) {
        self = exif.flatMap(EXIF.orientation(in:)) ?? xmp.flatMap(XMP.orientation(in:)) ?? .up
    }
}
