// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// A rectangle of pixels in memory: width, height, bytes per row, a ``PixelFormat`` and the bytes.
///
/// `PixelBuffer` has value semantics with copy-on-write (its storage is a `[UInt8]`),
/// so it is `Sendable` and cheap to pass around. All size arithmetic is checked:
/// a size whose byte count would overflow is rejected with
/// ``ImageCodingError/exceedsLimit(_:found:limit:)`` instead of trapping.
public struct PixelBuffer: Sendable, Equatable {
    /// Width in pixels, at least 1.
    public let width: Int
    /// Height in pixels, at least 1.
    public let height: Int
    /// Bytes from the start of one row to the start of the next.
    public let bytesPerRow: Int
    /// The layout of each pixel.
    public let format: PixelFormat
    /// The pixel bytes, `bytesPerRow × height` of them.
    public private(set) var bytes: [UInt8]

    /// The largest byte count a single buffer may have (128 GiB): far above any decoding
    /// limit, low enough that offsets computed from it never overflow.
    package static let maxByteCount = 1 << 37

    /// The buffer's size.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Computes the row stride and total byte count for a buffer, with overflow checks.
    ///
    /// - Parameters:
    ///   - width: Pixels per row, at least 1.
    ///   - height: Rows, at least 1.
    ///   - format: The layout of each pixel.
    ///   - bytesPerRow: The stride; `nil` means the tight `width × bytesPerPixel`.
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` for a dimension under 1 or a stride
    ///   shorter than a row; ``ImageCodingError/exceedsLimit(_:found:limit:)`` (kind `.bytes`)
    ///   when the byte count overflows or passes ``maxByteCount``.
    package static func layout(
        width: Int, height: Int, format: PixelFormat,
        bytesPerRow: Int? = nil
    ) throws -> (bytesPerRow: Int, byteCount: Int) {
        guard width > 0, height > 0 else {
            throw ImageCodingError.invalidArgument("pixel buffer size \(width)x\(height) must be at least 1x1")
        }
        let (minRow, o1) = width.multipliedReportingOverflow(by: format.bytesPerPixel)
        guard !o1 else { throw ImageCodingError.exceedsLimit(.bytes, found: Int.max, limit: maxByteCount) }
        let row = bytesPerRow ?? minRow
        guard row >= minRow else {
            throw ImageCodingError.invalidArgument("bytesPerRow \(row) is shorter than one row of \(minRow) bytes")
        }
        let (total, o2) = row.multipliedReportingOverflow(by: height)
        guard !o2, total <= maxByteCount else {
            throw ImageCodingError.exceedsLimit(.bytes, found: o2 ? Int.max : total, limit: maxByteCount)
        }
        return (row, total)
    }

    /// Creates a zero-filled buffer: transparent black for formats with alpha, black otherwise.
    ///
    /// - Parameters:
    ///   - width: Pixels per row, at least 1.
    ///   - height: Rows, at least 1.
    ///   - format: The layout of each pixel.
    ///   - bytesPerRow: The stride; `nil` means tight rows.
    /// - Throws: as `layout(width:height:format:bytesPerRow:)`.
    public init(width: Int, height: Int, format: PixelFormat, bytesPerRow: Int? = nil) throws {
        let (row, total) = try Self.layout(width: width, height: height, format: format, bytesPerRow: bytesPerRow)
        let zeros = [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            LargeBuffers.preferHugePages(raw)
            raw.initializeMemory(as: UInt8.self, repeating: 0)
            count = total
        }
        self.init(unchecked: width, height, row, format, zeros)
    }

    /// Wraps existing bytes.
    ///
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` when `bytes.count` is not
    ///   `bytesPerRow × height`, and as `layout(width:height:format:bytesPerRow:)`.
    public init(width: Int, height: Int, format: PixelFormat, bytesPerRow: Int? = nil, bytes: [UInt8]) throws {
        let (row, total) = try Self.layout(width: width, height: height, format: format, bytesPerRow: bytesPerRow)
        guard bytes.count == total else {
            throw ImageCodingError.invalidArgument(
                "\(bytes.count) bytes given for a \(width)x\(height) \(format) buffer of \(total) bytes")
        }
        self.init(unchecked: width, height, row, format, bytes)
    }

