// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// ICO and CUR: the icon directory, PNG entries (through ``PNGCoder``) and BMP entries (DIBs with
/// their AND masks; 32-bit entries use their own alpha).
///
/// A cursor (directory type 2) is reported as `ImageFormat.cur`; its entries carry
/// their hotspots instead of a bit depth.
///
/// Decoding picks the largest entry (most pixels, then most bits), or with
/// ``DecodeOptions/thumbnailPixelSize`` the smallest entry that covers that size.
/// `entries(of:)` lists every entry, as `imago info` shows them.
///
/// Encoding writes an icon of one PNG entry (as imgproxy and browsers' favicons do), for images
/// of at most 256 pixels a side: scale larger ones down first.
public struct ICOCoder: ImageDecoding, ImageEncoding {
    /// Creates the coder.
    public init() {}

    /// `true` for `ImageFormat.ico` and `ImageFormat.cur`.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .ico || format == .cur }

    /// `true` for `ImageFormat.ico` when PNG can be written.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .ico && PNGCoder().canEncode(.png) }

    /// The largest side an icon entry has (`ImageFormat.maxEncodedSide` of ICO).
    public static let maxSide = ImageFormat.ico.maxEncodedSide ?? 256

    /// An icon holding the first frame as one PNG entry.
    ///
    /// - Throws: `ImageCodingError.encoderUnavailable(_:)` for another format,
    ///   `ImageCodingError.exceedsLimit(_:found:limit:)` for a side over 256 pixels, and
    ///   ``PNGCoder``'s errors.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .ico else { throw ImageCodingError.encoderUnavailable(format) }
        let size = image.orientedSize
        guard size.width <= Self.maxSide, size.height <= Self.maxSide else {
            throw ImageCodingError.exceedsLimit(.maxPixels, found: max(size.width, size.height), limit: Self.maxSide)
        }
        // The first frame, turned upright as every encoder bakes the orientation.
        var still = Image(buffer: try image.frame(at: 0).buffer)
        still.orientation = image.orientation
        still = still.applyingOrientation()
        let png = try PNGCoder().encode(still, as: .png, options: options)
        var out = Data(capacity: 22 + png.count)
        func u16(_ v: Int) {
            out.append(UInt8(v & 0xFF))
            out.append(UInt8(v >> 8 & 0xFF))
        }
        func u32(_ v: Int) {
            u16(v & 0xFFFF)
            u16(v >> 16 & 0xFFFF)
        }
        u16(0)  // reserved
        u16(1)  // an icon
        u16(1)  // one entry
        out.append(UInt8(size.width == 256 ? 0 : size.width))  // 0 means 256
        out.append(UInt8(size.height == 256 ? 0 : size.height))
        out.append(0)  // no palette
        out.append(0)  // reserved
        u16(1)  // colour planes
        u16(32)  // bits per pixel
        u32(png.count)
        u32(22)  // the PNG follows the directory
        out.append(png)
        return out
    }

    /// A cursor's hotspot: the pixel that points, from the top-left corner.
    package struct Hotspot: Sendable, Equatable {
        /// Pixels from the left edge.
        package var x: Int
        /// Pixels from the top edge.
        package var y: Int

        /// Creates a hotspot `x` pixels from the left and `y` from the top.
        package init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }

    /// One image in the directory.
    package struct Entry: Sendable, Equatable {
        /// The width the directory gives (256 for a stored 0), which the image data may override.
        package var width: Int
        /// The height the directory gives (256 for a stored 0), which the image data may override.
        package var height: Int
        /// Bits per pixel the directory gives (0 when it does not say, and for cursors).
        package var bitCount: Int
        /// A cursor entry's hotspot; `nil` for icons.
        package var hotspot: Hotspot?
        /// Whether the data is PNG (otherwise a BMP DIB).
        package var isPNG: Bool
        /// Where the data starts in the file.
        package var offset: Int
        /// Bytes of data.
        package var length: Int
    }

    /// The directory's entries, in file order.
    ///
    /// - Throws: `.corrupt` for a bad directory, `.truncated` when entries are cut off.
    package static func entries(of data: Data) throws -> [Entry] {
        let r = DataReader(data)
        guard r.u16le(0) == 0, let type = r.u16le(2), type == 1 || type == 2, let count = r.u16le(4) else {
            throw ImageCodingError.corrupt(.ico, "the icon directory header is invalid")
        }
        let format: ImageFormat = type == 2 ? .cur : .ico
        guard count > 0 else { throw ImageCodingError.corrupt(format, type == 2 ? "the cursor has no images" : "the icon directory is empty") }
        var entries: [Entry] = []
        for i in 0..<count {
            let e = 6 + i * 16
            guard let w = r.u8(e), let h = r.u8(e + 1), let planes = r.u16le(e + 4), let bits = r.u16le(e + 6),
                let length = r.u32le(e + 8), let offset = r.u32le(e + 12)
            else {
                throw ImageCodingError.truncated(format, "directory entry \(i) is incomplete")
            }
            guard offset >= 6 + count * 16, length > 0, offset <= data.count, length <= data.count - offset else { continue }
            entries.append(
                Entry(
                    width: w == 0 ? 256 : Int(w), height: h == 0 ? 256 : Int(h), bitCount: type == 1 ? bits : 0,
                    hotspot: type == 2 ? Hotspot(x: planes, y: bits) : nil,
                    isPNG: r.u8(offset) == 0x89 && r.matches("PNG", at: offset + 1), offset: offset, length: length))
        }
        guard !entries.isEmpty else { throw ImageCodingError.corrupt(format, "no directory entry points inside the file") }
        return entries
    }

    static func choose(_ entries: [Entry], for target: PixelSize?) -> Entry? {
        let ordered = entries.sorted { ($0.width * $0.height, $0.bitCount) < ($1.width * $1.height, $1.bitCount) }
        if let target, let covering = ordered.first(where: { $0.width >= target.width && $0.height >= target.height }) {
            return ordered.last { $0.width == covering.width && $0.height == covering.height }
        }
        return ordered.last
    }

    /// The chosen (largest) entry's size and depth; the entry count as frames is not reported
    /// (entries are alternatives, not frames).
    ///
    /// - Throws: as `entries(of:)`.
    public func info(of data: Data) throws -> ImageInfo {
        let format = ImageFormat(sniffing: data) ?? .ico
        guard let entry = Self.choose(try Self.entries(of: data), for: nil) else { throw ImageCodingError.corrupt(format, "no entry") }
        return ImageInfo(
            format: format, width: entry.width, height: entry.height, hasAlpha: true,
            bitDepth: entry.bitCount >= 24 || entry.bitCount == 0 ? 8 : entry.bitCount)
    }

    /// Decodes the chosen entry.
    ///
    /// - Throws: as `entries(of:)`; the PNG decoder's errors; `.corrupt` or `.truncated` for a
    ///   damaged DIB; `.exceedsLimit` before allocating.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let format = ImageFormat(sniffing: data) ?? .ico
        guard let entry = Self.choose(try Self.entries(of: data), for: options.thumbnailPixelSize) else {
            throw ImageCodingError.corrupt(format, "no entry")
        }
        let bytes = data.subdata(in: (data.startIndex + entry.offset)..<(data.startIndex + entry.offset + entry.length))
        var image: Image
        if entry.isPNG {
            var o = options
            o.thumbnailPixelSize = nil
            image = try PNGCoder().decode(bytes, options: o)
        } else {
            let straight = !options.pixelFormat.isPremultiplied
            image = Image(
                buffer: try Self.dib(bytes, format: format, straight: straight, limits: options.limits)
                    .converted(to: options.pixelFormat),
                hasAlpha: true)
        }
        image.format = format
        image.scale = options.scale
        return image
    }

    /// A DIB entry: the header's height covers the colour bitmap and the AND mask below it.
    static func dib(_ data: Data, format: ImageFormat, straight: Bool, limits: DecodingLimits) throws -> PixelBuffer {
        let r = DataReader(data)
        guard let size = r.u32le(0) else { throw ImageCodingError.truncated(format, "the entry's header is incomplete") }
        var header = try BMPCoder.dibHeader(r, at: 0, dibSize: size, pixelOffset: nil, fileHeader: false)
        guard header.height % 2 == 0, header.height >= 2 else { throw ImageCodingError.corrupt(format, "the entry's height is not doubled") }
        header.height /= 2
        header.topDown = false
        try limits.check(width: header.width, height: header.height, format: format)
        // 32-bit icons carry real alpha in the fourth byte.
        let withAlpha = header.bitCount == 32 && header.compression == 0
        if withAlpha { header.masks = (0xFF_0000, 0xFF00, 0xFF, 0xFF00_0000) }
        var pixels = try BMPCoder.pixels(r, header: header, straight: straight)
        let stride = ((header.width * header.bitCount + 31) / 32) * 4
        let maskStart = header.pixelOffset + stride * header.height
        let maskStride = ((header.width + 31) / 32) * 4
        let alphaByte = pixels.format == .rgba8 ? 3 : PixelFormat.argbOffsets.a
        let alphaUsed = withAlpha && pixels.bytes.enumerated().contains { $0.offset % 4 == alphaByte && $0.element != 0 }
        if alphaUsed { return pixels }
        if withAlpha {
            // All alpha bytes zero: an old-style icon whose transparency is in the AND mask.
            header.masks.a = 0
            pixels = try BMPCoder.pixels(r, header: header, straight: straight)
        }
        guard maskStart + maskStride * header.height <= r.count else { return pixels }
        // Transparency from the AND mask (1 = transparent), rows bottom-up.
        let w = header.width, h = header.height
        pixels.withUnsafeMutableBytes { p in
            guard let dst = p.baseAddress?.assumingMemoryBound(to: UInt32.self) else { return }
            for y in 0..<h {
                let row = maskStart + (h - 1 - y) * maskStride
                for x in 0..<w {
                    let bit = (Int(r.u8(row + x / 8) ?? 0) >> (7 - x % 8)) & 1
                    if bit == 1 { dst[y * w + x] = 0 }
                }
            }
        }
        return pixels
    }
}
