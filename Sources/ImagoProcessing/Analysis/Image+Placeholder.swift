// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension Image {
    /// The BlurHash of the image as it is shown (its orientation applied; the first frame of an
    /// animation). See ``BlurHash/encode(_:componentsX:componentsY:)``.
    ///
    /// - Parameters:
    ///   - componentsX: Horizontal components, 1...9. Default 4.
    ///   - componentsY: Vertical components, 1...9. Default 3.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for component counts outside 1...9.
    public func blurHash(componentsX: Int = 4, componentsY: Int = 3) throws -> String {
        try BlurHash.encode(buffer.placeholderSample(maxSide: 100).applyingOrientation(orientation), componentsX: componentsX, componentsY: componentsY)
    }

    /// The ThumbHash of the image as it is shown (its orientation applied; the first frame of an
    /// animation). See ``ThumbHash/encode(_:)``.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for an empty image.
    public func thumbHash() throws -> [UInt8] {
        try ThumbHash.encode(buffer.placeholderSample(maxSide: 100).applyingOrientation(orientation))
    }

    /// A placeholder image decoded from a BlurHash: opaque, `size` pixels (32×32 by default;
    /// decode small and let the view scale it up). See ``BlurHash/decode(_:width:height:punch:)``.
    ///
    /// - Parameters:
    ///   - blurHash: The hash.
    ///   - size: The placeholder's size, at most ``BlurHash/maxDecodedSide`` a side. Default 32×32.
    ///   - punch: The AC components' contrast. Default 1.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a malformed hash or size.
    public init(blurHash: String, size: PixelSize = PixelSize(width: 32, height: 32), punch: Double = 1) throws {
        self.init(buffer: try BlurHash.decode(blurHash, width: size.width, height: size.height, punch: punch))
    }

    /// A placeholder image decoded from a ThumbHash: 32 pixels on its longer side, with the
    /// hash's aspect ratio and alpha. See ``ThumbHash/decode(_:)``.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a malformed hash.
    public init(thumbHash: [UInt8]) throws {
        let buffer = try ThumbHash.decode(thumbHash)
        self.init(buffer: buffer, hasAlpha: !buffer.isOpaque)
    }
}
