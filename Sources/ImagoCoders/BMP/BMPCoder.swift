// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// BMP decoding and encoding, written here: no well-kept C library decodes BMP on its own.
///
/// Reads the BMP Suite's good set: OS/2 1.x (core) and 2.x headers, BITMAPINFOHEADER, V2–V5;
/// 1, 2, 4 and 8-bit palettes; 16, 24 and 32-bit, with bit-field masks (including alpha masks)
/// and the 5-5-5 default; RLE8 and RLE4 (pixels a run skips stay transparent, as the suite
/// recommends); bottom-up and top-down rows. 32-bit BI_RGB files ignore their fourth byte unless
/// a V3+ header states an alpha mask. Embedded JPEG and PNG (compression 4 and 5) and OS/2's
/// Huffman and RLE24 are `.unsupportedFeature`. Every size and offset is checked before use; the
/// bad set (palette indices out of range, RLE past the image, impossible densities, files shorter
/// than stated) is rejected with typed errors.
///
/// Encoding writes 32-bit BGRA with a BITMAPV4HEADER and alpha bit fields, bottom-up.
public struct BMPCoder: ImageDecoding, ImageEncoding {
    /// Creates the coder.
    public init() {}

    /// `true` for `ImageFormat.bmp`.
    public func canDecode(_ format: ImageFormat) -> Bool { format == .bmp }
    /// `true` for `ImageFormat.bmp`.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .bmp }

    /// The parsed headers.
    struct Header {
        var width: Int
        var height: Int
        var topDown: Bool
        var bitCount: Int
        var compression: Int
        var masks: (r: UInt32, g: UInt32, b: UInt32, a: UInt32)
        var palette: [UInt32]  // opaque ARGB words
        var pixelOffset: Int
        var hasAlpha: Bool
    }

    /// Reads the file header and the DIB header at 14.
    static func header(_ data: Data) throws -> Header {
        let r = DataReader(data)
        guard r.matches("BM", at: 0) else { throw ImageCodingError.corrupt(.bmp, "the BM signature is missing") }
        guard let fileSize = r.u32le(2), let offset = r.u32le(10), let dib = r.u32le(14) else {
            throw ImageCodingError.truncated(.bmp, "the file header is incomplete")
        }
        // A file shorter than its stated size was cut off (some writers state 0: no claim).
        if fileSize > r.count { throw ImageCodingError.truncated(.bmp, "the file is \(r.count) bytes of the \(fileSize) its header states") }
        return try dibHeader(r, at: 14, dibSize: dib, pixelOffset: offset, fileHeader: true)
    }

    /// Reads a DIB header (BITMAPCOREHEADER … BITMAPV5HEADER) at `start`.
    static func dibHeader(_ r: DataReader, at start: Int, dibSize dib: Int, pixelOffset: Int?, fileHeader: Bool) throws -> Header {
        guard [12, 16, 40, 52, 56, 64, 108, 124].contains(dib) else {
            throw ImageCodingError.corrupt(.bmp, "unknown header size \(dib)")
        }
        guard r.count >= start + dib else { throw ImageCodingError.truncated(.bmp, "the \(dib)-byte header is incomplete") }
        let fields = try dibFields(r, at: start, dibSize: dib, pixelOffset: pixelOffset, fileHeader: fileHeader)
        try checkDIBFields(fields, dibSize: dib)
        let (width, height, bits, compression) = (fields.width, fields.height, fields.bits, fields.compression)
        let topDown = height < 0
        if topDown, compression == 1 || compression == 2 { throw ImageCodingError.corrupt(.bmp, "an RLE image cannot be top-down") }
        let (masks, masksEnd) = try bitFieldMasks(r, at: start, dibSize: dib, bits: bits, compression: compression)
        var paletteStart = masksEnd
        let palette = try readPalette(
            r, at: &paletteStart, dibSize: dib, bits: bits, colorsUsed: fields.colorsUsed, pixelOffset: pixelOffset)
        let offset = pixelOffset ?? paletteStart
        guard offset >= 0, offset <= r.count else { throw ImageCodingError.corrupt(.bmp, "the pixel offset \(offset) is outside the file") }
        return Header(
            width: width, height: abs(height), topDown: topDown, bitCount: bits, compression: compression,
            masks: masks, palette: palette, pixelOffset: offset,
            hasAlpha: masks.3 != 0 || compression == 1 || compression == 2)
    }

