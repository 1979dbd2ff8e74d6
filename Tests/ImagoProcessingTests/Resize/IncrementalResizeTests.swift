// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// A frame that changed in part is resized by recomputing what the change reaches: the bytes
/// must be a whole resize's.
@Suite("Resizing only what changed")
struct IncrementalResizeTests {
    /// A noisy premultiplied buffer, some of it transparent.
    static func noisy(width: Int, height: Int, seed: UInt32) throws -> PixelBuffer {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: bytes.count, by: 4) {
            state = state &* 1_664_525 &+ 1_013_904_223
            let a = UInt8(truncatingIfNeeded: state >> 24) < 40 ? UInt8(truncatingIfNeeded: state >> 8) : 255
            for c in 0..<3 {
                state = state &* 1_664_525 &+ 1_013_904_223
                bytes[i + c] = UInt8(UInt32(truncatingIfNeeded: state >> 24) * UInt32(a) / 255)
            }
            bytes[i + PixelFormat.argbOffsets.a] = a
        }
        // Native word order: alpha at its offset, colours below it.
        return try PixelBuffer(width: width, height: height, format: .argb32Premultiplied, bytes: bytes)
    }

    /// `buffer` with the rectangle repainted from `paint`.
    static func repaint(_ buffer: PixelBuffer, from paint: PixelBuffer, _ r: (x0: Int, y0: Int, x1: Int, y1: Int)) -> PixelBuffer {
        var out = buffer
        let stride = out.bytesPerRow
        out.withUnsafeMutableBytes { d in
            paint.withUnsafeBytes { s in
                for y in r.y0..<r.y1 {
                    for x in (r.x0 * 4)..<(r.x1 * 4) { d[y * stride + x] = s[y * paint.bytesPerRow + x] }
                }
            }
        }
        return out
    }

    @Test(
        "changed parts anywhere, of any size, down and up, with and without a box pre-shrink: a whole resize's bytes",
        arguments: [(320, 240, 200, 150), (320, 240, 37, 29), (100, 80, 250, 199), (1000, 700, 120, 90), (64, 64, 64, 30), (61, 43, 60, 42)])
    func sameBytes(_ sizes: (Int, Int, Int, Int)) throws {
        let (w, h, ow, oh) = sizes
        let target = PixelSize(width: ow, height: oh)
        let first = try Self.noisy(width: w, height: h, seed: 1), paint = try Self.noisy(width: w, height: h, seed: 2)
        let resizedFirst = try Resampler.resize(first, to: target)
        var state: UInt32 = 9
        func next(_ n: Int) -> Int {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int(state >> 8) % max(1, n)
        }
        var rects: [(x0: Int, y0: Int, x1: Int, y1: Int)] = [(0, 0, 1, 1), (w - 1, h - 1, w, h), (0, 0, w, h), (w / 2, 0, w / 2 + 1, h)]
        for _ in 0..<12 {
            let x0 = next(w), y0 = next(h)
            rects.append((x0, y0, x0 + 1 + next(w - x0), y0 + 1 + next(h - y0)))
        }
        for r in rects {
            let second = Self.repaint(first, from: paint, r)
            #expect(second.changedRect(from: first).map { $0.x0 >= r.x0 && $0.y0 >= r.y0 && $0.x1 <= r.x1 && $0.y1 <= r.y1 } ?? true)
            let updated = try Resampler.resize(second, to: target, reusing: resizedFirst, changed: r)
            #expect(updated == (try Resampler.resize(second, to: target)), "\(sizes): changed \(r)")
        }
        // Nothing changed: the previous result as it is.
        #expect(try Resampler.resize(first, to: target, reusing: resizedFirst, changed: (5, 5, 5, 9)) == resizedFirst)
    }

    @Test("changedRect finds the smallest rectangle holding every difference, nil for equal buffers")
    func changedRect() throws {
        let a = try Self.noisy(width: 50, height: 40, seed: 3)
        #expect(a.changedRect(from: a) == nil)
        var b = a
        b.withUnsafeMutableBytes { p in
            p[(7 * 50 + 11) * 4 + 2] ^= 1
            p[(30 * 50 + 4) * 4] ^= 1
        }
        let r = try #require(b.changedRect(from: a))
        #expect(r.x0 == 4 && r.y0 == 7 && r.x1 == 12 && r.y1 == 31)
        let other = try Self.noisy(width: 50, height: 41, seed: 3)
        #expect(other.changedRect(from: a).map { $0.x1 == 50 && $0.y1 == 41 } == true, "another size: all of it")
    }
}
