// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoProcessing
import Testing

/// ``ResamplingQuality/linearLight``: the resize in linear light, as libvips resizes in scRGB for
/// imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`.
@Suite("Resizing in linear light")
struct LinearLightTests {
    /// A `size`×`size` checkerboard of black and white pixels, `alpha` everywhere.
    static func checkerboard(_ size: Int, alpha: UInt8 = 255) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<size {
            for x in 0..<size {
                let v: UInt8 = (x + y) % 2 == 0 ? 255 : 0
                bytes += [v, v, v, alpha]
            }
        }
        return try PixelBuffer(width: size, height: size, format: .rgba8, bytes: bytes)
    }

    /// The unpremultiplied colour of the pixel at the centre of `buffer`.
    static func centre(_ buffer: PixelBuffer) -> RGBA8 {
        buffer.converted(to: .rgba8).withUnsafeBytes { p in
            let i = (buffer.height / 2) * buffer.width * 4 + (buffer.width / 2) * 4
            return RGBA8(r: p[i], g: p[i + 1], b: p[i + 2], a: p[i + 3])
        }
    }

    @Test("a black-and-white checkerboard halves to the grey it shows (sRGB 188), not the encoded mean (128)")
    func checkerboardGrey() throws {
        let board = try Self.checkerboard(64)
        let linear = Self.centre(try Resampler.resize(board, to: PixelSize(width: 32, height: 32), quality: .linearLight))
        let encoded = Self.centre(try Resampler.resize(board, to: PixelSize(width: 32, height: 32)))
        #expect((186...190).contains(Int(linear.r)) && linear.r == linear.g && linear.g == linear.b, "\(linear)")
        #expect((126...130).contains(Int(encoded.r)), "\(encoded)")
        // Smaller still, and not by a whole factor: the same grey.
        let odd = Self.centre(try Resampler.resize(board, to: PixelSize(width: 9, height: 13), quality: .linearLight))
        #expect((184...192).contains(Int(odd.r)), "\(odd)")
    }

    @Test("flat colours, transparency and enlargements come through unchanged in kind")
    func flatAndTransparent() throws {
        let flat = try PixelBuffer(width: 20, height: 10, format: .rgba8, bytes: [UInt8]((0..<200).flatMap { _ in [200, 100, 50, 255] }))
        for size in [PixelSize(width: 7, height: 3), PixelSize(width: 41, height: 23)] {
            let c = Self.centre(try Resampler.resize(flat, to: size, quality: .linearLight))
            #expect(abs(Int(c.r) - 200) <= 1 && abs(Int(c.g) - 100) <= 1 && abs(Int(c.b) - 50) <= 1 && c.a == 255, "\(size): \(c)")
        }
        let clear = try PixelBuffer(width: 8, height: 8, format: .rgba8, bytes: [UInt8](repeating: 0, count: 256))
        let none = try Resampler.resize(clear, to: PixelSize(width: 3, height: 3), quality: .linearLight)
        #expect(none.format == .argb32Premultiplied && none.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        // Half-transparent: the colour stays within its alpha, the grey is linear light's.
        let half = Self.centre(try Resampler.resize(try Self.checkerboard(32, alpha: 128), to: PixelSize(width: 16, height: 16), quality: .linearLight))
        #expect(abs(Int(half.a) - 128) <= 1 && (183...193).contains(Int(half.r)), "\(half)")
    }
}
