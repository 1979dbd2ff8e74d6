// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

/// The metadata blocks of an encoded image, found by walking its container without decoding a
/// pixel: EXIF (a TIFF structure), XMP (an XML packet) and IPTC (IIM records, from Photoshop's
/// image resources), with Photoshop's resolution.
///
/// Read from JPEG (APP1 `Exif`, APP1 XMP, APP13 `Photoshop 3.0`, before the scan), PNG (`eXIf`,
/// an uncompressed iTXt `XML:com.adobe.xmp`) and WebP (`EXIF`, `XMP `); other formats have none
/// here. Every length is checked against the data; a block cut short is left out.
public struct MetadataBlocks: Sendable, Hashable {
    /// The EXIF block, TIFF-structured (no `Exif\0\0` prefix). The first one.
    public var exif: Data?
    /// The XMP packet. The first one, at most ``maxXMPBytes``.
    public var xmp: Data?
    /// The IPTC-IIM records (Photoshop resource 0x0404).
    public var iptc: Data?
    /// Photoshop's resolution (resource 0x03ED).
    public var resolution: PhotoshopResolution?

    /// The largest XMP packet read: 1 MiB.
    public static let maxXMPBytes = 1 << 20

    /// No blocks.
    public init() {}

    /// The blocks of `data`, an encoded image (its container told from its first bytes).
    public init(reading data: Data) {
        let bytes = [UInt8](data.prefix(16))
        let jpeg = bytes.starts(with: [0xFF, 0xD8])
        let png = bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let webp = bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8)
        data.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            if jpeg {
                readJPEG(b)
            } else if png {
                readPNG(b)
            } else if webp {
                readWebP(b)
            }
        }
    }

    private static let exifSignature = Array("Exif".utf8) + [0, 0]
    private static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    private static let photoshopSignature = Array("Photoshop 3.0".utf8) + [0]

    private mutating func readJPEG(_ b: UnsafeBufferPointer<UInt8>) {
        var i = 2
        var resources: [UInt8] = []
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { break }
            let marker = b[i + 1]
            if marker == 0xFF {
                i += 1
                continue
            }
            // Start of scan or end of image: the metadata segments come before.
            if marker == 0xDA || marker == 0xD9 { break }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                i += 2
                continue
            }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { break }
            let body = UnsafeBufferPointer(rebasing: b[(i + 4)..<(i + 2 + length)])
            if marker == 0xE1, exif == nil, body.starts(with: Self.exifSignature) {
                exif = Data(body.dropFirst(Self.exifSignature.count))
            } else if marker == 0xE1, xmp == nil, body.starts(with: Self.xmpSignature) {
                xmp = Data(body.dropFirst(Self.xmpSignature.count))
            } else if marker == 0xED, body.starts(with: Self.photoshopSignature) {
                // Resources may continue over several APP13 segments.
                resources += body.dropFirst(Self.photoshopSignature.count)
            }
            i += 2 + length
        }
        if !resources.isEmpty { readPhotoshopResources(resources) }
    }

    private mutating func readPNG(_ b: UnsafeBufferPointer<UInt8>) {
        var i = 8
        let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 0, length <= b.count - i - 12 else { break }
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            let body = UnsafeBufferPointer(rebasing: b[(i + 8)..<(i + 8 + length)])
            if type == "eXIf", exif == nil {
                exif = Data(EXIF.strippingPrefix(Data(body)))
            } else if type == "iTXt", xmp == nil, body.starts(with: keyword), length <= Self.maxXMPBytes {
                // keyword, compression flag and method, language\0, translated keyword\0, text.
                var j = keyword.count
                if j + 2 <= body.count, body[j] == 0 {
                    j += 2
                    for _ in 0..<2 {
                        while j < body.count, body[j] != 0 { j += 1 }
                        j += 1
                    }
                    if j <= body.count { xmp = Data(body[j...]) }
                }
            } else if type == "IEND" {
                break
            }
            i += 12 + length
        }
    }

    private mutating func readWebP(_ b: UnsafeBufferPointer<UInt8>) {
        var i = 12
        while i + 8 <= b.count {
            let type = String(decoding: b[i..<(i + 4)], as: UTF8.self)
            let length = Int(b[i + 4]) | Int(b[i + 5]) << 8 | Int(b[i + 6]) << 16 | Int(b[i + 7]) << 24
            guard length <= b.count - i - 8 else { break }
            let body = UnsafeBufferPointer(rebasing: b[(i + 8)..<(i + 8 + length)])
            if type == "EXIF", exif == nil {
                exif = Data(EXIF.strippingPrefix(Data(body)))
            } else if type == "XMP ", xmp == nil, length <= Self.maxXMPBytes {
                xmp = Data(body)
            }
            i += 8 + length + (length & 1)
        }
    }

    /// Photoshop's image resources: `8BIM`, an id, a padded Pascal name, a size, the data (padded).
    private mutating func readPhotoshopResources(_ r: [UInt8]) {
        var i = 0
        while i + 12 <= r.count, r[i..<(i + 4)].elementsEqual("8BIM".utf8) {
            let id = Int(r[i + 4]) << 8 | Int(r[i + 5])
            let nameLength = Int(r[i + 6])
            var j = i + 6 + 1 + nameLength
            if (1 + nameLength) % 2 == 1 { j += 1 }
            guard j + 4 <= r.count else { return }
            let size = Int(r[j]) << 24 | Int(r[j + 1]) << 16 | Int(r[j + 2]) << 8 | Int(r[j + 3])
            j += 4
            guard size <= r.count - j else { return }
            let body = Array(r[j..<(j + size)])
            if id == 0x0404, iptc == nil {
                iptc = Data(body)
            } else if id == 0x03ED, resolution == nil {
                resolution = PhotoshopResolution(body)
            }
            i = j + size + (size & 1)
        }
    }
}

/// Photoshop's resolution record (image resource 0x03ED): pixels per unit, and the units its
/// dialogs show width and height in.
public struct PhotoshopResolution: Sendable, Hashable {
    /// Horizontal pixels per ``xUnit``.
    public var x: Double
    /// `inches` or `cm`.
    public var xUnit: String
    /// The unit width is shown in: `inches`, `cm`, `points`, `picas` or `columns`.
    public var widthUnit: String
    /// Vertical pixels per ``yUnit``.
    public var y: Double
    /// `inches` or `cm`.
    public var yUnit: String
    /// The unit height is shown in.
    public var heightUnit: String

    /// The record in `body` (16 bytes), `nil` when shorter.
    init?(_ body: [UInt8]) {
        guard body.count >= 16 else { return nil }
        func fixed(_ o: Int) -> Double {
            Double(Int32(bitPattern: UInt32(body[o]) << 24 | UInt32(body[o + 1]) << 16 | UInt32(body[o + 2]) << 8 | UInt32(body[o + 3]))) / 65536
        }
        func short(_ o: Int) -> Int { Int(body[o]) << 8 | Int(body[o + 1]) }
        func resolutionUnit(_ v: Int) -> String { v == 2 ? "cm" : "inches" }
        func sizeUnit(_ v: Int) -> String {
            switch v {
            case 2: "cm"
            case 3: "points"
            case 4: "picas"
            case 5: "columns"
            default: "inches"
            }
        }
        x = fixed(0)
        xUnit = resolutionUnit(short(4))
        widthUnit = sizeUnit(short(6))
        y = fixed(8)
        yUnit = resolutionUnit(short(12))
        heightUnit = sizeUnit(short(14))
    }
}
