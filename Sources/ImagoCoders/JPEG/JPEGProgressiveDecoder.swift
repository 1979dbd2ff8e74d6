// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CJPEG
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Progressive JPEG display as bytes arrive.
///
/// Baseline JPEGs show the rows decoded so far. Progressive JPEGs run libjpeg in
/// buffered-image mode and show the best *complete* scan so far, redrawn whenever a new
/// scan completes. The rest of the canvas is transparent until decoded.
final class JPEGProgressiveDecoder: ProgressiveImageDecoding {
    private enum Stage { case header, start, rows, scans, finishing, done }

    private let options: DecodeOptions
    private let maxScans: Int
    private var decompressor: JPEGDecompressor?
    private var stage = Stage.header
    private var header: JPEGHeader?
    private var plan: JPEGOutputPlan?
    private var storage: ZeroedStorage?
    private var width = 0, height = 0
    private var outputScan = 0
    private var hasPixels = false
    private(set) var info: ImageInfo?
    var isComplete: Bool { stage == .done }

    init(options: DecodeOptions, maxScans: Int) {
        self.options = options
        self.maxScans = maxScans
    }

    func update(_ data: Data, isFinal: Bool) throws {
        try options.limits.check(inputBytes: data.count)
        if stage == .done { return }
        if decompressor == nil {
            let d = try JPEGDecompressor()
            imago_jpeg_decoder_set_max_scans(d.handle, Int32(clamping: maxScans))
            decompressor = d
        }
        guard let d = decompressor else { return }
        try data.withUnsafeBytes { raw in
            imago_jpeg_decoder_set_input(d.handle, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, isFinal ? 1 : 0)
            try advance(d)
        }
        if isFinal, stage != .done {
            throw ImageCodingError.truncated(.jpeg, "the data ends before the end-of-image marker")
        }
        if isFinal, d.hitEnd {
            throw ImageCodingError.truncated(.jpeg, "the data ends before the end-of-image marker")
        }
    }

    /// Runs the state machine as far as the bytes allow.
    private func advance(_ d: JPEGDecompressor) throws {
        while true {
            switch stage {
            case .header:
                guard try d.check(imago_jpeg_read_header(d.handle), during: "inside the header") else { return }
                let h = try d.header()
                let p = JPEGOutputPlan(header: h, options: options)
                try p.checkLimits(d)
                header = h
                info = h.info()
                p.configure(d.cinfo)
                d.cinfo.pointee.buffered_image = h.progressive ? 1 : 0
                plan = p
                stage = .start
            case .start:
                guard try d.check(imago_jpeg_start_decompress(d.handle), during: "before the first scan") else { return }
                width = Int(d.cinfo.pointee.output_width)
                height = Int(d.cinfo.pointee.output_height)
                let (_, total) = try PixelBuffer.layout(width: width, height: height, format: plan?.bufferFormat ?? .rgba8)
                storage = ZeroedStorage(byteCount: total)
                stage = d.cinfo.pointee.buffered_image != 0 ? .scans : .rows
            case .rows:
                var rows: UInt32 = 0
                let done = try d.check(imago_jpeg_read_rows(d.handle, rowBase, stride, &rows), during: "in the image data")
                if rows > 0 { hasPixels = true }
                guard done else { return }
                stage = .finishing
            case .scans:
                var result: Int32 = 0
                repeat {
                    _ = try d.check(imago_jpeg_consume_input(d.handle, &result), during: "in a scan")
                } while result != JPEG_SUSPENDED && result != JPEG_REACHED_EOI
                let complete = jpeg_input_complete(d.cinfo) != 0
                let inputScan = Int(d.cinfo.pointee.input_scan_number)
                let best = complete ? inputScan : inputScan - 1
                if best > outputScan {
                    try render(scan: best, d)
                }
                guard complete else { return }
                stage = .finishing
            case .finishing:
                guard try d.check(imago_jpeg_finish_decompress(d.handle), during: "before the end marker") else { return }
                stage = .done
            case .done:
                return
            }
        }
    }

    /// Outputs scan `scan` over the whole canvas.
    private func render(scan: Int, _ d: JPEGDecompressor) throws {
        _ = try d.check(imago_jpeg_start_output(d.handle, Int32(scan)), during: "starting an output pass")
        var rows: UInt32 = 0
        _ = try d.check(imago_jpeg_read_rows(d.handle, rowBase, stride, &rows), during: "in an output pass")
        _ = try d.check(imago_jpeg_finish_output(d.handle), during: "ending an output pass")
        outputScan = scan
        hasPixels = true
    }

    private var stride: Int { width * (plan?.bufferFormat.bytesPerPixel ?? 4) }

    private var rowBase: UnsafeMutablePointer<UInt8>? {
        storage?.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    }

    func currentImage() throws -> Image? {
        guard hasPixels, let storage, let plan, let header else { return nil }
        let raw = try storage.snapshot(width: width, height: height, format: plan.bufferFormat, bytesPerRow: stride)
        var image = plan.image(from: plan.finish(raw), header: header, incremental: !isComplete)
        // Undecoded rows are transparent only in formats that have alpha.
        if !isComplete { image.hasAlpha = image.buffer.format.hasAlphaChannel }
        return image
    }
}
