// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// The one error type for decoding and encoding. Each case names the cause.
public enum ImageCodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The data is empty.
    case emptyData
    /// The data is not an image in a format any registered coder decodes; `nil` when no
    /// format was recognised at all.
    case unsupportedFormat(ImageFormat?)
    /// The format is known but this file uses a feature the decoder does not support
    /// (for example a 12-bit JPEG when libjpeg-turbo was built for 8 bits).
    case unsupportedFeature(ImageFormat, String)
    /// The data ends before the image is complete.
    case truncated(ImageFormat, String)
    /// The data is damaged; the message is the codec library's own.
    case corrupt(ImageFormat, String)
    /// A value read from the header, or the input itself, is over a ``DecodingLimits`` limit.
    case exceedsLimit(DecodingLimits.Kind, found: Int, limit: Int)
    /// No encoder is registered, or the library has none, for this format.
    case encoderUnavailable(ImageFormat)
    /// The encoder refused or failed: the message is the codec library's own, or says which
    /// part of the image it could not write. Nothing is wrong with the source data.
    case encodingFailed(ImageFormat, String)
    /// An argument passed by the caller is out of range.
    case invalidArgument(String)
    /// The isolated decoder process given this data stopped without an answer: it crashed, ran
    /// past its time, or was stopped by its sandbox; or the data is quarantined because a
    /// decoder stopped on it shortly before. The message says which. The data is treated as
    /// bad input: other requests are unaffected (`DecoderIsolation`).
    case decoderFailed(ImageFormat, String)

    /// A one-line message naming the cause and, where there is one, what to do about it.
    public var description: String {
        switch self {
        case .emptyData:
            return "no image data: the input is empty"
        case .unsupportedFormat(let f?):
            return "unsupported format: \(f.rawValue) images cannot be decoded by the registered coders"
        case .unsupportedFormat(nil):
            return "unsupported format: the data does not start with the signature of any known image format"
        case .unsupportedFeature(let f, let what):
            return "unsupported \(f.rawValue) feature: \(what)"
        case .truncated(let f, let what):
            return "truncated \(f.rawValue) data: \(what); the file is incomplete, fetch or copy it again"
        case .corrupt(let f, let what):
            return "corrupt \(f.rawValue) data: \(what)"
        case .exceedsLimit(let kind, let found, let limit):
            return "\(kind.noun) \(found) exceeds the limit of \(limit); raise DecodingLimits.\(kind.rawValue) to accept it"
        case .encoderUnavailable(let f):
            return "no encoder for \(f.rawValue) is available on this system"
        case .encodingFailed(let f, let what):
            return "encoding \(f.rawValue) failed: \(what)"
        case .invalidArgument(let what):
            return "invalid argument: \(what)"
        case .decoderFailed(let f, let what):
            return "the \(f.rawValue) decoder failed on this data: \(what)"
        }
    }
}
