// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Exact 8-bit alpha arithmetic shared by every pixel conversion.
package enum PixelMath {
    /// `round(c × a / 255)`, exact for every input, without a division.
    @inlinable @inline(__always)
    package static func premultiply(_ c: UInt8, _ a: UInt8) -> UInt8 {
        let t = UInt32(c) &* UInt32(a) &+ 128
        return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
    }

    /// `round(c × 255 / a)` clamped to 255; 0 when `a` is 0.
    @inlinable @inline(__always)
    package static func unpremultiply(_ c: UInt8, _ a: UInt8) -> UInt8 {
        if a == 255 { return c }
        if a == 0 { return 0 }
        let v = (UInt32(c) &* 255 &+ UInt32(a) / 2) / UInt32(a)
        return UInt8(truncatingIfNeeded: min(v, 255))
    }
}
