// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension JPEGCoder: StreamingImageDecoding {
    /// Reads the header from the file's first bytes: up to the start of the image data (SOS),
    /// with the APP1 and APP2 markers (EXIF, XMP, ICC) on the way.
    ///
    /// - Throws: as ``info(of:)-(Data)``; the file's read errors.
    public func info(of file: ImageFile) throws -> ImageInfo {
        try info(from: file.makeByteSource())
    }

    /// Reads the header from `source`, pulling 64 KiB at a time only until the image data
    /// starts: usually one piece, however large the file.
    ///
    /// - Throws: as ``info(of:)-(Data)``; the source's own read errors.
    public func info(from source: any ImageByteSource) throws -> ImageInfo {
        try readHeader(from: source, limits: .unlimited).1.info()
    }

    /// Decodes the file 64 KiB at a time through ``decode(from:options:)``: every JPEG streams.
    ///
    /// - Throws: as ``decode(_:options:)``; the file's read errors.
    public func decode(_ file: ImageFile, options: DecodeOptions) throws -> Image? {
        try options.limits.check(inputBytes: file.size)
        return try decode(from: file.makeByteSource(), options: options)
    }
}
