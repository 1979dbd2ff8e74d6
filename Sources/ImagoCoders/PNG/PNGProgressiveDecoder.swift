// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Progressive PNG decoding: the rows (or, for Adam7, the passes) decoded so far, the rest
/// transparent. Fed all bytes received so far; only the new ones reach libpng.
final class PNGProgressiveDecoder: ProgressiveImageDecoding {
    private let options: DecodeOptions
    private var decoder: PNGPushDecoder?
    private var storage: ZeroedStorage?
    private var fed = 0
    private var format: ImageFormat = .png
    private var hasTRNS = false
    private var exif: Data?
    private var xmp: Data?
    private(set) var info: ImageInfo?
    private(set) var isComplete = false

    init(options: DecodeOptions) { self.options = options }

    func update(_ data: Data, isFinal: Bool) throws {
        try options.limits.check(inputBytes: data.count)
        if isComplete { return }
        if decoder == nil {
            guard data.count >= 33 else {
                if isFinal { throw ImageCodingError.truncated(.png, "the data ends inside the header") }
                return
            }
            let ihdr = try PNGChunks.readIHDR(data)
            try options.limits.check(width: ihdr.width, height: ihdr.height, format: .png)
            let (stride, total) = try PixelBuffer.layout(width: ihdr.width, height: ihdr.height, format: .rgba8)
            let storage = ZeroedStorage(byteCount: total)
            decoder = try PNGPushDecoder(ihdr: ihdr, options: options, output: storage.bytes.baseAddress, stride: stride)
            self.storage = storage
            format = ImageFormat(sniffing: data) ?? .png
        }
        guard let decoder else { return }
        if data.count > fed {
            try data.withUnsafeBytes { raw in try decoder.feed(UnsafeRawBufferPointer(rebasing: raw[fed...])) }
            fed = data.count
        }
        if let chunks = try? PNGChunks(data) {
            info = try? chunks.info(format: format, limits: options.limits)
            hasTRNS = chunks.hasTRNS
            exif = chunks.exif
            xmp = chunks.xmp
        }
        if decoder.isFinished {
            isComplete = true
        } else if isFinal {
            throw ImageCodingError.truncated(.png, "the data ends before the IEND chunk (\(decoder.rowsWritten) of \(decoder.ihdr.height) rows)")
        }
    }

    func currentImage() throws -> Image? {
        guard let decoder, let storage, decoder.rowsWritten > 0 else { return nil }
        let w = decoder.ihdr.width, h = decoder.ihdr.height
        var raw = try storage.snapshot(width: w, height: h, format: decoder.rawFormat, bytesPerRow: w * 4)
        let icc = decoder.iccProfile()
        let hasAlpha = decoder.ihdr.hasAlphaChannel || hasTRNS || !isComplete
        return decoder.finish(&raw, icc: icc, exif: exif, xmp: xmp, hasAlpha: hasAlpha, format: format, incremental: !isComplete)
    }
}
