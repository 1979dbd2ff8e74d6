// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(Glibc)
import Glibc
#endif

extension PixelBuffer {
    /// The smallest rectangle (`x0..<x1` by `y0..<y1`) outside which this buffer's pixels equal
    /// `other`'s, or `nil` when they are equal everywhere; the whole buffer when the two differ
    /// in size or format. Rows are compared whole first, so equal rows cost a `memcmp`.
    ///
    /// The frames of an animation usually change in a small part: a resize can then compute only
    /// that part (`Resampler.resize(_:to:quality:limits:reusing:changed:)`).
    public func changedRect(from other: PixelBuffer) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        let whole = (x0: 0, y0: 0, x1: width, y1: height)
        guard size == other.size, format == other.format else { return whole }
        let rowBytes = width * format.bytesPerPixel, bpp = format.bytesPerPixel
        var x0 = width, y0 = height, x1 = 0, y1 = 0
        withUnsafeBytes { a in
            other.withUnsafeBytes { b in
                guard let pa = a.baseAddress, let pb = b.baseAddress else { return }
                for y in 0..<height {
                    let ra = pa + y * bytesPerRow, rb = pb + y * other.bytesPerRow
                    guard memcmp(ra, rb, rowBytes) != 0 else { continue }
                    y0 = min(y0, y)
                    y1 = y + 1
                    // The first and last differing pixels of the row.
                    let ca = ra.assumingMemoryBound(to: UInt8.self), cb = rb.assumingMemoryBound(to: UInt8.self)
                    var first = 0
                    while first < x0, memcmp(ca + first * bpp, cb + first * bpp, bpp) == 0 { first += 1 }
                    x0 = min(x0, first)
                    var last = width - 1
                    while last >= x1, memcmp(ca + last * bpp, cb + last * bpp, bpp) == 0 { last -= 1 }
                    x1 = max(x1, last + 1)
                }
            }
        }
        return y1 > y0 ? (x0, y0, x1, y1) : nil
    }
}
