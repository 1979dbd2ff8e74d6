// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension PixelBuffer {
    /// Returns the buffer in `target` format with tight rows.
    ///
    /// Colour to gray uses Rec. 601 luma weights; premultiplication is exact (see `PixelMath`);
    /// dropping alpha keeps the straight colour (composite first to flatten against a colour:
    /// ``flattened(over:)``). Converting to the same format returns `self` unchanged.
    public func converted(to target: PixelFormat) -> PixelBuffer {
        if target == format { return self }
        let w = width, h = height, srcRow = bytesPerRow, src = format
        let total = w * target.bytesPerPixel * h  // cannot overflow: a 4-byte layout of this size already exists
        let out = [UInt8](unsafeUninitializedCapacity: total) { dst, count in
            bytes.withUnsafeBufferPointer { s in
                guard let sp = s.baseAddress, let dp = dst.baseAddress else { return }
                Self.convert(UnsafeRawPointer(sp), src, srcRow, to: UnsafeMutableRawPointer(dp), target, width: w, height: h)
            }
            count = total
        }
        return PixelBuffer(unchecked: w, h, w * target.bytesPerPixel, target, out)
    }

    /// Converts the buffer to `target` format with tight rows, in its own storage when the target
    /// has no more bytes per pixel, so a freshly decoded image needs no second full-size buffer;
    /// otherwise as ``converted(to:)``.
    public mutating func convert(to target: PixelFormat) {
        if target == format { return }
        // Shared storage is copied once by the mutable access, which costs what converting does.
        guard target.bytesPerPixel <= format.bytesPerPixel else {
            self = converted(to: target)
            return
        }
        let w = width, h = height, srcRow = bytesPerRow, src = format
        let total = w * target.bytesPerPixel * h
        // Take the storage out of `self`, so that it is referenced once and mutated without a copy.
        var storage = bytes
        self = PixelBuffer(unchecked: 0, 0, 0, src, [])
        storage.withUnsafeMutableBufferPointer { p in
            guard let base = p.baseAddress else { return }
            // Each pixel is read whole before it is written, at an offset never past the one read.
            Self.convert(UnsafeRawPointer(base), src, srcRow, to: UnsafeMutableRawPointer(base), target, width: w, height: h)
        }
        storage.removeLast(storage.count - total)
        self = PixelBuffer(unchecked: w, h, w * target.bytesPerPixel, target, storage)
    }

    /// Writes row `y` in `target` format (`width × target.bytesPerPixel` bytes) into `row`, as
    /// ``converted(to:)`` would have it: for consumers that take a buffer row by row and need
    /// no converted copy of the whole. Writes nothing when `row` is too short or `y` is outside.
    package func convertRow(_ y: Int, to target: PixelFormat, into row: UnsafeMutableRawBufferPointer) {
        guard y >= 0, y < height, row.count >= width * target.bytesPerPixel, let dst = row.baseAddress else { return }
        bytes.withUnsafeBytes { raw in
            guard let s = raw.baseAddress else { return }
            Self.convert(s + y * bytesPerRow, format, bytesPerRow, to: dst, target, width: width, height: 1)
        }
    }

    /// The conversion loop; `dst` may be `src` when the target has no more bytes per pixel.
    private static func convert(
        _ s: UnsafeRawPointer, _ src: PixelFormat, _ srcRow: Int, to dst: UnsafeMutableRawPointer,
        _ target: PixelFormat, width w: Int, height h: Int
    ) {
        #if _endian(little)
        // The resampler's round trip, word by word: straight RGBA to premultiplied BGRA and back.
        if src == .rgba8, target == .argb32Premultiplied {
            for y in 0..<h { premultiplyRGBARow(s + y * srcRow, into: dst + y * w * 4, width: w) }
            return
        }
        if src == .argb32Premultiplied, target == .rgba8 {
            for y in 0..<h { unpremultiplyARGBRow(s + y * srcRow, into: dst + y * w * 4, width: w) }
            return
        }
        #endif
        let dstBpp = target.bytesPerPixel, srcBpp = src.bytesPerPixel
        let off = PixelFormat.argbOffsets
        let s = s.assumingMemoryBound(to: UInt8.self), dst = dst.assumingMemoryBound(to: UInt8.self)
        for y in 0..<h {
            var si = y * srcRow
            var di = y * w * dstBpp
            for _ in 0..<w {
                // Read straight RGBA.
                let (r, g, b, a) = readStraightRGBA(s, si, src, off)
                writeStraightRGBA(r, g, b, a, to: dst, di, target, off)
                si += srcBpp
                di += dstBpp
            }
        }
    }

    /// The straight RGBA of the `src`-format pixel at byte `si` of `s` (the conversion loop's read).
    @inline(__always)
    private static func readStraightRGBA(
        _ s: UnsafePointer<UInt8>, _ si: Int, _ src: PixelFormat, _ off: (r: Int, g: Int, b: Int, a: Int)
    ) -> (UInt8, UInt8, UInt8, UInt8) {
        var r: UInt8, g: UInt8, b: UInt8, a: UInt8
        switch src {
        case .argb32Premultiplied:
            a = s[si + off.a]
            r = PixelMath.unpremultiply(s[si + off.r], a)
            g = PixelMath.unpremultiply(s[si + off.g], a)
            b = PixelMath.unpremultiply(s[si + off.b], a)
        case .rgba8:
            r = s[si]
            g = s[si + 1]
            b = s[si + 2]
            a = s[si + 3]
        case .rgb8:
            r = s[si]
            g = s[si + 1]
            b = s[si + 2]
            a = 255
        case .gray8:
            r = s[si]
            g = r
            b = r
            a = 255
        case .grayAlpha8:
            r = s[si]
            g = r
            b = r
            a = s[si + 1]
        }
        return (r, g, b, a)
    }

    /// Writes straight RGBA as a `target`-format pixel at byte `di` of `dst` (the conversion loop's write).
    @inline(__always)
    private static func writeStraightRGBA(
        _ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8, to dst: UnsafeMutablePointer<UInt8>, _ di: Int,
        _ target: PixelFormat, _ off: (r: Int, g: Int, b: Int, a: Int)
    ) {
        switch target {
        case .argb32Premultiplied:
            dst[di + off.r] = PixelMath.premultiply(r, a)
            dst[di + off.g] = PixelMath.premultiply(g, a)
            dst[di + off.b] = PixelMath.premultiply(b, a)
            dst[di + off.a] = a
        case .rgba8:
            dst[di] = r
            dst[di + 1] = g
            dst[di + 2] = b
            dst[di + 3] = a
        case .rgb8:
            dst[di] = r
            dst[di + 1] = g
            dst[di + 2] = b
        case .gray8: dst[di] = Self.luma(r, g, b)
        case .grayAlpha8:
            dst[di] = Self.luma(r, g, b)
            dst[di + 1] = a
        }
    }

    /// Composites the buffer over an opaque `background` and returns an opaque ``PixelFormat/rgb8`` buffer.
    ///
    /// Used when encoding an image with alpha into a format without it (JPEG).
    public func flattened(over background: RGBA8) -> PixelBuffer {
        let rgba = converted(to: .rgba8)
        let w = width, h = height
        let out = [UInt8](unsafeUninitializedCapacity: w * h * 3) { dst, count in
            rgba.bytes.withUnsafeBufferPointer { s in
                var si = 0, di = 0
                @inline(__always) func blend(_ c: UInt8, _ bg: UInt8, _ a: UInt32) -> UInt8 {
                    let v: UInt32 = UInt32(c) * a + UInt32(bg) * (255 - a) + 127
                    return UInt8(v / 255)
                }
                for _ in 0..<(w * h) {
                    let a = UInt32(s[si + 3])
                    dst[di] = blend(s[si], background.r, a)
                    dst[di + 1] = blend(s[si + 1], background.g, a)
                    dst[di + 2] = blend(s[si + 2], background.b, a)
                    si += 4
                    di += 3
                }
            }
            count = w * h * 3
        }
        return PixelBuffer(unchecked: w, h, w * 3, .rgb8, out)
    }

    /// Premultiplies a buffer of native-endian ARGB32 words with straight alpha in place,
    /// turning it into ``PixelFormat/argb32Premultiplied``.
    ///
    /// Works on whole 32-bit words: red and blue share one multiply, green takes another,
    /// and the rounding is exact (`round(c × a / 255)`), as `PixelMath.premultiply(_:_:)`.
    /// Decoders call this after the codec wrote straight alpha.
    package static func premultiplyARGB32InPlace(_ p: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int) {
        guard let base = p.baseAddress else { return }
        for y in 0..<height {
            let row = base + y * bytesPerRow
            for x in 0..<width {
                let px = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                let a = px >> 24  // branch-free so the loop vectorizes; a = 255 leaves colour unchanged
                var rb = (px & 0x00FF_00FF) &* a &+ 0x0080_0080
                rb = ((rb &+ ((rb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
                var g = ((px >> 8) & 0xFF) &* a &+ 0x80
                g = ((g &+ (g >> 8)) >> 8) & 0xFF
                row.storeBytes(of: rb | g << 8 | a << 24, toByteOffset: x * 4, as: UInt32.self)
            }
        }
    }

    /// One row of straight RGBA to premultiplied ARGB32 (bytes B, G, R, A), branch-free on whole
    /// words so that it vectorizes; the rounding is ``PixelMath/premultiply(_:_:)``'s. `dst` may be `src`.
    @inline(__always)
    private static func premultiplyRGBARow(_ s: UnsafeRawPointer, into d: UnsafeMutableRawPointer, width: Int) {
        for x in 0..<width {
            let px = s.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)  // R, G, B, A from the low byte
            let a = px >> 24
            let swapped = (px & 0xFF00_FF00) | (px & 0xFF) << 16 | (px >> 16) & 0xFF
            var rb = (swapped & 0x00FF_00FF) &* a &+ 0x0080_0080
            rb = ((rb &+ ((rb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
            var g = ((swapped >> 8) & 0xFF) &* a &+ 0x80
            g = ((g &+ (g >> 8)) >> 8) & 0xFF
            d.storeBytes(of: rb | g << 8 | a << 24, toByteOffset: x * 4, as: UInt32.self)
        }
    }

    /// One row of premultiplied ARGB32 to straight RGBA: opaque and clear pixels by swapping
    /// bytes, the rest through ``PixelMath/unpremultiply(_:_:)``. `dst` may be `src`.
    @inline(__always)
    private static func unpremultiplyARGBRow(_ s: UnsafeRawPointer, into d: UnsafeMutableRawPointer, width: Int) {
        for x in 0..<width {
            let px = s.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)  // B, G, R, A from the low byte
            let a = px >> 24
            let out: UInt32
            if a == 255 {
                out = (px & 0xFF00_FF00) | (px & 0xFF) << 16 | (px >> 16) & 0xFF
            } else if a == 0 {
                out = 0
            } else {
                let a8 = UInt8(truncatingIfNeeded: a)
                let r = UInt32(PixelMath.unpremultiply(UInt8(truncatingIfNeeded: px >> 16), a8))
                let g = UInt32(PixelMath.unpremultiply(UInt8(truncatingIfNeeded: px >> 8), a8))
                let b = UInt32(PixelMath.unpremultiply(UInt8(truncatingIfNeeded: px), a8))
                out = r | g << 8 | b << 16 | a << 24
            }
            d.storeBytes(of: out, toByteOffset: x * 4, as: UInt32.self)
        }
    }

    @inline(__always)
    static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let sum: UInt32 = UInt32(r) &* 299 &+ UInt32(g) &* 587 &+ UInt32(b) &* 114 &+ 500
        return UInt8(sum / 1000)
    }
}
