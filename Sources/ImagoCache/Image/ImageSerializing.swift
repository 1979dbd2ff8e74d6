// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Turns an image into bytes for the disk cache when no original data was given.
public protocol ImageSerializing: Sendable {
    /// The bytes to store for `image`.
    ///
    /// - Throws: whatever encoding throws; the image is then cached in memory only.
    func serialize(_ image: Image) throws -> Data
}

/// SDWebImage's rule: keep the image's own format when it can be encoded (an animation keeps an
/// animated format); otherwise PNG when the image has alpha, JPEG when it does not.
///
/// Until the animated encoders exist, an animation whose format cannot be written is stored as
/// its first frame in PNG or JPEG; the memory cache still holds every frame.
public struct DefaultImageSerializer: ImageSerializing {
    /// The registry used to encode. Default `ImageCoderRegistry.shared`.
    public var coders: ImageCoderRegistry
    /// Encoding options. Default quality 0.9, metadata kept, orientation written as EXIF so the
    /// stored bytes decode to the same image.
    public var options: EncodeOptions

    /// Creates the serializer.
    public init(coders: ImageCoderRegistry = .shared, options: EncodeOptions = EncodeOptions(orientation: .writeEXIF)) {
        self.coders = coders
        self.options = options
    }

    /// Encodes `image` by the rule above.
    ///
    /// - Throws: `ImageCodingError` from the encoder.
    public func serialize(_ image: Image) throws -> Data {
        try coders.encode(image, as: coders.preferredEncodingFormat(for: image), options: options)
    }
}
