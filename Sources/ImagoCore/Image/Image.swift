/// A decoded image: one frame for a still, several for an animation, plus how to show it.
///
/// `Image` is a value type and `Sendable`. Pixels are stored as decoded, *before*
/// ``orientation`` is applied (as `UIImage` keeps a `CGImage` and an orientation);
/// ``orientedSize`` is the size a viewer shows.
public struct Image: Sendable, Equatable {
    /// The frames, never empty. A still image has exactly one.
    public private(set) var frames: [ImageFrame]
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
    ///   - hasAlpha: Defaults to whether `buffer`'s format has an alpha channel.
    public init(buffer: PixelBuffer, orientation: ImageOrientation = .up, scale: Double = 1,
                format: ImageFormat? = nil, metadata: ImageMetadata = ImageMetadata(),
                hasAlpha: Bool? = nil, isIncremental: Bool = false) {
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
    /// - Parameter loopCount: Total plays; 0 means forever. Default 0 for several frames, 1 for one.
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` when `frames` is empty or the frames
    ///   differ in size.
    public init(frames: [ImageFrame], loopCount: Int? = nil, orientation: ImageOrientation = .up,
                scale: Double = 1, format: ImageFormat? = nil, metadata: ImageMetadata = ImageMetadata(),
                hasAlpha: Bool? = nil) throws {
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

    /// The first frame's pixels: the image itself for a still.
    public var buffer: PixelBuffer { frames[0].buffer }

    /// The stored size in pixels, before orientation.
    public var pixelSize: PixelSize { frames[0].buffer.size }

    /// The size a viewer shows, after orientation.
    public var orientedSize: PixelSize { orientation.orientedSize(pixelSize) }

    /// Whether the image has more than one frame.
    public var isAnimated: Bool { frames.count > 1 }

    /// Whether every frame is in the ready-to-draw display format,
    /// ``PixelFormat/argb32Premultiplied`` (SDWebImage's `sd_isDecoded`).
    public var isDecoded: Bool { frames.allSatisfy { $0.buffer.format == .argb32Premultiplied } }

    /// Bytes of pixel memory held by all frames: the cost a memory cache charges.
    public var byteCount: Int { frames.reduce(0) { $0 + $1.buffer.bytes.count } }

    /// Returns the image with every frame in `format` (see ``PixelBuffer/converted(to:)``).
    public func converted(to format: PixelFormat) -> Image {
        var copy = self
        copy.frames = frames.map { ImageFrame(buffer: $0.buffer.converted(to: format), duration: $0.duration) }
        return copy
    }

    /// Returns the image with its orientation applied to every frame and reset to `.up`.
    ///
    /// An EXIF block in the metadata has its orientation tag rewritten to 1, so the result
    /// is not turned twice by a later reader.
    public func applyingOrientation() -> Image {
        guard orientation != .up else { return self }
        var copy = self
        copy.frames = frames.map { ImageFrame(buffer: $0.buffer.applyingOrientation(orientation), duration: $0.duration) }
        copy.orientation = .up
        if let exif = metadata.exif { copy.metadata.exif = EXIF.settingOrientation(.up, in: exif) }
        return copy
    }
}
