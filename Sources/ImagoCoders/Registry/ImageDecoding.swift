// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Decodes encoded data of the formats it claims into an `Image`.
///
/// Implementations must be safe against hostile data: check the header against
/// ``DecodeOptions/limits`` before allocating pixel memory, report truncation as
/// `ImageCodingError.truncated(_:_:)`, and never trap.
public protocol ImageDecoding: Sendable {
    /// Whether this decoder decodes `format`. Answered honestly per format.
    func canDecode(_ format: ImageFormat) -> Bool

    /// Reads the header without decoding pixels.
    ///
    /// - Throws: `ImageCodingError` when the header is truncated or corrupt.
    func info(of data: Data) throws -> ImageInfo

    /// Decodes `data`.
    ///
    /// - Throws: `ImageCodingError`: `.truncated`, `.corrupt`, `.unsupportedFeature`,
    ///   or `.exceedsLimit` before anything large is allocated.
    func decode(_ data: Data, options: DecodeOptions) throws -> Image

    /// A decoder fed the bytes received so far, or `nil` when the format has none.
    /// The default returns `nil`.
    func makeProgressiveDecoder(options: DecodeOptions) -> (any ProgressiveImageDecoding)?
}

extension ImageDecoding {
    /// Returns `nil`: formats without an incremental decoder decode only once complete.
    public func makeProgressiveDecoder(options: DecodeOptions) -> (any ProgressiveImageDecoding)? { nil }
}

/// Encodes an `Image` into the formats it claims.
public protocol ImageEncoding: Sendable {
    /// Whether this encoder writes `format`. Answered honestly: `false` when the
    /// underlying library lacks an encoder.
    func canEncode(_ format: ImageFormat) -> Bool

    /// Encodes the image's first frame (or its animation, for encoders of animated formats).
    ///
    /// - Throws: `ImageCodingError.encoderUnavailable(_:)` for a format it does not
    ///   write, `ImageCodingError.invalidArgument(_:)` for options out of range, and
    ///   `ImageCodingError.corrupt(_:_:)` carrying the library's message when it fails.
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data
}

/// Incremental decoding from the bytes received so far, as SDWebImage's progressive coders.
///
/// Feed it *all* bytes received so far with ``update(_:isFinal:)``; then ask for
/// ``currentImage()``. The header (``info``) is known as soon as it has arrived. A partial
/// image has `Image.isIncremental` set and its missing area transparent.
/// After the final update, the image equals a one-shot decode of the same bytes.
/// Instances are used from one task at a time and are not `Sendable`.
public protocol ProgressiveImageDecoding: AnyObject {
    /// The header, once enough bytes have arrived; `nil` before.
    var info: ImageInfo? { get }

    /// Whether the final update has been decoded completely.
    var isComplete: Bool { get }

    /// Takes all bytes received so far. `isFinal` says no more will come.
    ///
    /// - Throws: `ImageCodingError` for corrupt data, limits, or (with `isFinal`)
    ///   truncation. Data that is merely incomplete is not an error before the final update.
    func update(_ data: Data, isFinal: Bool) throws

    /// The best image decodable from the bytes so far, or `nil` before any pixels can be shown.
    ///
    /// - Throws: `ImageCodingError` when producing the image fails.
    func currentImage() throws -> Image?
}

/// A decoder that reads ``DecodeOptions/page`` itself, because its pages are independent
/// images (TIFF). ``ImageCoderRegistry`` picks a frame for every other decoder.
package protocol PageDecoding {}
