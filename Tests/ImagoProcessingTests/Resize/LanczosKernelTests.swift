// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import Testing

@testable import ImagoProcessing

/// The vector kernels of the Lanczos resampler against the plain integer arithmetic they
/// replace: the same bytes, for every tap count, tail and lobe.
@Suite("Lanczos kernels")
struct LanczosKernelTests {
    /// A reproducible byte stream (xorshift), premultiplied: no colour above its alpha.
    static func row(pixels: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var bytes = [UInt8](repeating: 0, count: pixels * 4)
        for p in 0..<pixels {
            var channel = [UInt8](repeating: 0, count: 4)
            for c in 0..<4 {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                channel[c] = UInt8(truncatingIfNeeded: state)
            }
            // Every fourth pixel opaque, every seventh clear: the edges where lobes overshoot.
            let a: UInt8 = p % 4 == 0 ? 255 : p % 7 == 0 ? 0 : channel[PixelFormat.argbOffsets.a]
            for c in 0..<4 {
                bytes[p * 4 + c] = c == PixelFormat.argbOffsets.a ? a : min(channel[c], a)
            }
        }
        return bytes
    }

    @Test(
        "the two-taps-a-multiply horizontal pass gives the 32-bit loop's bytes, down and up, odd and even tap counts",
        arguments: [(320, 200), (320, 199), (4032, 399), (101, 7), (7, 101), (3, 1), (1, 5), (200, 320), (1000, 999), (2, 3)])
    func horizontal(_ sizes: (Int, Int)) throws {
        let (input, output) = sizes
        let weights = LanczosResampler.Weights(input: input, output: output)
        #expect(!weights.pairs.isEmpty, "Lanczos3 weights fit 16 bits")
        var wide = weights
        wide.pairs = []
        let source = Self.row(pixels: input, seed: UInt64(input * 31 + output))
        var paired = [UInt8](repeating: 1, count: output * 4), plain = [UInt8](repeating: 2, count: output * 4)
        source.withUnsafeBufferPointer { src in
            weights.values.withUnsafeBufferPointer { w in
                paired.withUnsafeMutableBufferPointer { LanczosResampler.horizontal(src.baseAddress!, into: $0.baseAddress!, weights: weights, values: w) }
                plain.withUnsafeMutableBufferPointer { LanczosResampler.horizontal(src.baseAddress!, into: $0.baseAddress!, weights: wide, values: w) }
            }
        }
        #expect(paired == plain)
        // And the plain loop is the formula: sum, round, clamp.
        for x in [0, output / 2, output - 1] {
            for c in 0..<4 {
                var sum: Int32 = 0
                for k in 0..<weights.counts[x] { sum += Int32(source[(weights.starts[x] + k) * 4 + c]) * weights.values[x * weights.taps + k] }
                #expect(plain[x * 4 + c] == UInt8(min(255, max(0, (sum + 8192) >> 14))))
            }
        }
    }

    @Test(
        "the vertical pass's finish rounds, clamps and keeps every colour within its alpha, for any width",
        arguments: [1, 3, 4, 5, 17, 64])
    func finish(width: Int) {
        let n = width * 4
        // Sums around the edges: negative, zero, exactly 255 and past it, rounding ties.
        let samples: [Int32] = [
            -40_000, -1, 0, 8191, 8192, 16_384 * 255, 16_384 * 255 + 8191, 16_384 * 256, 16_384 * 100 + 8192, 16_384 * 3, 5_000_000, 1_234_567
        ]
        var sums = [Int32](repeating: 0, count: n)
        for i in 0..<n { sums[i] = samples[(i * 7 + i / 4) % samples.count] }
        let alpha = PixelFormat.argbOffsets.a
        var direct = [UInt8](repeating: 0, count: n)
        sums.withUnsafeBufferPointer { acc in
            direct.withUnsafeMutableBufferPointer { LanczosResampler.finish(acc.baseAddress!, into: $0.baseAddress!, width: width) }
        }
        for x in 0..<width {
            let level = { (v: Int32) in UInt8(min(255, max(0, (v + 8192) >> 14))) }
            let a = level(sums[x * 4 + alpha])
            for c in 0..<4 {
                #expect(direct[x * 4 + c] == (c == alpha ? a : min(level(sums[x * 4 + c]), a)), "pixel \(x) channel \(c)")
            }
        }
    }

