/// Bounds a decoder enforces from the header, before it allocates for the pixels.
///
/// The defaults accept every real photo and animation while refusing decompression
/// bombs: 100 megapixels per frame, 10 000 frames, 1 000 megapixels over all frames,
/// 256 MiB of input. Set a field to `Int.max` to lift that bound.
public struct DecodingLimits: Sendable, Hashable {
    /// Which limit a value broke.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Pixels in one frame (width × height).
        case maxPixels
        /// Frames in an animation.
        case maxFrames
        /// Pixels summed over every frame.
        case maxTotalFramePixels
        /// Bytes of encoded input.
        case maxBytes
        /// Bytes of one pixel buffer (a memory-arithmetic bound, not configurable).
        case bytes

        var noun: String {
            switch self {
            case .maxPixels: "pixel count"
            case .maxFrames: "frame count"
            case .maxTotalFramePixels: "pixel count over all frames"
            case .maxBytes: "input size in bytes"
            case .bytes: "pixel buffer size in bytes"
            }
        }
    }

    /// Most pixels one frame may have. Default 100 000 000.
    public var maxPixels: Int
    /// Most frames an animation may have. Default 10 000.
    public var maxFrames: Int
    /// Most pixels summed over all frames. Default 1 000 000 000.
    public var maxTotalFramePixels: Int
    /// Most bytes of encoded input. Default 256 MiB.
    public var maxBytes: Int

    /// Creates limits; each defaults to the documented default.
    public init(maxPixels: Int = 100_000_000, maxFrames: Int = 10_000,
                maxTotalFramePixels: Int = 1_000_000_000, maxBytes: Int = 256 << 20) {
        self.maxPixels = maxPixels
        self.maxFrames = maxFrames
        self.maxTotalFramePixels = maxTotalFramePixels
        self.maxBytes = maxBytes
    }

    /// The defaults.
    public static let `default` = DecodingLimits()
    /// No limits beyond memory arithmetic. Use only for trusted input.
    public static let unlimited = DecodingLimits(maxPixels: .max, maxFrames: .max, maxTotalFramePixels: .max, maxBytes: .max)

    /// Checks a frame size from a header.
    ///
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` for a dimension under 1 and
    ///   ``ImageCodingError/exceedsLimit(_:found:limit:)`` for too many pixels (an
    ///   overflowing product counts as `Int.max`).
    public func check(width: Int, height: Int, format: ImageFormat) throws {
        guard width > 0, height > 0 else {
            throw ImageCodingError.corrupt(format, "image size \(width)x\(height) is empty")
        }
        let (p, o) = width.multipliedReportingOverflow(by: height)
        let pixels = o ? Int.max : p
        if pixels > maxPixels { throw ImageCodingError.exceedsLimit(.maxPixels, found: pixels, limit: maxPixels) }
    }

    /// Checks the size of the encoded input.
    ///
    /// - Throws: ``ImageCodingError/exceedsLimit(_:found:limit:)`` with `.maxBytes`.
    public func check(inputBytes: Int) throws {
        if inputBytes > maxBytes { throw ImageCodingError.exceedsLimit(.maxBytes, found: inputBytes, limit: maxBytes) }
    }

    /// Checks a frame count, and the total pixels of that many frames of one size.
    ///
    /// - Throws: ``ImageCodingError/exceedsLimit(_:found:limit:)`` with `.maxFrames` or
    ///   `.maxTotalFramePixels`.
    public func check(frameCount: Int, framePixels: Int) throws {
        if frameCount > maxFrames { throw ImageCodingError.exceedsLimit(.maxFrames, found: frameCount, limit: maxFrames) }
        let (t, o) = frameCount.multipliedReportingOverflow(by: framePixels)
        let total = o ? Int.max : t
        if total > maxTotalFramePixels {
            throw ImageCodingError.exceedsLimit(.maxTotalFramePixels, found: total, limit: maxTotalFramePixels)
        }
    }
}
