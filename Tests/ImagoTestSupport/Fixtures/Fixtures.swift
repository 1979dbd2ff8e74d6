// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

/// Synthetic images the tests make themselves.
public enum Fixtures {
    /// A smooth RGBA gradient with an alpha ramp (or opaque), straight alpha.
    public static func gradient(width: Int, height: Int, alpha: Bool = false) throws -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                bytes[o] = UInt8(x * 255 / max(1, width - 1))
                bytes[o + 1] = UInt8(y * 255 / max(1, height - 1))
                bytes[o + 2] = UInt8((x + y) * 255 / max(1, width + height - 2))
                bytes[o + 3] = alpha ? UInt8(255 - x * 255 / max(1, width - 1)) : 255
            }
        }
        return try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes)
    }

    /// ``gradient(width:height:alpha:)`` with pseudo-random noise of up to `amplitude` added to
    /// every colour channel (and to alpha too with `noisyAlpha`): it compresses like a photo, so
    /// its files span many pieces of input. The same `seed` gives the same pixels.
    public static func noisy(
        width: Int, height: Int, alpha: Bool = false, noisyAlpha: Bool = false, amplitude: UInt32 = 16,
        seed: UInt32 = 1
    ) throws -> PixelBuffer {
        var pixels = try gradient(width: width, height: height, alpha: alpha)
        var state = seed
        pixels.withUnsafeMutableBytes { p in
            for i in 0..<p.count where i % 4 != 3 || noisyAlpha {
                state = state &* 1_664_525 &+ 1_013_904_223
                p[i] = p[i] &+ UInt8(truncatingIfNeeded: (state >> 16) % max(1, amplitude))
            }
        }
        return pixels
    }

    /// An image whose every pixel differs: red = x, green = y (mod 256), blue = 7, opaque.
    public static func coordinates(width: Int, height: Int) throws -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let o = (y * width + x) * 4
                bytes[o] = UInt8(truncatingIfNeeded: x)
                bytes[o + 1] = UInt8(truncatingIfNeeded: y)
                bytes[o + 2] = 7
                bytes[o + 3] = 255
            }
        }
        return try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes)
    }

    /// Mean and maximum absolute channel difference between two same-size buffers, compared as straight RGBA.
    public static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> (mean: Double, max: Int) {
        let x = a.converted(to: .rgba8).bytes, y = b.converted(to: .rgba8).bytes
        guard x.count == y.count, !x.isEmpty else { return (.infinity, Int.max) }
        var sum = 0, maxDiff = 0
        for i in 0..<x.count {
            let d = abs(Int(x[i]) - Int(y[i]))
            sum += d
            maxDiff = max(maxDiff, d)
        }
        return (Double(sum) / Double(x.count), maxDiff)
    }
}
