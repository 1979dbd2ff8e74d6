// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoResample
import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
#else
import Foundation
#endif

/// A two-pass (horizontal, then vertical) Lanczos3 resampler on premultiplied ARGB32.
///
/// pixman's separable-convolution filter evaluates the whole 2D kernel at every output pixel
/// (about 18×18 taps for a 3× reduction); two 1D passes do the same filtering with 2×18 taps,
/// which measured 45 ms against about 8 ms for a 750×500 → 256×171 reduction. Pillow and libvips
/// reduce the same way. Weights are 14-bit fixed point, normalised to sum exactly to one, and the
/// result is clamped so no colour exceeds its alpha (Lanczos rings).
enum LanczosResampler {
    /// For each output coordinate: the first input index and the weights that follow it.
    struct Weights: Sendable {
        var starts: [Int]
        var counts: [Int]
        var taps: Int
        var values: [Int32]  // counts[i] weights at i * taps
        /// The weights as 16-bit pairs for the two-taps-a-multiply pass: `pairStride` a output,
        /// tap 2j in the low half of `pairs[i * pairStride + j]`, tap 2j + 1 in the high half;
        /// empty when some weight does not fit 16 bits (then the 32-bit loop runs).
        var pairs: [Int32]
        var pairStride: Int

        init(input: Int, output: Int) {
            let scale = Double(input) / Double(output)
            let stretch = max(scale, 1)
            let support = 3 * stretch
            taps = Int(support.rounded(.up)) * 2 + 2
            starts = [Int](repeating: 0, count: output)
            counts = [Int](repeating: 0, count: output)
            values = [Int32](repeating: 0, count: output * taps)
            for i in 0..<output {
                let center = (Double(i) + 0.5) * scale
                let lo = max(0, Int((center - support).rounded(.down)))
                let hi = min(input - 1, Int((center + support).rounded(.up)))
                var ws: [Double] = []
                var total = 0.0
                for j in lo...max(lo, hi) {
                    let w = Self.lanczos3((Double(j) + 0.5 - center) / stretch)
                    ws.append(w)
                    total += w
                }
                // Trim zero weights at both ends to keep the loops short.
                var first = 0, last = ws.count - 1
                while first < last, ws[first] == 0 { first += 1 }
                while last > first, ws[last] == 0 { last -= 1 }
                let n = min(taps, last - first + 1)
                starts[i] = lo + first
                counts[i] = n
                var fixed = (0..<n).map { Int32((ws[first + $0] / (total == 0 ? 1 : total) * 16384).rounded()) }
                let error = 16384 - fixed.reduce(0, +)
                if let peak = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) { fixed[peak] += error }
                for k in 0..<n { values[i * taps + k] = fixed[k] }
            }
            pairStride = (taps + 1) / 2
            if values.allSatisfy({ $0 >= Int32(Int16.min) && $0 <= Int32(Int16.max) }) {
                pairs = [Int32](repeating: 0, count: output * pairStride)
                for i in 0..<output {
                    for j in 0..<pairStride {
                        let k = 2 * j
                        let low = UInt32(UInt16(truncatingIfNeeded: values[i * taps + k]))
                        let high = k + 1 < taps ? UInt32(UInt16(truncatingIfNeeded: values[i * taps + k + 1])) : 0
                        pairs[i * pairStride + j] = Int32(bitPattern: low | high << 16)
                    }
                }
            } else {
                pairs = []
            }
        }

        /// Weights made recently, by input and output length: every frame of an animation
        /// reuses them instead of evaluating the kernel again.
        private static let recent = Mutex([Int: Weights]())

        /// The weights for `input` → `output`, from ``recent`` when made before.
        static func shared(input: Int, output: Int) -> Weights {
            guard input < 1 << 30, output < 1 << 30 else { return Weights(input: input, output: output) }
            let key = input << 32 | output
            if let w = recent.withLock({ $0[key] }) { return w }
            let w = Weights(input: input, output: output)
            recent.withLock { cache in
                if cache.count >= 64 { cache.removeAll(keepingCapacity: true) }
                cache[key] = w
            }
            return w
        }

