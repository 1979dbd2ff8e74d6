// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
#else
import Foundation
#endif

/// Lanczos3 in linear light: the sRGB values made linear (premultiplied there, in 32-bit
/// floats), filtered with the same weights as ``LanczosResampler``, and encoded back. A fine
/// black-and-white pattern shrinks to the grey it looks like from afar (sRGB 188), not the
/// darker mean of its encoded values (128); libvips resizes so in scRGB for imgproxy's
/// `IMGPROXY_USE_LINEAR_COLORSPACE`. Slower than the 8-bit resampler (floats, no SIMD of its
/// own), for services that ask for it.
enum LinearLightResampler {
    /// sRGB byte → linear light, 0...1 (IEC 61966-2-1).
    static let toLinear: [Float] = (0..<256).map { c in
        let v = Double(c) / 255
        return Float(v <= 0.040_45 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4))
    }

    /// Steps of ``toEncoded``: fine enough that every sRGB byte has its own (the darkest step
    /// apart is about 1/3300 of linear light).
    static let encodeSteps = 16384

    /// Linear light in ``encodeSteps`` steps → the nearest sRGB byte.
    static let toEncoded: [UInt8] = (0...encodeSteps).map { i in
        let v = Double(i) / Double(encodeSteps)
        let s = v <= 0.003_130_8 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (s * 255).rounded())))
    }

    /// `src` resized to exactly `size` (at least 1×1), premultiplied ARGB32 out. The rows filtered
    /// across are kept only while the rows down need them: a ring of as many as the vertical
    /// filter reaches (14 rows of the output's width for a halving), not a copy of the image.
    ///
    /// - Throws: `ImageCodingError` when the output cannot be allocated.
    static func resize(_ src: PixelBuffer, to size: PixelSize) throws -> PixelBuffer {
        let source = src.converted(to: .argb32Premultiplied)
        let wx = LanczosResampler.Weights.shared(input: source.width, output: size.width)
        let wy = LanczosResampler.Weights.shared(input: source.height, output: size.height)
        let ringRows = max(1, wy.taps)
        var ring = [Float](repeating: 0, count: ringRows * size.width * 4)
        var scratch = [Float](repeating: 0, count: source.width * 4)
        var out = try PixelBuffer(width: size.width, height: size.height, format: .argb32Premultiplied)
        let bytesPerRow = out.bytesPerRow
        var filtered = 0
        ring.withUnsafeMutableBufferPointer { ring in
            scratch.withUnsafeMutableBufferPointer { scratch in
                out.withUnsafeMutableBytes { dst in
                    for oy in 0..<size.height {
                        while filtered < wy.starts[oy] + wy.counts[oy] {
                            let slot = UnsafeMutableBufferPointer(
                                rebasing: ring[(filtered % ringRows) * size.width * 4..<((filtered % ringRows) + 1) * size.width * 4])
                            across(row: filtered, of: source, wx, scratch: scratch, into: slot)
                            filtered += 1
                        }
                        down(to: oy, wy, ring: UnsafeBufferPointer(ring), ringRows: ringRows, width: size.width, into: dst, at: oy * bytesPerRow)
                    }
                }
            }
        }
        return out
    }

    /// Row `y` of `source` made linear and premultiplied there, then filtered across with `w`
    /// into `out` (four floats a pixel: r, g, b, a).
    private static func across(
        row y: Int, of source: PixelBuffer, _ w: LanczosResampler.Weights, scratch row: UnsafeMutableBufferPointer<Float>,
        into out: UnsafeMutableBufferPointer<Float>
    ) {
        let off = PixelFormat.argbOffsets
        let toLinear = Self.toLinear
        source.withUnsafeBytes { p in
            let base = y * source.bytesPerRow
            for x in 0..<source.width {
                let i = base + x * 4
                let a = Int(p[i + off.a])
                let alpha = Float(a) / 255
                // Unpremultiplied, made linear, premultiplied again there.
                func linear(_ o: Int) -> Float { a == 0 ? 0 : toLinear[min(255, (Int(p[i + o]) * 255 + a / 2) / a)] * alpha }
                row[x * 4] = linear(off.r)
                row[x * 4 + 1] = linear(off.g)
                row[x * 4 + 2] = linear(off.b)
                row[x * 4 + 3] = alpha
            }
        }
        for ox in 0..<(out.count / 4) {
            var acc: (Float, Float, Float, Float) = (0, 0, 0, 0)
            for t in 0..<w.counts[ox] {
                let x = (w.starts[ox] + t) * 4
                let weight = Float(w.values[ox * w.taps + t]) / 16384
                acc.0 += row[x] * weight
                acc.1 += row[x + 1] * weight
                acc.2 += row[x + 2] * weight
                acc.3 += row[x + 3] * weight
            }
            (out[ox * 4], out[ox * 4 + 1], out[ox * 4 + 2], out[ox * 4 + 3]) = acc
        }
    }

    /// Output row `oy`: the rows in the ring filtered down with `w`, unpremultiplied, encoded to
    /// sRGB and premultiplied again into `dst` from `start`; no colour exceeds its alpha.
    private static func down(
        to oy: Int, _ w: LanczosResampler.Weights, ring: UnsafeBufferPointer<Float>, ringRows: Int, width: Int,
        into dst: UnsafeMutableRawBufferPointer, at start: Int
    ) {
        let off = PixelFormat.argbOffsets
        let steps = Float(encodeSteps)
        let toEncoded = Self.toEncoded
        for ox in 0..<width {
            var acc: (Float, Float, Float, Float) = (0, 0, 0, 0)
            for t in 0..<w.counts[oy] {
                let m = (((w.starts[oy] + t) % ringRows) * width + ox) * 4
                let weight = Float(w.values[oy * w.taps + t]) / 16384
                acc.0 += ring[m] * weight
                acc.1 += ring[m + 1] * weight
                acc.2 += ring[m + 2] * weight
                acc.3 += ring[m + 3] * weight
            }
            let alpha = min(1, max(0, acc.3))
            let a = Int((alpha * 255).rounded())
            let o = start + ox * 4
            dst[o + off.a] = UInt8(a)
            // Unpremultiplied, encoded, premultiplied in 8 bits: never over the alpha.
            func encoded(_ value: Float) -> UInt8 {
                let linear = a == 0 ? 0 : min(1, max(0, value / alpha))
                return UInt8((Int(toEncoded[Int(linear * steps + 0.5)]) * a + 127) / 255)
            }
            dst[o + off.r] = encoded(acc.0)
            dst[o + off.g] = encoded(acc.1)
            dst[o + off.b] = encoded(acc.2)
        }
    }
}
