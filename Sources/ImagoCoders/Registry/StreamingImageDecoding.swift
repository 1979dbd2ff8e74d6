#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ImagoCore

/// A decoder that reads a file where it lies, in order and a piece at a time, instead of from
/// its bytes in memory: decoding a file then holds one small piece of it rather than all of it
/// (libvips's sequential access). ``ImageCoderRegistry/decode(_:options:)-(ImageFile,_)`` uses
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
    /// The streaming decoder for the file, when its format has one, and the file's first bytes.
    private func streamingDecoder(for file: ImageFile) throws -> (any StreamingImageDecoding)? {
        let head = try file.read(at: 0, maxLength: 64)
        guard !head.isEmpty else { throw ImageCodingError.emptyData }
        guard let format = ImageFormat(sniffing: head) else { return nil }
        return decoder(for: format) as? any StreamingImageDecoding
    }

    /// Reads the header of the file: only its first bytes when its decoder streams (JPEG, PNG),
    /// else as ``info(of:)-(Data)`` reads ``ImageFile/contents()``.
    ///
    /// - Throws: as ``info(of:)-(Data)``; the file's read errors.
    public func info(of file: ImageFile) throws -> ImageInfo {
        if let decoder = try streamingDecoder(for: file) { return try decoder.info(of: file) }
        return try info(of: file.contents())
    }

    /// Decodes the file as ``decode(_:options:)-(Data,_)`` decodes its bytes. A format whose
    /// decoder streams (JPEG, a PNG still) is read a piece at a time, so the file is never held
    /// whole; any other is decoded from ``ImageFile/contents()``, which the image keeps while it
    /// decodes frames on demand.
    ///
    /// - Throws: as ``decode(_:options:)-(Data,_)``; the file's read errors.
    public func decode(_ file: ImageFile, options: DecodeOptions = .default) throws -> Image {
        try options.limits.check(inputBytes: file.size)
        if options.page == nil, let decoder = try streamingDecoder(for: file), let image = try decoder.decode(file, options: options) {
            return image
        }
        return try decode(file.contents(), options: options)
    }
}