        static func lanczos3(_ x: Double) -> Double {
            let ax = abs(x)
            if ax < 1e-9 { return 1 }
            if ax >= 3 { return 0 }
            let px = Double.pi * x
            return 3 * sin(px) * sin(px / 3) / (px * px)
        }
    }

    /// Filters one row of output pixels from an input row (premultiplied ARGB32): the output
    /// columns `columns` (default all `wx.starts.count`), written from `out` on. In C: two taps a
    /// multiply-add on the 16-bit weight pairs (`imago_lanczos_horizontal_pairs`), or the 32-bit
    /// loop (`imago_lanczos_horizontal`) when a weight does not fit 16 bits. Both give the same bytes.
    @inline(__always)
    static func horizontal(
        _ row: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, weights wx: Weights,
        values w: UnsafeBufferPointer<Int32>, columns: Range<Int>? = nil
    ) {
        let lo = columns?.lowerBound ?? 0, n = columns?.count ?? wx.starts.count
        wx.starts.withUnsafeBufferPointer { starts in
            wx.counts.withUnsafeBufferPointer { counts in
                guard let sb = starts.baseAddress, let cb = counts.baseAddress else { return }
                if !wx.pairs.isEmpty {
                    wx.pairs.withUnsafeBufferPointer { pairs in
                        guard let pb = pairs.baseAddress else { return }
                        imago_lanczos_horizontal_pairs(row, out, sb + lo, cb + lo, wx.pairStride, n, pb + lo * wx.pairStride)
                    }
                } else if let wb = w.baseAddress {
                    imago_lanczos_horizontal(row, out, sb + lo, cb + lo, wx.taps, n, wb + lo * wx.taps)
                }
            }
        }
    }

    /// Filters output row `y` of `width` pixels from the horizontally filtered rows
    /// `wy.starts[y] ..< wy.starts[y] + wy.counts[y]`, found through `row`, then keeps every
    /// colour within its alpha (Lanczos rings).
    @inline(__always)
    static func vertical(
        y: Int, width: Int, weights wy: Weights, values w: UnsafeBufferPointer<Int32>,
        accumulator acc: UnsafeMutablePointer<Int32>, into out: UnsafeMutablePointer<UInt8>,
        row: (Int) -> UnsafePointer<UInt8>
    ) {
        let n = width * 4
        acc.update(repeating: 0, count: n)
        let wbase = y * wy.taps
        for k in 0..<wy.counts[y] {
            let wk = w[wbase + k]
            let r = row(wy.starts[y] + k)
            imago_lanczos_accumulate(acc, r, n, wk)
        }
        finish(acc, into: out, width: width)
    }

    /// Rounds and clamps `width` pixels of vertical-pass sums into `out`, every colour at most
    /// its alpha (Lanczos rings), in C (`imago_lanczos_finish`).
    @inline(__always)
    static func finish(_ acc: UnsafePointer<Int32>, into out: UnsafeMutablePointer<UInt8>, width: Int) {
        imago_lanczos_finish(acc, out, width, PixelFormat.argbOffsets.a)
    }

    /// The output indices `lo..<hi` whose filter windows reach input indices `from..<to`.
    static func reach(of weights: Weights, from: Int, to: Int) -> Range<Int> {
        var lo = weights.starts.count, hi = 0
        for i in weights.starts.indices where weights.starts[i] < to && weights.starts[i] + weights.counts[i] > from {
            lo = min(lo, i)
            hi = i + 1
        }
        return lo < hi ? lo..<hi : 0..<0
    }

    /// Resizes `src` to `size` as ``resize(_:to:)`` does, computing only the output pixels whose
    /// filter windows reach into `changed` (an input rectangle, `x0..<x1` by `y0..<y1`) and taking
    /// the rest from `previous`: the resize of an input equal to `src` outside `changed`. Every
    /// output pixel is computed from its own window with the same integers, so the bytes are
    /// ``resize(_:to:)``'s. The frames of an animation, which usually change in a corner, cost
    /// that corner.
    static func resize(
        _ src: PixelBuffer, to size: PixelSize, updating previous: PixelBuffer,
        changed: (x0: Int, y0: Int, x1: Int, y1: Int)
    ) throws -> PixelBuffer {
        let inW = src.width, outW = size.width
        let wx = Weights.shared(input: inW, output: outW), wy = Weights.shared(input: src.height, output: size.height)
        let columns = reach(of: wx, from: changed.x0, to: changed.x1), rows = reach(of: wy, from: changed.y0, to: changed.y1)
        guard !columns.isEmpty, !rows.isEmpty else { return previous }
        // The input rows the changed output rows read, filtered horizontally for the changed columns only.
        let firstRow = wy.starts[rows.lowerBound]
        let lastRow = rows.map { wy.starts[$0] + wy.counts[$0] }.max() ?? firstRow
        let nw = columns.count
        var middle = [UInt8](repeating: 0, count: nw * (lastRow - firstRow) * 4)
        middle.withUnsafeMutableBufferPointer { mid in
            guard let m = mid.baseAddress else { return }
            src.withUnsafeBytes { raw in
                guard let s = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                wx.values.withUnsafeBufferPointer { w in
                    for y in firstRow..<lastRow {
                        horizontal(s + y * src.bytesPerRow, into: m + (y - firstRow) * nw * 4, weights: wx, values: w, columns: columns)
                    }
                }
            }
        }
        var out = previous
        let stride = out.bytesPerRow
        out.withUnsafeMutableBytes { dst in
            guard let d = dst.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            verticalPass(middle, width: nw, firstRow: firstRow, weights: wy, rows: rows) { d + $0 * stride + columns.lowerBound * 4 }
        }
        return out
    }

    /// Resizes premultiplied ARGB32 `src` to `size` in two whole passes, through an intermediate
    /// of `size.width` × `src.height`. ``Resampler`` streams the same passes row by row through a
    /// ``StreamingResampler`` instead; this is the reference its tests hold it to.
    static func resize(_ src: PixelBuffer, to size: PixelSize) throws -> PixelBuffer {
        let inW = src.width, inH = src.height, outW = size.width, outH = size.height
        let wx = Weights.shared(input: inW, output: outW), wy = Weights.shared(input: inH, output: outH)
        // Horizontal pass over every input row into an intermediate of outW × inH.
        // The pass writes every byte, so the intermediate is not zeroed first (fresh pages, a
        // third of a thumbnail's page faults).
        let middle = [UInt8](unsafeUninitializedCapacity: outW * inH * 4) { mid, initialized in
            initialized = mid.count
            guard let m = mid.baseAddress else { return }
            src.withUnsafeBytes { raw in
                guard let s = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                    mid.initialize(repeating: 0)
                    return
                }
                wx.values.withUnsafeBufferPointer { w in
                    for y in 0..<inH { horizontal(s + y * src.bytesPerRow, into: m + y * outW * 4, weights: wx, values: w) }
                }
            }
        }
        // Vertical pass into the output.
        return try PixelBuffer(uninitializedWidth: outW, height: outH, format: .argb32Premultiplied) { dst in
            guard let d = dst.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            verticalPass(middle, width: outW, firstRow: 0, weights: wy, rows: 0..<outH) { d + $0 * outW * 4 }
        }
    }

    /// The vertical pass over output rows `rows`: each from the horizontally filtered rows in
    /// `middle` (`width` pixels each, the first being input row `firstRow`), written at `out(y)`.
    static func verticalPass(
        _ middle: [UInt8], width: Int, firstRow: Int, weights wy: Weights, rows: Range<Int>,
        into out: (Int) -> UnsafeMutablePointer<UInt8>
    ) {
        let acc = UnsafeMutablePointer<Int32>.allocate(capacity: width * 4)
        defer { acc.deallocate() }
        middle.withUnsafeBufferPointer { mid in
            guard let m = mid.baseAddress else { return }
            wy.values.withUnsafeBufferPointer { w in
                for y in rows {
                    vertical(y: y, width: width, weights: wy, values: w, accumulator: acc, into: out(y)) { m + ($0 - firstRow) * width * 4 }
                }
            }
        }
    }
}