    @Test(
        "the streamed in-memory resize gives the whole-buffer passes' bytes, in every input format, with and without the box",
        arguments: [
            (PixelSize(width: 1000, height: 700), PixelSize(width: 250, height: 175)),
            (PixelSize(width: 1000, height: 700), PixelSize(width: 333, height: 233)),
            (PixelSize(width: 640, height: 427), PixelSize(width: 97, height: 400)),
            (PixelSize(width: 300, height: 200), PixelSize(width: 640, height: 3)),
            (PixelSize(width: 120, height: 80), PixelSize(width: 1, height: 1)),
            (PixelSize(width: 64, height: 48), PixelSize(width: 160, height: 120))
        ])
    func streamedEqualsWholeBuffer(_ sizes: (PixelSize, PixelSize)) throws {
        let (from, to) = sizes
        let premultiplied = try PixelBuffer(
            width: from.width, height: from.height, format: .argb32Premultiplied,
            bytes: Self.row(pixels: from.width * from.height, seed: UInt64(from.width * 31 + to.width)))
        for format in [PixelFormat.argb32Premultiplied, .rgba8, .rgb8, .gray8, .grayAlpha8] {
            let input = premultiplied.converted(to: format)
            var whole = input.converted(to: .argb32Premultiplied)
            let (kx, ky) = Resampler.boxFactors(from: from, to: to)
            if kx > 1 || ky > 1 { whole = try Resampler.boxShrink(whole, kx: kx, ky: ky) }
            let expected = try LanczosResampler.resize(whole, to: to)
            let streamed = try Resampler.resize(input, to: to)
            #expect(streamed.size == to && streamed.format == .argb32Premultiplied)
            #expect(streamed.bytes == expected.bytes, "\(format) \(from) to \(to)")
        }
    }

    @Test("a padded source (rows longer than their pixels) is resized as its tight copy")
    func paddedRows() throws {
        let tight = try PixelBuffer(
            width: 301, height: 97, format: .argb32Premultiplied, bytes: Self.row(pixels: 301 * 97, seed: 7))
        var padded = [UInt8](repeating: 0xEE, count: 1300 * 97)
        for y in 0..<97 { padded.replaceSubrange((y * 1300)..<(y * 1300 + 1204), with: tight.bytes[(y * 1204)..<(y * 1204 + 1204)]) }
        let source = try PixelBuffer(width: 301, height: 97, format: .argb32Premultiplied, bytesPerRow: 1300, bytes: padded)
        let size = PixelSize(width: 100, height: 31)
        #expect(try Resampler.resize(source, to: size).bytes == (try Resampler.resize(tight, to: size)).bytes)
    }

    @Test(
        "the box stage in C gives the plain integer averages: every block width, partial last blocks, one to many rows",
        arguments: [1, 2, 3, 4, 5, 7, 8, 16, 33, 256, 513])
    func box(kx: Int) {
        for (width, rows) in [(kx * 5, 1), (kx * 5 + 1, 2), (kx * 3 + kx - 1, 3), (max(1, kx - 1), 7), (kx * 2, 256)] {
            let box = BoxShrinkRows(inputWidth: width, kx: kx)
            let input = (0..<rows).map { Self.row(pixels: width, seed: UInt64(kx * 1000 + width * 10 + $0)) }
            var out = [UInt8](repeating: 0, count: box.outputWidth * 4)
            for twice in 0..<2 {  // the sums start again after an emit
                for row in input { row.withUnsafeBufferPointer { box.add($0.baseAddress!) } }
                out.withUnsafeMutableBufferPointer { box.emit(into: $0.baseAddress!) }
                for ox in 0..<box.outputWidth {
                    let x0 = ox * kx, x1 = min(width, x0 + kx), n = UInt32((x1 - x0) * rows)
                    for c in 0..<4 {
                        var sum: UInt32 = 0
                        for row in input { for x in x0..<x1 { sum += UInt32(row[x * 4 + c]) } }
                        #expect(out[ox * 4 + c] == UInt8((sum + n / 2) / n), "kx \(kx) width \(width) rows \(rows) pass \(twice) pixel \(ox) channel \(c)")
                    }
                }
            }
        }
    }
}
