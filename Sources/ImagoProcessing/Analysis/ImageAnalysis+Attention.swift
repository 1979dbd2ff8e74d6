// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
#else
import Foundation
#endif

extension ImageAnalysis {
    /// The origin of the `width`×`height` window centred on the image's point of attention, as
    /// libvips's `attention` smart crop finds it (smartcrop.js's scoring), which imgproxy's smart
    /// gravity asks for: the image shrunk to 32×32; edges (a Laplacian of luminance), skin tones
    /// and saturation (CIELAB a*) scored, dark parts left out; the sum blurred in proportion to
    /// the window; the window centred on the highest point, kept inside the image.
    public static func attentionCropOrigin(_ buffer: PixelBuffer, width: Int, height: Int) -> (x: Int, y: Int) {
        let w = buffer.width, h = buffer.height
        guard width < w || height < h, w > 0, h > 0 else { return (0, 0) }
        let hscale = 32 / Double(w), vscale = 32 / Double(h)
        let sigma = max(((Double(width) * hscale) * (Double(width) * hscale) + (Double(height) * vscale) * (Double(height) * vscale)).squareRoot() / 10, 1)
        let small = ((try? Resampler.resize(buffer, to: PixelSize(width: 32, height: 32))) ?? buffer).converted(to: .rgba8)
        let score = blurred(attentionScores(small), width: small.width, height: small.height, sigma: sigma)
        var best = -Double.infinity, at = (x: 0, y: 0)
        for y in 0..<small.height {
            for x in 0..<small.width where score[y * small.width + x] > best {
                best = score[y * small.width + x]
                at = (x, y)
            }
        }
        // Back into the image's pixels (truncated, as libvips's C does), the window centred there.
        let ax = Int(Double(at.x) / hscale), ay = Int(Double(at.y) / vscale)
        return (max(0, min(ax - width / 2, w - width)), max(0, min(ay - height / 2, h - height)))
    }

    /// Each pixel's score: |5 × the Laplacian of Y|, plus the skin score and a* where Y > 5.
    static func attentionScores(_ px: PixelBuffer) -> [Double] {
        let w = px.width, h = px.height
        var xyz = [(x: Double, y: Double, z: Double)](repeating: (0, 0, 0), count: w * h)
        px.withUnsafeBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            for i in 0..<(w * h) {
                func linear(_ v: UInt8) -> Double {
                    let c = Double(v) / 255
                    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
                }
                let r = linear(p[i * 4]), g = linear(p[i * 4 + 1]), b = linear(p[i * 4 + 2])
                xyz[i] = (
                    100 * (0.4124 * r + 0.3576 * g + 0.1805 * b), 100 * (0.2126 * r + 0.7152 * g + 0.0722 * b),
                    100 * (0.0193 * r + 0.1192 * g + 0.9505 * b)
                )
            }
        }
        var out = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                func lum(_ xx: Int, _ yy: Int) -> Double { xyz[min(h - 1, max(0, yy)) * w + min(w - 1, max(0, xx))].y }
                let edge = abs(5 * (4 * lum(x, y) - lum(x - 1, y) - lum(x + 1, y) - lum(x, y - 1) - lum(x, y + 1)))
                var total = edge
                let c = xyz[i]
                if c.y > 5 {
                    let magnitude = (c.x * c.x + c.y * c.y + c.z * c.z).squareRoot()
                    let (dx, dy, dz) = (c.x / magnitude - 0.78, c.y / magnitude - 0.57, c.z / magnitude - 0.44)
                    total += 100 - 100 * (dx * dx + dy * dy + dz * dz).squareRoot()
                    func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
                    total += 500 * (f(c.x / 95.047) - f(c.y / 100))
                }
                out[i] = total
            }
        }
        return out
    }

    /// `values` blurred by a Gaussian of `sigma`, the mask cut where it falls under a fifth of
    /// its peak (libvips's `gaussblur`), edges repeated.
    static func blurred(_ values: [Double], width w: Int, height h: Int, sigma: Double) -> [Double] {
        let radius = max(0, Int((sigma * (2 * log(5.0)).squareRoot()).rounded(.down)))
        var mask = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = mask.reduce(0, +)
        mask = mask.map { $0 / total }
        var across = [Double](repeating: 0, count: w * h), out = across
        for y in 0..<h {
            for x in 0..<w {
                var s = 0.0
                for k in -radius...radius { s += mask[k + radius] * values[y * w + min(w - 1, max(0, x + k))] }
                across[y * w + x] = s
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var s = 0.0
                for k in -radius...radius { s += mask[k + radius] * across[min(h - 1, max(0, y + k)) * w + x] }
                out[y * w + x] = s
            }
        }
        return out
    }
}
