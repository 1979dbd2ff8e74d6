// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoResample
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

    /// Adds one input row of `inputWidth` pixels (in C, `imago_box_add`: SSE4.1 where the CPU
    /// has it).
    func add(_ row: UnsafePointer<UInt8>) {
        imago_box_add(row, sums, inputWidth, kx)
        rows += 1
    }

    /// Writes the rounded averages of the rows added so far (`outputWidth` pixels) and starts
    /// the next block (in C, `imago_box_emit`: no division for the full blocks). Does nothing
    /// useful before a row was added.
    func emit(into out: UnsafeMutablePointer<UInt8>) {
        guard rows > 0 else { return }
        imago_box_emit(sums, out, inputWidth, kx, rows)
        rows = 0
    }
}
