// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension PixelBuffer {
    /// Returns the upright pixels for a buffer stored with EXIF `orientation`.
    ///
    /// Exact for all eight orientations: the mirrors and 90° turns move whole pixels and
    /// never resample. Orientations 5–8 swap width and height. ``ImageOrientation/up``
    /// returns `self`.
    public func applyingOrientation(_ orientation: ImageOrientation) -> PixelBuffer {
        if orientation == .up { return self }
        let w = width, h = height, bpp = format.bytesPerPixel, srcRow = bytesPerRow
        let swaps = orientation.swapsDimensions
        let dw = swaps ? h : w, dh = swaps ? w : h
        let dstRow = dw * bpp
        // Source coordinate for destination (dx, dy).
        let map: (Int, Int) -> (Int, Int)
        switch orientation {
        case .up: map = { ($0, $1) }
        case .upMirrored: map = { (w - 1 - $0, $1) }
        case .down: map = { (w - 1 - $0, h - 1 - $1) }
        case .downMirrored: map = { ($0, h - 1 - $1) }
        case .leftMirrored: map = { dx, dy in (dy, dx) }  // 5: transpose
        case .right: map = { dx, dy in (dy, h - 1 - dx) }  // 6: rotate 90° clockwise
        case .rightMirrored: map = { dx, dy in (w - 1 - dy, h - 1 - dx) }  // 7: transverse
        case .left: map = { dx, dy in (w - 1 - dy, dx) }  // 8: rotate 90° counter-clockwise
        }
        let out = [UInt8](unsafeUninitializedCapacity: dstRow * dh) { dst, count in
            bytes.withUnsafeBufferPointer { s in
                guard let sb = s.baseAddress, let db = dst.baseAddress else { return }
                for dy in 0..<dh {
                    var d = db + dy * dstRow
                    if bpp == 4 {
                        let d32 = UnsafeMutableRawPointer(d)
                        for dx in 0..<dw {
                            let (sx, sy) = map(dx, dy)
                            let v = UnsafeRawPointer(sb + sy * srcRow + sx * 4).loadUnaligned(as: UInt32.self)
                            d32.storeBytes(of: v, toByteOffset: dx * 4, as: UInt32.self)
                        }
                    } else {
                        for dx in 0..<dw {
                            let (sx, sy) = map(dx, dy)
                            (d).update(from: sb + sy * srcRow + sx * bpp, count: bpp)
                            d += bpp
                        }
                    }
                }
            }
            count = dstRow * dh
        }
        return PixelBuffer(unchecked: dw, dh, dstRow, format, out)
    }
}
