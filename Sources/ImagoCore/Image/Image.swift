// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// A decoded image: one frame for a still, several for an animation, plus how to show it.
///
/// `Image` is a value type and `Sendable`. Pixels are stored as decoded, *before*
/// ``orientation`` is applied (as `UIImage` keeps a `CGImage` and an orientation);
/// ``orientedSize`` is the size a viewer shows.
///
/// An animation comes in one of two forms. With every frame decoded, ``frames`` holds them all
/// (SDWebImage's animated `UIImage`). Decoded lazily (``animation`` is set, as YYImage and
/// `SDAnimatedImage` keep their decoder), ``frames`` holds frame 0 only and the others are decoded
/// when asked for through ``frame(at:)``; ``frameCount``, ``duration(at:)`` and `allFrames()`
/// work the same for both forms.
public struct Image: Sendable, Equatable {
    /// The decoded frames, never empty: every frame, or frame 0 alone for a lazily decoded
    /// animation (see ``animation``) and for a still.
    public private(set) var frames: [ImageFrame]
    /// The source of a lazily decoded animation's frames, or `nil` when ``frames`` is complete.
    public private(set) var animation: (any AnimatedImage & AnyObject)?
    /// How the stored pixels must be turned to appear upright. Default ``ImageOrientation/up``.
    public var orientation: ImageOrientation
    /// Points-to-pixels scale (1, 2 or 3 for `@2x`/`@3x` assets). Default 1.
    public var scale: Double
    /// The format the image was decoded from, or `nil` for an image made in memory.
    public var format: ImageFormat?
    /// ICC profile and EXIF block.
    public var metadata: ImageMetadata
    /// Total plays of an animation: 0 means forever, 1 means play once. Default 1.
    public var loopCount: Int
    /// Whether the image has an alpha channel that may hold transparency.
    ///
    /// Decoders set it from the file (an alpha channel or a transparency chunk), not by
    /// scanning pixels; ``PixelBuffer/isOpaque`` scans.
    public var hasAlpha: Bool
    /// Whether this is a partial image from a progressive decode that has not finished.
    public var isIncremental: Bool

    /// Creates a still image from one buffer.
    ///
    /// - Parameters:
    ///   - buffer: The pixels.
    ///   - orientation: How to show the pixels upright. Default `.up`.
    ///   - scale: Points per pixel, as `@2x` resources have. Default 1.
    ///   - format: The format the pixels were decoded from, if any. Default `nil`.
    ///   - metadata: EXIF, ICC and the like. Default empty.
    ///   - hasAlpha: Defaults to whether `buffer`'s format has an alpha channel.
    ///   - isIncremental: Whether this is a partial image of a progressive decode. Default `false`.
    public init(
        buffer: PixelBuffer, orientation: ImageOrientation = .up, scale: Double = 1,
        format: ImageFormat? = nil, metadata: ImageMetadata = ImageMetadata(),
        hasAlpha: Bool? = nil, isIncremental: Bool = false
    ) {
        self.frames = [ImageFrame(buffer: buffer)]
        self.orientation = orientation
        self.scale = scale
        self.format = format
        self.metadata = metadata
        self.loopCount = 1
        self.hasAlpha = hasAlpha ?? buffer.format.hasAlphaChannel
        self.isIncremental = isIncremental
    }