    /// The raw fields of a DIB header, as stored (height signed).
    private struct DIBFields {
        var width = 0, height = 0, planes = 0, bits = 0, compression = 0, colorsUsed = 0
    }

    /// Reads the size, planes, depth, compression and colour count of the DIB header at `start`,
    /// rejecting impossible densities and a stated pixel size larger than the file.
    private static func dibFields(_ r: DataReader, at start: Int, dibSize dib: Int, pixelOffset: Int?, fileHeader: Bool) throws -> DIBFields {
        var f = DIBFields()
        if dib == 12 {
            f.width = r.u16le(start + 4) ?? 0
            f.height = Int(Int16(truncatingIfNeeded: r.u16le(start + 6) ?? 0))
            f.planes = r.u16le(start + 8) ?? 0
            f.bits = r.u16le(start + 10) ?? 0
        } else {
            f.width = Int(Int32(truncatingIfNeeded: r.u32le(start + 4) ?? 0))
            f.height = Int(Int32(truncatingIfNeeded: r.u32le(start + 8) ?? 0))
            f.planes = r.u16le(start + 12) ?? 0
            f.bits = r.u16le(start + 14) ?? 0
            if dib >= 20 { f.compression = r.u32le(start + 16) ?? 0 }
            if dib >= 36 { f.colorsUsed = r.u32le(start + 32) ?? 0 }
            if dib >= 32, let xd = r.u32le(start + 24), let yd = r.u32le(start + 28) {
                // Densities are signed pixels per metre: negative or beyond 1 000 000 (25 400 dpi) is damage.
                let x = Int(Int32(truncatingIfNeeded: xd)), y = Int(Int32(truncatingIfNeeded: yd))
                guard (0...1_000_000).contains(x), (0...1_000_000).contains(y) else {
                    throw ImageCodingError.corrupt(.bmp, "the pixel density \(x)x\(y) per metre is impossible")
                }
            }
            if dib >= 24, fileHeader, f.compression == 0, let sizeImage = r.u32le(start + 20), sizeImage > 0,
                let offset = pixelOffset, offset + sizeImage > r.count
            {
                throw ImageCodingError.truncated(.bmp, "the header gives \(sizeImage) bytes of pixels, more than the file holds")
            }
        }
        return f
    }

    /// Checks the compression, planes, size and bit count of a DIB header against each other.
    private static func checkDIBFields(_ f: DIBFields, dibSize dib: Int) throws {
        let (width, height, planes, bits, compression) = (f.width, f.height, f.planes, f.bits, f.compression)
        // OS/2 2.x: compression 3 is Huffman (1-bit) and 4 is RLE24, not bit fields and JPEG.
        if dib == 64 || dib == 16, compression == 3 || compression == 4 {
            throw ImageCodingError.unsupportedFeature(.bmp, "OS/2 Huffman and RLE24 compression")
        }
        guard planes == 1 else { throw ImageCodingError.corrupt(.bmp, "planes is \(planes), not 1") }
        guard width > 0, height != 0, height != Int(Int32.min) else { throw ImageCodingError.corrupt(.bmp, "size \(width)x\(height) is invalid") }
        guard [1, 2, 4, 8, 16, 24, 32].contains(bits) else { throw ImageCodingError.corrupt(.bmp, "bit count \(bits) is invalid") }
        switch compression {
        case 0: break
        case 1 where bits == 8, 2 where bits == 4: break
        case 3 where bits == 16 || bits == 32, 6 where bits == 16 || bits == 32: break
        case 4, 5: throw ImageCodingError.unsupportedFeature(.bmp, "embedded JPEG or PNG data")
        default: throw ImageCodingError.corrupt(.bmp, "compression \(compression) does not fit \(bits)-bit pixels")
        }
    }

