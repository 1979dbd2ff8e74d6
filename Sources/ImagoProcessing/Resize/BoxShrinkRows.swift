// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

/// Averages horizontal runs of `kx` pixels over however many rows are added, one output row at
/// a time: the box stage of ``Resampler``, shared by whole-buffer and streamed resizing so both
/// give the same pixels. Premultiplied ARGB32 in and out.
final class BoxShrinkRows {
    let inputWidth: Int
    let kx: Int
    let outputWidth: Int
    private let sums: UnsafeMutablePointer<UInt32>
    /// Rows added since the last ``emit(into:)``.
    private(set) var rows = 0

    init(inputWidth: Int, kx: Int) {
        self.inputWidth = inputWidth
        self.kx = kx
        outputWidth = (inputWidth + kx - 1) / kx
        sums = .allocate(capacity: outputWidth * 4)
        sums.initialize(repeating: 0, count: outputWidth * 4)
    }

    deinit { sums.deallocate() }

    /// Adds one input row of `inputWidth` pixels.
    func add(_ row: UnsafePointer<UInt8>) {
        let w = inputWidth, kx = kx
        for ox in 0..<outputWidth {
            let x0 = ox * kx, x1 = min(w, x0 + kx)
            var b: UInt32 = 0, g: UInt32 = 0, r: UInt32 = 0, a: UInt32 = 0
            var p = row + x0 * 4
            for _ in x0..<x1 {
                b &+= UInt32(p[0])
                g &+= UInt32(p[1])
                r &+= UInt32(p[2])
                a &+= UInt32(p[3])
                p += 4
            }
            let s = sums + ox * 4
            s[0] &+= b
            s[1] &+= g
            s[2] &+= r
            s[3] &+= a
        }
        rows += 1
    }

    /// Writes the rounded averages of the rows added so far (`outputWidth` pixels) and starts
    /// the next block. Does nothing useful before a row was added.
    func emit(into out: UnsafeMutablePointer<UInt8>) {
        guard rows > 0 else { return }
        let n0 = UInt32(rows)
        for ox in 0..<outputWidth {
            let n = UInt32(min(inputWidth, ox * kx + kx) - ox * kx) * n0
            let s = sums + ox * 4
            for c in 0..<4 { out[ox * 4 + c] = UInt8((s[c] + n / 2) / n) }
        }
        sums.update(repeating: 0, count: outputWidth * 4)
        rows = 0
    }
}