    /// Creates an image from frames.
    ///
    /// - Parameters:
    ///   - frames: The frames, all of one size, each with its duration.
    ///   - loopCount: Total plays; 0 means forever. Default 0 for several frames, 1 for one.
    ///   - orientation: How to show the pixels upright. Default `.up`.
    ///   - scale: Points per pixel. Default 1.
    ///   - format: The format the frames were decoded from, if any. Default `nil`.
    ///   - metadata: EXIF, ICC and the like. Default empty.
    ///   - hasAlpha: Defaults to whether the first frame's format has an alpha channel.
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` when `frames` is empty or the frames
    ///   differ in size.
    public init(
        frames: [ImageFrame], loopCount: Int? = nil, orientation: ImageOrientation = .up,
        scale: Double = 1, format: ImageFormat? = nil, metadata: ImageMetadata = ImageMetadata(),
        hasAlpha: Bool? = nil
    ) throws {
        guard let first = frames.first else { throw ImageCodingError.invalidArgument("an image needs at least one frame") }
        guard frames.allSatisfy({ $0.buffer.size == first.buffer.size }) else {
            throw ImageCodingError.invalidArgument("all frames of an image must be the size of its canvas")
        }
        self.frames = frames
        self.orientation = orientation
        self.scale = scale
        self.format = format
        self.metadata = metadata
        self.loopCount = loopCount ?? (frames.count > 1 ? 0 : 1)
        self.hasAlpha = hasAlpha ?? first.buffer.format.hasAlphaChannel
        self.isIncremental = false
    }

    /// Creates a lazily decoded animation: frame 0 is decoded now (`firstFrame`), the others by
    /// `animation` when asked for.
    ///
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` when `firstFrame` is not the size of the
    ///   animation's canvas.
    public init(
        animation: any AnimatedImage & AnyObject, firstFrame: PixelBuffer, orientation: ImageOrientation = .up,
        scale: Double = 1, format: ImageFormat? = nil, metadata: ImageMetadata = ImageMetadata(),
        hasAlpha: Bool? = nil
    ) throws {
        guard firstFrame.size == animation.canvasSize else {
            throw ImageCodingError.invalidArgument("the first frame (\(firstFrame.size)) is not the canvas size \(animation.canvasSize)")
        }
        self.frames = [ImageFrame(buffer: firstFrame, duration: animation.duration(at: 0))]
        self.animation = animation.frameCount > 1 ? animation : nil
        self.orientation = orientation
        self.scale = scale
        self.format = format
        self.metadata = metadata
        self.loopCount = animation.frameCount > 1 ? animation.loopCount : 1
        self.hasAlpha = hasAlpha ?? firstFrame.format.hasAlphaChannel
        self.isIncremental = false
    }

    /// Compares everything but pixels by value; lazy animations compare by identity of their source.
    public static func == (lhs: Image, rhs: Image) -> Bool {
        lhs.frames == rhs.frames && lhs.animation === rhs.animation && lhs.orientation == rhs.orientation
            && lhs.scale == rhs.scale && lhs.format == rhs.format && lhs.metadata == rhs.metadata
            && lhs.loopCount == rhs.loopCount && lhs.hasAlpha == rhs.hasAlpha && lhs.isIncremental == rhs.isIncremental
    }

    /// Frames in the image, decoded or not: 1 for a still.
    public var frameCount: Int { animation?.frameCount ?? frames.count }

    /// Seconds frame `index` is shown (0 for a still or an index out of range).
    public func duration(at index: Int) -> Double {
        if let animation { return animation.duration(at: index) }
        return frames.indices.contains(index) ? frames[index].duration : 0
    }

