// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

/// How to decode: output pixel format, size, colour handling and limits.
public struct DecodeOptions: Sendable, Hashable {
    /// The pixel format of decoded frames. Default `PixelFormat.argb32Premultiplied`,
    /// the ready-to-draw display format (decode-for-display); `PixelFormat.rgba8` gives
    /// straight alpha. Other formats are produced by converting after decoding.
    public var pixelFormat: PixelFormat
    /// Points-to-pixels scale recorded on the image. Default 1.
    public var scale: Double
    /// Decode only the first frame of an animation. Default `false`.
    public var firstFrameOnly: Bool
    /// Decode an animation's frames on demand: the image holds frame 0 and an
    /// `AnimatedImage` source that keeps the encoded data and composites
    /// later frames when asked (YYImage, `SDAnimatedImage`), so memory holds a few canvases
    /// rather than every frame. Default `false`: every frame is decoded now (SDWebImage's
    /// animated `UIImage`), within ``limits``.
    public var decodesFramesLazily: Bool
    /// A size the caller will show the image at. Decoders that can shrink while decoding
    /// (JPEG DCT scaling, WebP scaled decoding) pick the smallest scale whose result still
    /// covers this size; the result may be larger than this, never smaller (unless the image
    /// itself is). Default `nil`: full size.
    public var thumbnailPixelSize: PixelSize?
    /// With ``thumbnailPixelSize``: `true` (default) fits the image inside the size keeping
    /// its aspect ratio; `false` covers each dimension independently.
    public var preserveAspectRatio: Bool
    /// Convert pixels with an embedded ICC profile to sRGB (lcms2), and CMYK to RGB.
    /// Default `true`. With `false`, pixels keep their values and the profile stays in
    /// `Image.metadata`.
    public var colorManagement: Bool
    /// Limits checked from the header before allocating. Default `DecodingLimits.default`.
    public var limits: DecodingLimits
    /// Decode one page or frame only, as a still: page N of a multi-page TIFF at its own size,
    /// orientation and profile, or frame N of an animation composited as it is shown. Default
    /// `nil`: every frame (a multi-page TIFF's pages then share a canvas of the largest page's
    /// size). Through ``ImageCoderRegistry/decode(_:options:)-(Data,_)``, a page past the last is an
    /// `ImageCodingError.invalidArgument(_:)`.
    public var page: Int?
    /// The resolution a vector format (SVG, PDF) is rendered at when no
    /// ``thumbnailPixelSize`` is asked for. Default `nil`: the intrinsic size, which is SVG's
    /// CSS pixels (96 dpi) and PDF's points (72 dpi). With a ``thumbnailPixelSize`` the vector
    /// is drawn at that size instead, larger than its intrinsic size if asked, never as a
    /// scaled raster. Raster formats ignore it.
    public var renderDPI: Double?
    /// The format the caller has already told from the input (the registry and the planner set
    /// it), so a decoder need not sniff the bytes again; `nil` when unknown.
    package var sourceFormat: ImageFormat?
    /// A row-streaming decode hands its rows to a helper thread, a band at a time, which
    /// finishes them (colour conversion, premultiplying) and runs the consumer (an encoder), so
    /// the decode and the encode overlap on two cores (PNG; see `RowHandoff`). Default `false`:
    /// everything on the calling thread.
    package var rowHelperThread = false

    /// Decode the largest thumbnail the file stores beside the image, instead of the image
    /// (HEIF and AVIF read by libheif; imgproxy's `enforce_thumbnail`), when there is one;
    /// other formats, and files without one, decode as usual. Default `false`.
    public var embeddedThumbnail = false

    /// Also read an Ultra HDR JPEG's gain map (the second image its MPF names, with `hdrgm`
    /// XMP or ISO 21496-1 metadata) into `ImageMetadata.gainMap`, at its stored size. Other
    /// formats and JPEGs without one decode as usual. Default `false`.
    public var gainMap = false

    /// The threads a decoder may run at once, the caller's included, for the decoders that can
    /// use more than one: a large PDF page's bands (``PDFCoder``), libjxl's runner (images of a
    /// megapixel or more), libheif's grid tiles, libwebp's filtering thread, and the conversion
    /// of a large image through its colour profile, in bands. The pixels are the
    /// same however many threads. Default `nil`: the cores, up to 4. `1` keeps the decode on the
    /// calling thread: work in the background, which must not take more than its lane.
    public var maxThreads: Int?

    /// Creates options; every parameter defaults as documented on its property.
    public init(
        pixelFormat: PixelFormat = .argb32Premultiplied, scale: Double = 1, firstFrameOnly: Bool = false,
        decodesFramesLazily: Bool = false, thumbnailPixelSize: PixelSize? = nil, preserveAspectRatio: Bool = true,
        colorManagement: Bool = true, limits: DecodingLimits = .default
    ) {
        self.pixelFormat = pixelFormat
        self.scale = scale
        self.firstFrameOnly = firstFrameOnly
        self.decodesFramesLazily = decodesFramesLazily
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.colorManagement = colorManagement
        self.limits = limits
    }

    /// The defaults.
    public static let `default` = DecodeOptions()

    /// The largest integer shrink factor `d` from `choices` for which `size / d` still covers
    /// the thumbnail size; 1 when no thumbnail is asked for or none fits.
    func shrinkFactor(for size: PixelSize, choices: [Int]) -> Int {
        guard let target = thumbnailPixelSize, target.width > 0, target.height > 0 else { return 1 }
        let needW: Double, needH: Double
        if preserveAspectRatio {
            let f = min(Double(target.width) / Double(size.width), Double(target.height) / Double(size.height))
            guard f < 1 else { return 1 }
            needW = (Double(size.width) * f).rounded(.up)
            needH = (Double(size.height) * f).rounded(.up)
        } else {
            needW = Double(target.width)
            needH = Double(target.height)
        }
        for d in choices.sorted(by: >) where d > 1 {
            let w = (Double(size.width) / Double(d)).rounded(.up), h = (Double(size.height) / Double(d)).rounded(.up)
            if w >= needW, h >= needH { return d }
        }
        return 1
    }
}
