// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension PNGCoder: StreamingImageDecoding {
    /// Walks the file's chunk headers where they lie (a few bytes a chunk); an APNG's
    /// animation is read as ``info(of:)-(Data)`` reads it, from ``ImageFile/contents()``.
    ///
    /// - Throws: as ``info(of:)-(Data)``; the file's read errors.
    public func info(of file: ImageFile) throws -> ImageInfo {
        let chunks = try PNGChunks(file: file)
        guard chunks.animationFrames == nil else { return try info(of: file.contents()) }
        return try chunks.info(format: .png)
    }

    /// Decodes a PNG still (interlaced or not) as ``decode(_:options:)`` does, feeding libpng
    /// 256 KiB of the file at a time: the memory held is the bitmap and one piece of input.
    /// Returns `nil` for an APNG, whose frames are decoded from its bytes.
    ///
    /// - Throws: as ``decode(_:options:)``; the file's read errors.
    public func decode(_ file: ImageFile, options: DecodeOptions) throws -> Image? {
        try options.limits.check(inputBytes: file.size)
        // An APNG, or chunks the walk refuses (where the in-memory decode goes on without them).
        guard let chunks = try? PNGChunks(file: file), chunks.animationFrames == nil else { return nil }
        let ihdr = chunks.ihdr
        try options.limits.check(width: ihdr.width, height: ihdr.height, format: .png)
        let source = file.makeByteSource()
        let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { piece.deallocate() }
        var decoder: PNGPushDecoder?
        let rawFormat: PixelFormat = options.pixelFormat == .argb32Premultiplied ? .argb32Premultiplied : .rgba8
        var raw = try PixelBuffer(uninitializedWidth: ihdr.width, height: ihdr.height, format: rawFormat) { p in
            let d = try PNGPushDecoder(ihdr: ihdr, options: options, output: p.baseAddress, stride: ihdr.width * 4)
            decoder = d
            while !d.isFinished {
                let n = try source.read(into: piece)
                if n == 0 { break }
                try d.feed(UnsafeRawBufferPointer(rebasing: piece[0..<n]))
            }
            guard d.isFinished else {
                throw ImageCodingError.truncated(.png, "the data ends before the IEND chunk (\(d.rowsWritten) of \(ihdr.height) rows)")
            }
        }
        guard let decoder else { throw ImageCodingError.corrupt(.png, "decoder was not created") }
        return decoder.finish(
            &raw, icc: decoder.iccProfile(), exif: chunks.exif, xmp: decoder.xmp,
            hasAlpha: ihdr.hasAlphaChannel || chunks.hasTRNS, format: .png, incremental: false)
    }
}