    /// The channel masks (stated bit fields, a V3+ header's alpha, or the depth's defaults) and
    /// where the palette starts (after any masks that follow a 40-byte header).
    private static func bitFieldMasks(
        _ r: DataReader, at start: Int, dibSize dib: Int, bits: Int, compression: Int
    ) throws -> (masks: (UInt32, UInt32, UInt32, UInt32), paletteStart: Int) {
        // Masks: in V2+ headers, or in the 12 (16) bytes after a 40-byte header.
        var masks: (UInt32, UInt32, UInt32, UInt32) = bits == 16 ? (0x7C00, 0x03E0, 0x001F, 0) : (0xFF_0000, 0xFF00, 0xFF, 0)
        var paletteStart = start + dib
        if compression == 3 || compression == 6 {
            let maskAt = dib >= 52 ? start + 40 : start + dib
            guard let mr = r.u32le(maskAt), let mg = r.u32le(maskAt + 4), let mb = r.u32le(maskAt + 8) else {
                throw ImageCodingError.truncated(.bmp, "the bit-field masks are incomplete")
            }
            let hasAlphaMask = dib >= 56 || compression == 6
            let ma = hasAlphaMask ? UInt32(r.u32le(maskAt + 12) ?? 0) : 0
            masks = (UInt32(mr), UInt32(mg), UInt32(mb), ma)
            if dib == 40 { paletteStart += compression == 6 ? 16 : 12 }
            for m in [masks.0, masks.1, masks.2, masks.3] where m != 0 {
                // Contiguous and inside the pixel: anything else is a corrupt header.
                let shifted = m >> UInt32(m.trailingZeroBitCount)
                guard shifted & (shifted &+ 1) == 0, bits == 32 || m < 1 << 16 else {
                    throw ImageCodingError.corrupt(.bmp, "a bit-field mask is not contiguous")
                }
            }
        } else if dib >= 56, bits == 32, compression == 0, let ma = r.u32le(start + 52), ma == 0xFF00_0000,
            r.u32le(start + 40) == 0xFF_0000, r.u32le(start + 44) == 0xFF00, r.u32le(start + 48) == 0xFF
        {
            // A V3+ header that states the standard masks with alpha: the fourth byte is alpha.
            masks.3 = 0xFF00_0000
        }
        return (masks, paletteStart)
    }

    /// The palette of a 1–8-bit image as opaque ARGB words (empty for deeper ones), moving
    /// `paletteStart` past it.
    private static func readPalette(
        _ r: DataReader, at paletteStart: inout Int, dibSize dib: Int, bits: Int, colorsUsed: Int, pixelOffset: Int?
    ) throws -> [UInt32] {
        // Palette: 3-byte entries after a core header, 4-byte otherwise.
        var palette: [UInt32] = []
        if bits <= 8 {
            let entry = dib == 12 ? 3 : 4
            let maxEntries = 1 << bits
            var count = colorsUsed == 0 ? maxEntries : colorsUsed
            guard count <= 1 << 16 else { throw ImageCodingError.corrupt(.bmp, "the palette claims \(count) colours") }
            count = min(count, maxEntries)
            // A palette that runs into the pixels is cut where they start.
            if let pixelOffset, pixelOffset > paletteStart { count = min(count, (pixelOffset - paletteStart) / entry) }
            guard count > 0 else { throw ImageCodingError.corrupt(.bmp, "the image has no palette") }
            palette.reserveCapacity(count)
            for i in 0..<count {
                guard let b = r.u8(paletteStart + i * entry), let g = r.u8(paletteStart + i * entry + 1),
                    let rr = r.u8(paletteStart + i * entry + 2)
                else {
                    throw ImageCodingError.truncated(.bmp, "the palette is incomplete")
                }
                palette.append(0xFF00_0000 | UInt32(rr) << 16 | UInt32(g) << 8 | UInt32(b))
            }
            paletteStart += count * entry
        }
        return palette
    }