    /// Frame `index`, decoded now if the image is a lazy animation.
    ///
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` for an index out of range; the
    ///   animation's decoding errors.
    public func frame(at index: Int) throws -> ImageFrame {
        guard index >= 0, index < frameCount else {
            throw ImageCodingError.invalidArgument("frame \(index) is out of range: the image has \(frameCount) frame(s)")
        }
        if index < frames.count { return frames[index] }
        guard let animation else { throw ImageCodingError.invalidArgument("frame \(index) is out of range") }
        return ImageFrame(buffer: try animation.canvas(at: index), duration: animation.duration(at: index))
    }

    /// Every frame, decoding a lazy animation's frames now.
    ///
    /// - Parameter limits: The frames together may hold at most `limits.maxTotalPixels` pixels,
    ///   checked before any is decoded. Default ``DecodingLimits/default``.
    /// - Throws: `.exceedsLimit` over the limits; the animation's decoding errors.
    public func allFrames(limits: DecodingLimits = .default) throws -> [ImageFrame] {
        guard let animation else { return frames }
        try limits.check(frameCount: animation.frameCount, framePixels: animation.canvasSize.pixelCount ?? Int.max)
        return try (0..<animation.frameCount).map { try frame(at: $0) }
    }

    /// The image with every frame decoded (``animation`` `nil`): `self` when it already is.
    ///
    /// - Throws: as ``allFrames(limits:)``.
    public func decodingAllFrames(limits: DecodingLimits = .default) throws -> Image {
        guard animation != nil else { return self }
        var copy = self
        copy.frames = try allFrames(limits: limits)
        copy.animation = nil
        return copy
    }

    /// Returns a copy whose frames (decoded and lazy) are passed through `transform`, which must
    /// give every canvas the same new size and `format`; lazy frames stay lazy.
    ///
    /// - Throws: `transform`'s errors on the decoded frames.
    public func mappingFrames(
        to size: PixelSize, format: PixelFormat,
        _ transform: @escaping @Sendable (PixelBuffer) throws -> PixelBuffer
    ) throws -> Image {
        var copy = self
        copy.frames = try frames.map { ImageFrame(buffer: try transform($0.buffer), duration: $0.duration) }
        if let animation {
            copy.animation = TransformedAnimation(animation, canvasSize: size, pixelFormat: format, transform: transform)
        }
        return copy
    }

    /// The first frame's pixels: the image itself for a still.
    public var buffer: PixelBuffer { frames[0].buffer }

    /// The stored size in pixels, before orientation.
    public var pixelSize: PixelSize { frames[0].buffer.size }

    /// The size a viewer shows, after orientation.
    public var orientedSize: PixelSize { orientation.orientedSize(pixelSize) }

    /// Whether the image has more than one frame (decoded or lazy).
    public var isAnimated: Bool { frameCount > 1 }

    /// Whether every frame is in the ready-to-draw display format,
    /// ``PixelFormat/argb32Premultiplied`` (SDWebImage's `sd_isDecoded`).
    public var isDecoded: Bool { frames.allSatisfy { $0.buffer.format == .argb32Premultiplied } }

    /// Bytes of pixel memory held by the decoded frames: the cost a memory cache charges. (A
    /// lazy animation's source holds its encoded data and a few canvases besides.)
    public var byteCount: Int { frames.reduce(0) { $0 + $1.buffer.bytes.count } }

    /// Returns the image with every frame in `format` (see ``PixelBuffer/converted(to:)``); a
    /// lazy animation's frames are converted as they are decoded.
    public func converted(to format: PixelFormat) -> Image {
        var copy = self
        copy.frames = frames.map { ImageFrame(buffer: $0.buffer.converted(to: format), duration: $0.duration) }
        if let animation, animation.pixelFormat != format {
            copy.animation = TransformedAnimation(animation, canvasSize: animation.canvasSize, pixelFormat: format) {
                $0.converted(to: format)
            }
        }
        return copy
    }

    /// Returns the image with its orientation applied to every frame and reset to `.up`.
    ///
    /// An EXIF block in the metadata has its orientation tag rewritten to 1, so the result
    /// is not turned twice by a later reader.
    public func applyingOrientation() -> Image {
        guard orientation != .up else { return self }
        var copy = self
        let orientation = orientation
        copy.frames = frames.map { ImageFrame(buffer: $0.buffer.applyingOrientation(orientation), duration: $0.duration) }
        if let animation {
            copy.animation = TransformedAnimation(
                animation, canvasSize: orientation.orientedSize(animation.canvasSize),
                pixelFormat: animation.pixelFormat
            ) { $0.applyingOrientation(orientation) }
        }
        copy.orientation = .up
        if let exif = metadata.exif { copy.metadata.exif = EXIF.settingOrientation(.up, in: exif) }
        // The gain map shares the image's orientation.
        if var map = metadata.gainMap {
            map.pixels = map.pixels.applyingOrientation(orientation)
            copy.metadata.gainMap = map
        }
        return copy
    }
}
