// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

/// Resizes an image while its rows arrive from a `RowStreamingImageDecoding`
/// decoder, holding only the output and a window of rows.
///
/// The pixels are exactly those of ``Resampler/resize(_:to:quality:limits:)`` with Lanczos3: the
/// same box pre-shrink (rows are averaged as they come, `ky` at a time), then the same two
/// filter passes, the vertical one over a ring of horizontally filtered rows just tall enough for
/// its kernel. Peak memory is the output plus that ring (a few dozen rows of output width) plus
/// one source row, however large the source: libvips's demand-driven shrink, done in one pass.
///
/// Use once: feed it to a decoder, then take ``result()``.
public final class StreamingResampler: DecodedRowConsuming {
    /// The output size.
    public let target: PixelSize
    private let limits: DecodingLimits

    private var source = PixelSize(width: 0, height: 0)
    private var box: BoxShrinkRows?
    private var boxRow: UnsafeMutablePointer<UInt8>?
    private var boxHeight = 0
    private var ky = 1
    private var wx: LanczosResampler.Weights?
    private var wy: LanczosResampler.Weights?
    private var ring: UnsafeMutablePointer<UInt8>?
    private var ringRows = 0
    private var accumulator: UnsafeMutablePointer<Int32>?
    /// Rows that have entered the vertical stage so far.
    private var middleRows = 0
    /// For each output row, the last filtered row that must have arrived before it is written.
    private var readyAfter: [Int] = []
    private var nextOutput = 0
    private var rowsSeen = 0
    private var output: [UInt8] = []

    /// Creates a resampler to `target`.
    ///
    /// - Parameters:
    ///   - target: The output size, at least 1×1.
    ///   - limits: `target` may have at most `limits.maxPixels` pixels. Default `DecodingLimits.default`.
    /// - Throws: `.invalidArgument` for a target under 1×1, `.exceedsLimit(.maxPixels, …)` over the limit.
    public init(target: PixelSize, limits: DecodingLimits = .default) throws {
        guard target.width > 0, target.height > 0 else {
            throw ImageCodingError.invalidArgument("resize target \(target) must be at least 1x1")
        }
        let pixels = target.pixelCount ?? Int.max
        if pixels > limits.maxPixels { throw ImageCodingError.exceedsLimit(.maxPixels, found: pixels, limit: limits.maxPixels) }
        self.target = target
        self.limits = limits
    }

    deinit {
        boxRow?.deallocate()
        ring?.deallocate()
        accumulator?.deallocate()
    }

    /// Sets up the stages for a source of `size`: the output and the kernel window are allocated
    /// here, before any row arrives.
    public func begin(size: PixelSize) throws {
        guard source.width == 0 else { throw ImageCodingError.invalidArgument("a StreamingResampler is used once") }
        guard size.width > 0, size.height > 0 else { throw ImageCodingError.invalidArgument("source size \(size) is empty") }
        source = size
        // Every byte is written before ``result()`` hands the output over (it throws when a row
        // is missing), so the output is not zeroed first: fresh pages are zeroed by the kernel
        // anyway, and a second pass over them cost time and cache.
        let count = target.width * target.height * 4
        output = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            LargeBuffers.preferHugePages(UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
        guard size != target else { return }  // rows are copied straight through
        let (kx, ky) = Resampler.boxFactors(from: size, to: target)
        var middle = size
        if kx > 1 || ky > 1 {
            let b = BoxShrinkRows(inputWidth: size.width, kx: kx)
            box = b
            self.ky = ky
            boxRow = .allocate(capacity: b.outputWidth * 4)
            boxHeight = (size.height + ky - 1) / ky
            middle = PixelSize(width: b.outputWidth, height: boxHeight)
        }
        let wx = LanczosResampler.Weights.shared(input: middle.width, output: target.width)
        let wy = LanczosResampler.Weights.shared(input: middle.height, output: target.height)
        // Output row y is written once every row up to the largest last tap of rows 0...y has
        // arrived; the ring must then still hold its first tap.
        readyAfter = []
        readyAfter.reserveCapacity(target.height)
        var latest = 0, window = 1
        for y in 0..<target.height {
            latest = max(latest, wy.starts[y] + wy.counts[y] - 1)
            readyAfter.append(latest)
            window = max(window, latest - wy.starts[y] + 1)
        }
        ringRows = window
        ring = .allocate(capacity: window * target.width * 4)
        accumulator = .allocate(capacity: target.width * 4)
        self.wx = wx
        self.wy = wy
    }

    /// Takes source row `y`.
    public func consume(row: UnsafeRawBufferPointer, y: Int) throws {
        guard y == rowsSeen, y < source.height, row.count >= source.width * 4,
            let base = row.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else {
            throw ImageCodingError.invalidArgument("row \(y) arrived out of order or short (expected row \(rowsSeen))")
        }
        rowsSeen += 1
        if source == target {
            output.withUnsafeMutableBytes { out in
                out.baseAddress.map { $0.advanced(by: y * target.width * 4).copyMemory(from: base, byteCount: target.width * 4) }
            }
            nextOutput = rowsSeen
            return
        }
        if let box, let boxRow {
            box.add(base)
            if box.rows == ky || y == source.height - 1 {
                box.emit(into: boxRow)
                filter(UnsafePointer(boxRow))
            }
        } else {
            filter(base)
        }
    }

    /// Horizontal pass into the ring, then every output row whose taps have all arrived.
    private func filter(_ row: UnsafePointer<UInt8>) {
        guard let wx, let wy, let ring, let accumulator else { return }
        let rowBytes = target.width * 4, ringRows = ringRows
        wx.values.withUnsafeBufferPointer { w in
            LanczosResampler.horizontal(row, into: ring + (middleRows % ringRows) * rowBytes, weights: wx, values: w)
        }
        middleRows += 1
        guard nextOutput < target.height, readyAfter[nextOutput] < middleRows else { return }
        output.withUnsafeMutableBufferPointer { out in
            guard let o = out.baseAddress else { return }
            wy.values.withUnsafeBufferPointer { w in
                while nextOutput < target.height, readyAfter[nextOutput] < middleRows {
                    LanczosResampler.vertical(
                        y: nextOutput, width: target.width, weights: wy, values: w,
                        accumulator: accumulator, into: o + nextOutput * rowBytes
                    ) {
                        UnsafePointer(ring + ($0 % ringRows) * rowBytes)
                    }
                    nextOutput += 1
                }
            }
        }
    }

    /// The resized image, once every source row has been consumed.
    ///
    /// - Throws: `.invalidArgument` when rows are missing.
    public func result() throws -> PixelBuffer {
        guard source.width > 0, rowsSeen == source.height, nextOutput == target.height else {
            throw ImageCodingError.invalidArgument("the resampler received \(rowsSeen) of \(source.height) rows")
        }
        return try PixelBuffer(width: target.width, height: target.height, format: .argb32Premultiplied, bytes: output)
    }
}