    /// Size, depth and alpha from the headers.
    ///
    /// - Throws: `.corrupt`, `.truncated` or `.unsupportedFeature`.
    public func info(of data: Data) throws -> ImageInfo {
        let h = try Self.header(data)
        return ImageInfo(
            format: .bmp, width: h.width, height: h.height, hasAlpha: h.hasAlpha,
            bitDepth: h.bitCount <= 8 ? h.bitCount : 8)
    }

    /// Decodes to ``DecodeOptions/pixelFormat``.
    ///
    /// - Throws: `.exceedsLimit` before allocating; `.truncated` when the pixel data is short;
    ///   `.corrupt` for damaged headers or RLE streams; `.unsupportedFeature` for embedded JPEG/PNG.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try options.limits.check(inputBytes: data.count)
        let h = try Self.header(data)
        try options.limits.check(width: h.width, height: h.height, format: .bmp)
        let buffer = try Self.pixels(DataReader(data), header: h, straight: !options.pixelFormat.isPremultiplied)
        return Image(buffer: buffer.converted(to: options.pixelFormat), scale: options.scale, format: .bmp, hasAlpha: h.hasAlpha)
    }

    /// The pixels of `h`, top row first: premultiplied ARGB32, or with `straight` RGBA8 with the
    /// file's own alpha (so a caller asking for straight alpha gets the stored colours, not ones
    /// rounded through premultiplication).
    static func pixels(_ r: DataReader, header h: Header, straight: Bool = false) throws -> PixelBuffer {
        let w = h.width, height = h.height
        let (rowBits, o1) = w.multipliedReportingOverflow(by: h.bitCount)
        guard !o1 else { throw ImageCodingError.corrupt(.bmp, "the row size overflows") }
        let stride = ((rowBits + 31) / 32) * 4
        if h.compression == 1 || h.compression == 2 {
            return try rle(r, header: h)
        }
        let (needed, o2) = stride.multipliedReportingOverflow(by: height)
        guard !o2, h.pixelOffset + needed <= r.count else {
            throw ImageCodingError.truncated(.bmp, "the pixel data is shorter than \(height) rows of \(stride) bytes")
        }
        let palette = h.palette
        return try PixelBuffer(uninitializedWidth: w, height: height, format: straight ? .rgba8 : .argb32Premultiplied) { out in
            guard let dst = out.baseAddress?.assumingMemoryBound(to: UInt32.self) else { return }
            try r.data.withUnsafeBytes { raw in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                let fields = Fields(h.masks)
                for y in 0..<height {
                    let src = base + h.pixelOffset + (h.topDown ? y : height - 1 - y) * stride
                    let row = dst + y * w
                    switch h.bitCount {
                    case 1, 2, 4, 8:
                        let bits = h.bitCount, perByte = 8 / bits, mask = (1 << bits) - 1
                        for x in 0..<w {
                            let byte = Int(src[x / perByte])
                            let index = (byte >> ((perByte - 1 - x % perByte) * bits)) & mask
                            guard index < palette.count else {
                                throw ImageCodingError.corrupt(.bmp, "pixel (\(x), \(y)) uses colour \(index) of a \(palette.count)-colour palette")
                            }
                            row[x] = palette[index]
                        }
                    case 24:
                        for x in 0..<w {
                            row[x] = 0xFF00_0000 | UInt32(src[x * 3 + 2]) << 16 | UInt32(src[x * 3 + 1]) << 8 | UInt32(src[x * 3])
                        }
                    case 16:
                        for x in 0..<w { row[x] = fields.argb(UInt32(src[x * 2]) | UInt32(src[x * 2 + 1]) << 8) }
                    case 32:
                        for x in 0..<w {
                            let p = src + x * 4
                            row[x] = fields.argb(UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24)
                        }
                    default:
                        throw ImageCodingError.corrupt(.bmp, "bit count \(h.bitCount)")
                    }
                }
            }
            if straight {
                // ARGB words to R, G, B, A bytes.
                for i in 0..<w * height {
                    let v = dst[i]
                    dst[i] = ((v & 0xFF00_FF00) | (v >> 16 & 0xFF) | (v & 0xFF) << 16).littleEndian
                }
                return
            }
            guard h.masks.3 != 0 else { return }
            PixelBuffer.premultiplyARGB32InPlace(out, width: w, height: height, bytesPerRow: w * 4)
        }
    }

    /// Bit-field extraction scaled to 8 bits.
    struct Fields {
        let masks: [UInt32]
        let shifts: [UInt32]
        let maxima: [UInt32]
        let hasAlpha: Bool

        init(_ m: (r: UInt32, g: UInt32, b: UInt32, a: UInt32)) {
            masks = [m.r, m.g, m.b, m.a]
            shifts = masks.map { $0 == 0 ? 0 : UInt32($0.trailingZeroBitCount) }
            maxima = zip(masks, shifts).map { $0 == 0 ? 0 : $0 >> $1 }
            hasAlpha = m.a != 0
        }

        @inline(__always)
        func channel(_ v: UInt32, _ i: Int) -> UInt32 {
            let max = maxima[i]
            guard max > 0 else { return 0 }
            // In 64 bits: a mask may be 32 bits wide, and c × 255 would overflow 32.
            let c = UInt64((v & masks[i]) >> shifts[i])
            return UInt32((c * 255 + UInt64(max / 2)) / UInt64(max))
        }

        /// Straight ARGB (alpha 255 without an alpha mask).
        @inline(__always)
        func argb(_ v: UInt32) -> UInt32 {
            let a = hasAlpha ? channel(v, 3) : 255
            return a << 24 | channel(v, 0) << 16 | channel(v, 1) << 8 | channel(v, 2)
        }
    }

    /// RLE8 and RLE4: runs, absolute runs padded to 16 bits, end of line, end of bitmap, delta.
    /// Pixels never written stay transparent.
    static func rle(_ r: DataReader, header h: Header) throws -> PixelBuffer {
        let w = h.width, height = h.height
        var pixels = [UInt32](repeating: 0, count: w * height)
        let four = h.compression == 2
        var x = 0, y = 0, p = h.pixelOffset
        var failure: ImageCodingError?
        func put(_ index: Int) {
            guard x < w, y < height, index < h.palette.count else {
                if failure == nil {
                    failure = .corrupt(
                        .bmp,
                        index < h.palette.count
                            ? "the RLE data writes past row \(y)'s end"
                            : "the RLE data uses colour \(index) of a \(h.palette.count)-colour palette")
                }
                x += 1
                return
            }
            pixels[(height - 1 - y) * w + x] = h.palette[index]
            x += 1
        }
        decoding: while y < height {
            guard let count = r.u8(p), let value = r.u8(p + 1) else { break }  // truncated: what was drawn stays
            p += 2
            if count > 0 {
                for i in 0..<Int(count) { put(four ? Int(i % 2 == 0 ? value >> 4 : value & 0x0F) : Int(value)) }
                continue
            }
            switch value {
            case 0:
                x = 0
                y += 1
            case 1: break decoding
            case 2:
                guard let dx = r.u8(p), let dy = r.u8(p + 1) else { break decoding }
                p += 2
                x += Int(dx)
                y += Int(dy)
            default:
                let n = Int(value)
                let bytes = four ? (n + 1) / 2 : n
                for i in 0..<n {
                    guard let b = r.u8(p + (four ? i / 2 : i)) else { break decoding }
                    put(four ? Int(i % 2 == 0 ? b >> 4 : b & 0x0F) : Int(b))
                }
                p += bytes + (bytes % 2)
            }
        }
        if let failure { throw failure }
        return try PixelBuffer(
            width: w, height: height, format: .argb32Premultiplied,
            bytes: pixels.withUnsafeBytes { Array($0) })
    }

    /// Writes bottom-up rows with a BITMAPV4HEADER tagged sRGB: 24-bit BGR for an opaque image,
    /// 32-bit BGRA with bit fields that include alpha otherwise.
    ///
    /// - Throws: `.encoderUnavailable` for another format; `.invalidArgument` for images too large
    ///   for BMP's 32-bit sizes.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data {
        guard format == .bmp else { throw ImageCodingError.encoderUnavailable(format) }
        try options.validate()
        let (img, _, _) = options.prepareBakingOrientation(image)
        let opaque = !img.hasAlpha || img.buffer.isOpaque
        // Opaque images are written as 24-bit BGR, as libjpeg's djpeg and Pillow write them;
        // with transparency, 32-bit BGRA with BI_BITFIELDS masks.
        let pixels = img.buffer.format == (opaque ? .rgb8 : .rgba8) ? img.buffer : img.buffer.converted(to: opaque ? .rgb8 : .rgba8)
        let w = pixels.width, h = pixels.height, bpp = opaque ? 3 : 4
        let (header, stride, size) = try Self.header(width: w, height: h, opaque: opaque)
        // Written in place and handed over without a copy.
        let total = 122 + size
        let storage = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
        let d = storage.assumingMemoryBound(to: UInt8.self)
        for (i, byte) in header.enumerated() { d[i] = byte }
        pixels.withUnsafeBytes { raw in
            guard let src = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<h {
                // Bottom-up rows, channels swapped to B, G, R(, A), rows padded to 4 bytes.
                let s = src + (h - 1 - y) * pixels.bytesPerRow
                let o = d + 122 + y * stride
                for x in 0..<w {
                    let i = x * bpp
                    o[i] = s[i + 2]
                    o[i + 1] = s[i + 1]
                    o[i + 2] = s[i]
                    if bpp == 4 { o[i + 3] = s[i + 3] }
                }
                for pad in (w * bpp)..<stride { o[pad] = 0 }
            }
        }
        return Data(bytesNoCopy: storage, count: total, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// The file and info headers (BITMAPV4HEADER, sRGB) of a `width` × `height` BMP: 24-bit BGR
    /// when `opaque`, else 32-bit BGRA with BI_BITFIELDS masks; with the padded row length and
    /// the size of the pixel data.
    ///
    /// - Throws: `.invalidArgument` when the image is too large for BMP.
    static func header(width w: Int, height h: Int, opaque: Bool) throws -> (header: [UInt8], stride: Int, size: Int) {
        let bpp = opaque ? 3 : 4
        let (rowBytes, o1) = (w * bpp).addingReportingOverflow(3)
        let stride = rowBytes & ~3
        let (size, o2) = stride.multipliedReportingOverflow(by: h)
        guard !o1, !o2, size <= Int(Int32.max) - 122 else { throw ImageCodingError.invalidArgument("\(w)x\(h) is too large for BMP") }
        var header: [UInt8] = []
        header.reserveCapacity(122)
        func u16(_ v: Int) { header += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: UInt32) { header += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        header += Array("BM".utf8)
        u32(UInt32(122 + size))
        u32(0)
        u32(122)
        u32(108)
        u32(UInt32(w))
        u32(UInt32(h))
        u16(1)
        u16(bpp * 8)
        u32(opaque ? 0 : 3)
        u32(UInt32(size))
        u32(2835)
        u32(2835)
        u32(0)
        u32(0)  // 72 dpi, no palette
        if opaque {
            for _ in 0..<4 { u32(0) }  // no masks with BI_RGB
        } else {
            u32(0x00FF_0000)
            u32(0x0000_FF00)
            u32(0x0000_00FF)
            u32(0xFF00_0000)
        }
        u32(0x7352_4742)  // 'sRGB'
        for _ in 0..<12 { u32(0) }  // endpoints and gamma (unused with sRGB)
        return (header, stride, size)
    }
}
