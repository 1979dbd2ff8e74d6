// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Bounds a decoder enforces from the header, before it allocates for the pixels.
///
/// The defaults accept every real photo and animation while refusing decompression
/// bombs: 100 megapixels per decoded frame, 10 000 frames, 1 000 megapixels over all frames,
/// 256 MiB of input. Vector documents (SVG, PDF) are bounded too: 10 000 pages, 1 000 000
/// elements, nesting 1 000 deep, 20 seconds of rendering. Set a field to `Int.max` (or the
/// render time to `.infinity`) to lift that bound.
///
/// ``maxPixels`` bounds what is allocated. A decoder that shrinks while it decodes (JPEG's DCT
/// scaling, WebP's scaled decoding, PNG rows streamed into a resampler) checks it against the
/// reduced size, and the size the file declares against the much higher ``maxSourcePixels``,
/// which bounds the work of reading it. So a 256-pixel thumbnail of a 280-megapixel JPEG is
/// made within the defaults, as `vipsthumbnail` makes it, while a full decode of it is refused.
public struct DecodingLimits: Sendable, Hashable, Codable {
    /// Which limit a value broke.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Pixels in one decoded frame (width × height).
        case maxPixels
        /// Pixels a source declares when it is decoded at a reduced size.
        case maxSourcePixels
        /// Frames in an animation.
        case maxFrames
        /// Pixels summed over every frame.
        case maxTotalFramePixels
        /// Bytes of encoded input.
        case maxBytes
        /// Bytes of one pixel buffer (a memory-arithmetic bound, not configurable).
        case bytes
        /// Pages in a document (PDF).
        case maxPages
        /// Elements in a vector document (SVG), counted with entities expanded.
        case maxElements
        /// How deeply a vector document's elements nest (SVG).
        case maxNestingDepth
        /// Milliseconds a vector render may run (SVG, PDF).
        case maxRenderTime

        var noun: String {
            switch self {
            case .maxPixels: "pixel count"
            case .maxSourcePixels: "declared pixel count"
            case .maxFrames: "frame count"
            case .maxTotalFramePixels: "pixel count over all frames"
            case .maxBytes: "input size in bytes"
            case .bytes: "pixel buffer size in bytes"
            case .maxPages: "page count"
            case .maxElements: "element count"
            case .maxNestingDepth: "element nesting depth"
            case .maxRenderTime: "render time in milliseconds"
            }
        }
    }

    /// Most pixels one decoded frame may have. Default 100 000 000.
    public var maxPixels: Int
    /// Most pixels a source may declare when a decoder shrinks it while decoding, so that only
    /// the reduced frame is allocated. Default 1 000 000 000. A value under ``maxPixels`` counts
    /// as ``maxPixels``.
    public var maxSourcePixels: Int
    /// Most frames an animation may have. Default 10 000.
    public var maxFrames: Int
    /// Most pixels summed over all frames. Default 1 000 000 000.
    public var maxTotalFramePixels: Int
    /// Most bytes of encoded input. Default 256 MiB.
    public var maxBytes: Int
    /// Most pages a document may have (PDF). Default 10 000.
    public var maxPages: Int
    /// Most elements a vector document may have, with its XML entities expanded (SVG).
    /// Default 1 000 000, librsvg's own ceiling.
    public var maxElements: Int
    /// Deepest element nesting a vector document may have (SVG). Default 1 000.
    public var maxNestingDepth: Int
    /// Most seconds one vector render may take (SVG, PDF). A render that runs past it stops at
    /// its next drawing operation and fails with `.exceedsLimit(.maxRenderTime, …)`.
    /// Default 20; `.infinity` lifts it.
    public var maxRenderSeconds: Double

    /// Creates limits; each defaults to the documented default.
    public init(
        maxPixels: Int = 100_000_000, maxFrames: Int = 10_000,
        maxTotalFramePixels: Int = 1_000_000_000, maxBytes: Int = 256 << 20,
        maxSourcePixels: Int = 1_000_000_000, maxPages: Int = 10_000, maxElements: Int = 1_000_000,
        maxNestingDepth: Int = 1_000, maxRenderSeconds: Double = 20
    ) {
        self.maxPixels = maxPixels
        self.maxSourcePixels = maxSourcePixels
        self.maxFrames = maxFrames
        self.maxTotalFramePixels = maxTotalFramePixels
        self.maxBytes = maxBytes
        self.maxPages = maxPages
        self.maxElements = maxElements
        self.maxNestingDepth = maxNestingDepth
        self.maxRenderSeconds = maxRenderSeconds
    }

    /// The defaults.
    public static let `default` = DecodingLimits()
    /// No limits beyond memory arithmetic. Use only for trusted input.
    public static let unlimited = DecodingLimits(
        maxPixels: .max, maxFrames: .max, maxTotalFramePixels: .max, maxBytes: .max,
        maxSourcePixels: .max, maxPages: .max, maxElements: .max,
        maxNestingDepth: .max, maxRenderSeconds: .infinity)

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

    /// Checks a frame a decoder will produce at a reduced size: the declared `width`×`height`
    /// against ``maxSourcePixels`` (or ``maxPixels``, whichever is higher), and the
    /// `decoded` size, which is what gets allocated, against ``maxPixels``. With `decoded`
    /// equal to the declared size this is ``check(width:height:format:)``.
    ///
    /// - Throws: as ``check(width:height:format:)``; `.exceedsLimit(.maxSourcePixels, …)` for a
    ///   declared size over the source ceiling.
    public func check(width: Int, height: Int, decoded: PixelSize, format: ImageFormat) throws {
        guard decoded.width != width || decoded.height != height else {
            return try check(width: width, height: height, format: format)
        }
        guard width > 0, height > 0 else {
            throw ImageCodingError.corrupt(format, "image size \(width)x\(height) is empty")
        }
        let (p, o) = width.multipliedReportingOverflow(by: height)
        let declared = o ? Int.max : p, ceiling = max(maxSourcePixels, maxPixels)
        if declared > ceiling { throw ImageCodingError.exceedsLimit(.maxSourcePixels, found: declared, limit: ceiling) }
        try check(width: decoded.width, height: decoded.height, format: format)
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
