// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// What an image's header says, read without decoding its pixels.
///
/// This is the record behind `imago info`. Sizes are as stored, before orientation.
public struct ImageInfo: Sendable, Hashable, Codable {
    /// The detected format.
    public var format: ImageFormat
    /// Stored width in pixels.
    public var width: Int
    /// Stored height in pixels.
    public var height: Int
    /// EXIF orientation, 1–8; `.up` when absent or out of range.
    public var orientation: ImageOrientation
    /// Frames in the file; 1 for a still.
    public var frameCount: Int
    /// Total plays: 0 means forever; 1 for a still.
    public var loopCount: Int
    /// Seconds each frame is shown; `[0]` for a still. GIF, APNG, WebP and AVIF give the time
    /// browsers show a frame for (10 ms or less shows for 100 ms, ``FrameTiming/displayedDuration(_:)``);
    /// JPEG XL gives the file's own durations, 0 included.
    public var durations: [Double]
    /// Whether the image has an alpha channel or transparency.
    public var hasAlpha: Bool
    /// Bits per channel as stored (1–16).
    public var bitDepth: Int
    /// Whether an ICC profile is embedded.
    public var hasICCProfile: Bool
    /// Whether the file is progressive (JPEG) or interlaced (PNG, GIF).
    public var progressive: Bool
    /// Pages in a document (PDF), each decoded on its own through `DecodeOptions.page`; 1 for
    /// every other format. Pages are not animation frames: ``frameCount`` stays 1.
    public var pageCount: Int
    /// Whether the pixels are stored as gray (a gray JPEG, a gray or gray+alpha PNG). `false`
    /// when the format's header does not say, or for colour.
    public var isGrayscale: Bool
    /// The largest thumbnail stored in the file beside the image (HEIF and AVIF read by
    /// libheif), as it is shown; `nil` when there is none or the format does not say.
    public var embeddedThumbnailSize: PixelSize?
    /// Whether the file says it carries an HDR gain map (an Ultra HDR JPEG: an MPF segment with
    /// `hdrgm` XMP or ISO 21496-1 metadata), which `DecodeOptions.gainMap` reads. Default `false`.
    public var hasGainMap = false

    /// Creates a header record; the optional fields default to a still, opaque, 8-bit sRGB image.
    public init(
        format: ImageFormat, width: Int, height: Int, orientation: ImageOrientation = .up,
        frameCount: Int = 1, loopCount: Int = 1, durations: [Double] = [0], hasAlpha: Bool = false,
        bitDepth: Int = 8, hasICCProfile: Bool = false, progressive: Bool = false, isGrayscale: Bool = false,
        pageCount: Int = 1, embeddedThumbnailSize: PixelSize? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.frameCount = frameCount
        self.loopCount = loopCount
        self.durations = durations
        self.hasAlpha = hasAlpha
        self.bitDepth = bitDepth
        self.hasICCProfile = hasICCProfile
        self.progressive = progressive
        self.isGrayscale = isGrayscale
        self.pageCount = pageCount
        self.embeddedThumbnailSize = embeddedThumbnailSize
    }

    /// The stored size.
    public var pixelSize: PixelSize { PixelSize(width: width, height: height) }
}