    /// Creates a buffer whose bytes `initializer` writes, skipping the zero fill.
    ///
    /// The initializer receives all `bytesPerRow × height` bytes and should write every one;
    /// bytes it leaves unwritten hold unspecified values. Decoders use this because they are
    /// about to overwrite every byte. An error thrown by `initializer` is rethrown.
    ///
    /// - Throws: as `layout(width:height:format:bytesPerRow:)`, or `initializer`'s error.
    public init(
        uninitializedWidth width: Int, height: Int, format: PixelFormat, bytesPerRow: Int? = nil,
        initializer: (UnsafeMutableRawBufferPointer) throws -> Void
    ) throws {
        let (row, total) = try Self.layout(width: width, height: height, format: format, bytesPerRow: bytesPerRow)
        var failure: (any Error)?
        let storage = [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            LargeBuffers.preferHugePages(raw)
            do { try initializer(raw) } catch { failure = error }
            count = total
        }
        if let failure { throw failure }
        self.init(unchecked: width, height, row, format, storage)
    }

    @usableFromInline
    init(unchecked width: Int, _ height: Int, _ bytesPerRow: Int, _ format: PixelFormat, _ bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.format = format
        self.bytes = bytes
    }

    /// Calls `body` with the pixel bytes.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    /// Calls `body` with the pixel bytes to modify them in place (copying first if shared).
    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeMutableBytes(body)
    }

    /// The colour at (`x`, `y`) as straight (unpremultiplied) RGBA, or `nil` outside the buffer.
    ///
    /// Gray formats report gray in all three colour channels; opaque formats report alpha 255.
    public func color(atX x: Int, y: Int) -> RGBA8? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let o = y * bytesPerRow + x * format.bytesPerPixel
        switch format {
        case .argb32Premultiplied:
            let off = PixelFormat.argbOffsets
            return RGBA8(premultipliedR: bytes[o + off.r], g: bytes[o + off.g], b: bytes[o + off.b], a: bytes[o + off.a])
        case .rgba8: return RGBA8(r: bytes[o], g: bytes[o + 1], b: bytes[o + 2], a: bytes[o + 3])
        case .rgb8: return RGBA8(r: bytes[o], g: bytes[o + 1], b: bytes[o + 2], a: 255)
        case .gray8: return RGBA8(r: bytes[o], g: bytes[o], b: bytes[o], a: 255)
        case .grayAlpha8: return RGBA8(r: bytes[o], g: bytes[o], b: bytes[o], a: bytes[o + 1])
        }
    }

    /// Whether every pixel is fully opaque. Formats without alpha answer `true` at once.
    public var isOpaque: Bool {
        guard format.hasAlphaChannel else { return true }
        let (step, offset) =
            format == .grayAlpha8
            ? (2, 1)
            : format == .rgba8 ? (4, 3) : (4, PixelFormat.argbOffsets.a)
        return bytes.withUnsafeBufferPointer { p in
            for y in 0..<height {
                var i = y * bytesPerRow + offset
                let end = y * bytesPerRow + width * step
                while i < end {
                    if p[i] != 255 { return false }
                    i += step
                }
            }
            return true
        }
    }
}

/// One colour with straight (unpremultiplied) 8-bit channels.
public struct RGBA8: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Red, green, blue and alpha, 0–255, straight (not premultiplied).
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    /// Creates a colour from straight channel values.
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// Creates a colour from premultiplied channel values, undoing the premultiplication.
    public init(premultipliedR r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        self.init(
            r: PixelMath.unpremultiply(r, a), g: PixelMath.unpremultiply(g, a),
            b: PixelMath.unpremultiply(b, a), a: a)
    }

    /// `rgba(r,g,b,a)`.
    public var description: String { "rgba(\(r),\(g),\(b),\(a))" }
}
