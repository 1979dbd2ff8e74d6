// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Apple icon files (ICNS): the container parsed here, the largest PNG or JPEG 2000 entry decoded
/// by ``PNGCoder`` or ``JPEG2000Coder``. Legacy entries (RLE `it32`, raw ARGB, masks) are not
/// decoded; a file with only those is `.unsupportedFeature`.
public struct ICNSCoder: ImageDecoding {
    /// Creates the coder.
    public init() {}

    /// `true` for `ImageFormat.icns`.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .icns }

    /// One element: its type and where its data is.
    package struct Entry: Sendable, Equatable {
        /// The four-character type, e.g. `ic10`.
        package var type: String
        /// Where the element's data starts in the file, after its 8-byte header.
        package var offset: Int
        /// Bytes of data, the 8-byte header not counted.
        package var length: Int
        /// Its format when it holds a PNG or a JPEG 2000 image, else `nil`.
        package var format: ImageFormat?
    }

    /// Every element of the container, in file order.
    ///
    /// - Throws: `.corrupt` for a bad header or an element running past the file.
    package static func entries(of data: Data) throws -> [Entry] {
        let r = DataReader(data)
        guard r.matches("icns", at: 0), let total = r.u32be(4), total >= 8 else {
            throw ImageCodingError.corrupt(.icns, "the icns header is missing")
        }
        let end = min(total, data.count)
        var entries: [Entry] = []
        var offset = 8
        while offset + 8 <= end, let typeBytes = r.bytes(offset, 4), let length = r.u32be(offset + 4) {
            guard length >= 8, length <= end - offset else {
                throw ImageCodingError.corrupt(.icns, "element at \(offset) runs past the end of the file")
            }
            let body = data.subdata(in: (data.startIndex + offset + 8)..<(data.startIndex + offset + length))
            let sniffed = ImageFormat(sniffing: body)
            entries.append(
                Entry(
                    type: String(decoding: typeBytes, as: UTF8.self), offset: offset + 8, length: length - 8,
                    format: sniffed == .png || sniffed == .jp2 ? sniffed : nil))
            offset += length
        }
        return entries
    }

    /// The largest decodable entry, its data and its size.
    private func largest(_ data: Data) throws -> (Data, ImageInfo) {
        var best: (Data, ImageInfo)?
        for entry in try Self.entries(of: data) where entry.format != nil {
            let body = data.subdata(in: (data.startIndex + entry.offset)..<(data.startIndex + entry.offset + entry.length))
            guard let format = entry.format, let info = try? ImageCoderRegistry.embeddedInfo(of: body, format: format, fallback: Self.coder(for: format))
            else { continue }
            if info.width * info.height > (best.map { $0.1.width * $0.1.height } ?? -1) { best = (body, info) }
        }
        guard let best else {
            throw ImageCodingError.unsupportedFeature(.icns, "no PNG or JPEG 2000 entry (legacy icon formats are not decoded)")
        }
        return best
    }

    /// The coder of an entry's format when the registry has none: PNG or JPEG 2000.
    private static func coder(for format: ImageFormat) -> any ImageDecoding {
        format == .png ? PNGCoder() : JPEG2000Coder()
    }

    /// The largest PNG or JPEG 2000 entry's facts.
    ///
    /// - Throws: as `entries(of:)`; `.unsupportedFeature` without such an entry.
    public func info(of data: Data) throws -> ImageInfo {
        var info = try largest(data).1
        info.format = .icns
        return info
    }

    /// Decodes the largest PNG or JPEG 2000 entry.
    ///
    /// - Throws: as ``info(of:)`` and the entry's decoder.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let (body, info) = try largest(data)
        // Through the registry decoding the icon: a JPEG 2000 entry goes where that registry
        // sends JPEG 2000 (a sandboxed worker, when it isolates the format).
        var image = try ImageCoderRegistry.decodeEmbedded(body, format: info.format, options: options, fallback: Self.coder(for: info.format))
        image.format = .icns
        return image
    }
}
