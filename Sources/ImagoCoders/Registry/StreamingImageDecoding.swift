// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A decoder that reads a file where it lies, in order and a piece at a time, instead of from
/// its bytes in memory: decoding a file then holds one small piece of it rather than all of it
/// (libvips's sequential access). ``ImageCoderRegistry/decode(_:options:)-(ImageInput,_)`` uses
/// it when the file's decoder has it, and maps the file for the others.
public protocol StreamingImageDecoding: ImageDecoding {
    /// The header, as ``ImageDecoding/info(of:)`` reads it from the same bytes, reading no more
    /// of the file than the header takes.
    ///
    /// - Throws: as ``ImageDecoding/info(of:)``; the file's read errors.
    func info(of file: ImageFile) throws -> ImageInfo

    /// Decodes the file exactly as ``ImageDecoding/decode(_:options:)`` decodes its bytes,
    /// reading it in order; or returns `nil` when this file, with these options, needs its bytes
    /// at hand (an APNG, whose frames are read on demand), for the caller to decode
    /// ``ImageFile/contents()`` instead.
    ///
    /// - Throws: as ``ImageDecoding/decode(_:options:)``; the file's read errors.
    func decode(_ file: ImageFile, options: DecodeOptions) throws -> Image?
}

extension ImageCoderRegistry {
    /// Decodes an input as ``decode(_:options:)-(Data,_)`` decodes bytes, with the format the
    /// input has already told (no second sniff). A file whose decoder streams (JPEG, a PNG still)
    /// is read a piece at a time, so it is never held whole; any other input is decoded from
    /// ``ImageInput/contents()``, which the image keeps while it decodes frames on demand.
    ///
    /// - Throws: as ``decode(_:options:)-(Data,_)``; the file's read errors.
    public func decode(_ input: ImageInput, options: DecodeOptions = .default) throws -> Image {
        guard input.byteCount > 0 else { throw ImageCodingError.emptyData }
        try options.limits.check(inputBytes: input.byteCount)
        guard let format = try input.format() else { throw ImageCodingError.unsupportedFormat(nil) }
        guard let decoder = decoder(for: format) else { throw ImageCodingError.unsupportedFormat(format) }
        var options = options
        options.sourceFormat = format
        if options.page == nil, case .file(let file) = input.storage, let streaming = decoder as? any StreamingImageDecoding,
            let image = try streaming.decode(file, options: options)
        {
            return image
        }
        return try decode(input.contents(), with: decoder, options: options)
    }
}
