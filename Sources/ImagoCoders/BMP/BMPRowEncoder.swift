// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A BMP encoder fed one row at a time by a row-streaming decoder: a JPEG (or an opaque PNG)
/// converted to BMP goes from the decoder's rows straight into the file's bottom-up rows, with
/// no bitmap between them, as `djpeg -bmp` writes.
///
/// It writes what ``BMPCoder/encode(_:as:options:)`` writes for an opaque image: 24-bit BGR rows
/// under a BITMAPV4HEADER marked sRGB. Rows arrive as ARGB32 words (``DecodedRowConsuming``);
/// only opaque sources stream (an image with transparency is written whole, as 32-bit BGRA),
/// and orientation cannot be baked into rows, so the caller streams only upright sources.
public final class BMPRowEncoder: DecodedRowConsuming {
    private var storage: UnsafeMutableRawPointer?
    private var width = 0
    private var height = 0
    private var stride = 0
    private var total = 0
    private var rows = 0
    private var offset = 0

    /// Creates an encoder.
    public init() {}

    deinit { storage?.deallocate() }

    /// Allocates the file for a `size` image and writes its headers.
    ///
    /// - Throws: `.invalidArgument` when the image is too large for BMP or the encoder was
    ///   started twice.
    public func begin(size: PixelSize) throws {
        guard storage == nil else { throw ImageCodingError.invalidArgument("the BMP row encoder was started twice") }
        let (header, stride, pixelBytes) = try BMPCoder.header(width: size.width, height: size.height, opaque: true)
        width = size.width
        height = size.height
        self.stride = stride
        total = header.count + pixelBytes
        let storage = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
        // A 12-megapixel BMP is 36 MB of fresh memory: huge pages take it in 18 faults, not 9 000.
        LargeBuffers.preferHugePages(UnsafeMutableRawBufferPointer(start: storage, count: total))
        for (i, byte) in header.enumerated() { storage.storeBytes(of: byte, toByteOffset: i, as: UInt8.self) }
        offset = header.count
        self.storage = storage
    }

    /// Writes row `y` (ARGB32 words, opaque) as the file's row `height - 1 - y`, in B, G, R.
    ///
    /// - Throws: `.invalidArgument` for a row before ``begin(size:)``, short, or out of range.
    public func consume(row: UnsafeRawBufferPointer, y: Int) throws {
        guard let storage, let src = row.baseAddress?.assumingMemoryBound(to: UInt8.self), row.count >= width * 4,
            (0..<height).contains(y)
        else {
            throw ImageCodingError.invalidArgument("row \(y) arrived before the BMP began, short, or out of range")
        }
        let o = PixelFormat.argbOffsets
        let dst = (storage + offset + (height - 1 - y) * stride).assumingMemoryBound(to: UInt8.self)
        for x in 0..<width {
            let p = src + x * 4, q = dst + x * 3
            q[0] = p[o.b]
            q[1] = p[o.g]
            q[2] = p[o.r]
        }
        for pad in (width * 3)..<stride { dst[pad] = 0 }
        rows += 1
    }

    /// The finished file, handed over without a copy.
    ///
    /// - Throws: `.encodingFailed` when rows are missing.
    public func finish() throws -> Data {
        guard let storage, rows == height else {
            throw ImageCodingError.encodingFailed(.bmp, "\(rows) of \(height) rows were written")
        }
        self.storage = nil
        return Data(bytesNoCopy: storage, count: total, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }
}
