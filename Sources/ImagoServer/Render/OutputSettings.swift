// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

/// What a result is written as: its format (and what `Accept` may change), quality, encoder
/// efforts, AVIF made later, metadata, colour and SVG handling. ``ServerConfiguration/output``;
/// the render plan takes it.
public struct OutputSettings: Sendable {
    /// `IMAGO_COLOR_PROFILES_DIR`: where `color_profile` finds the profiles it names by file.
    /// Default `/usr/share/color/icc`, as imgproxy Pro's.
    public var colorProfilesDirectory = "/usr/share/color/icc"
    /// `IMAGO_PRESERVE_HDR`: an Ultra HDR JPEG answered as JPEG keeps its gain map, brought to
    /// the result's geometry (crop, resize, turns, padding), unless `preserve_hdr` says. Default
    /// `true`; imgproxy's is `false` (its setting keeps high bit depths, which Imago's 8-bit
    /// pipeline does not have).
    public var preserveHDR = true
    /// `IMAGO_USE_LINEAR_COLORSPACE`: the resize works in linear light, so fine patterns keep the
    /// brightness they show (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`; libvips resizes in
    /// scRGB). Slower. Default `false`.
    public var useLinearColorspace = false
    /// `IMAGO_QUALITY`: lossy quality, 1–100. Default 80.
    public var quality: Int = 80
    /// `IMAGO_FORMAT_QUALITY`: per format, `webp=79,avif=63`, over ``quality``; what the setting
    /// names replaces these defaults, the rest stay. Default imgproxy's: WebP 79, AVIF 63,
    /// JPEG XL 77, which give about the visual quality of a JPEG at ``quality`` 80.
    public var formatQuality: [ImageFormat: Int] = [.webp: 79, .avif: 63, .jxl: 77]
    /// `IMAGO_QUALITY_MAPPING`: `none` or `visual` (see ``QualityMapping``). Default `none`,
    /// imgproxy's.
    public var qualityMapping = QualityMapping.none
    /// `IMAGO_AUTO_WEBP`: answer with WebP when the client's `Accept` takes it and the URL names
    /// no format. Default `false`.
    public var autoWebP = false
    /// `IMAGO_AUTO_AVIF`: the same for AVIF, preferred over WebP. Default `false`.
    public var autoAVIF = false
    /// `IMAGO_WEBP_EFFORT`: libwebp's method, 0 (fastest) to 6 (smallest), for lossy and
    /// lossless WebP results. Default 4 (imgproxy's and libwebp's).
    public var webpEffort = 4
    /// `IMAGO_AVIF_SPEED`: libavif's speed, 2 (slowest, smallest) to 10, for AVIF made while the
    /// client waits: a URL that names AVIF, or negotiated AVIF with ``avifLater`` off. Default 8
    /// (imgproxy's).
    public var avifSpeed = 8
    /// `IMAGO_AVIF_LATER`: AVIF negotiated by `Accept` (``autoAVIF``, ``enforceAVIF``) and not
    /// made yet is made in the background, at ``avifLaterSpeed`` and low priority, while the
    /// client gets a fast answer at once (see ``avifLaterFirst``), with a `max-age` of
    /// ``avifLaterTTL`` and `stale-while-revalidate`; once the AVIF is in the result cache it is
    /// the answer. The background encodes are bounded (one fewer than the workers, at least one);
    /// past that, a request gets the fast answer and asks again later. Default `true`; `false`
    /// makes AVIF while the client waits, as imgproxy does.
    public var avifLater = true
    /// What a client that takes AVIF gets while ``avifLater`` makes its AVIF.
    public enum AVIFLaterFirst: String, Sendable, CaseIterable {
        /// An AVIF at `OutputSettings.fastAVIFSpeed` (libavif's speed 9), its quality
        /// raised by as much as that speed needs over ``OutputSettings/avifLaterSpeed`` for
        /// the same SSIMULACRA2 score (`QualityMapping.avifSpeedOffset(_:)`: 4 over speed 6).
        /// At equal score such an AVIF is 0.74x a WebP's bytes for less CPU than the WebP
        /// (docs/benchmarks.md).
        case avif
        /// The next format the client accepts (WebP, else the fallback): AVIF only once made.
        case next
    }
    /// `IMAGO_AVIF_LATER_FIRST`: `avif` or `next` (see ``AVIFLaterFirst``). Default `avif`.
    public var avifLaterFirst = AVIFLaterFirst.avif
    /// libavif's speed of the fast AVIF answered while the smaller one is made: 9.
    package static let fastAVIFSpeed = 9
    /// `IMAGO_AVIF_LATER_SPEED`: libavif's speed for AVIF made in the background. Default 6,
    /// where AVIF is clearly smaller than WebP at equal visual quality (docs/benchmarks.md).
    public var avifLaterSpeed = 6
    /// `IMAGO_AVIF_LATER_TTL`: seconds a fast answer given while its AVIF is being made may be
    /// cached (`max-age`; `stale-while-revalidate` allows the usual ``HTTPSettings/ttl`` after). Default 60.
    public var avifLaterTTL = 60
    /// `IMAGO_AUTO_JXL`: the same for JPEG XL (stills), preferred over AVIF. Default `false`.
    public var autoJXL = false
    /// `IMAGO_ENFORCE_WEBP`, `IMAGO_ENFORCE_AVIF`, `IMAGO_ENFORCE_JXL`: as `AUTO`, and even over
    /// a format the URL names (imgproxy's). Default `false`.
    public var enforceWebP = false, enforceAVIF = false, enforceJXL = false
    /// `IMAGO_PREFERRED_FORMATS`: what a result is written in when the URL names no format and
    /// the source's own format is not among them: the first that holds what the result needs
    /// (animation, transparency). Default `jpeg,png,gif` (imgproxy's).
    public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
    /// `IMAGO_KEEP_SOURCE_FORMAT`: without a format in the URL, keep the source's format whenever
    /// it can be written (and animated), instead of ``preferredFormats``. Default `false`.
    public var keepSourceFormat = false
    /// `IMAGO_ENFORCE_THUMBNAIL`: a HEIF or AVIF source that stores a thumbnail beside the image
    /// is processed from the thumbnail, as if it were the source (imgproxy's; the URL's
    /// `enforce_thumbnail` overrides it). Default `false`.
    public var enforceThumbnail = false
    /// `IMAGO_SKIP_PROCESSING_FORMATS`: source formats sent as they are when the URL asks for no
    /// other format, as if every URL said `skp:` with them (imgproxy's). Default none.
    public var skipProcessingFormats: Set<ImageFormat> = []
    /// `IMAGO_ALWAYS_RASTERIZE_SVG`: an SVG source with no format asked is drawn and written in
    /// a raster format, as any other source; `false` (imgproxy's default) sends it as SVG,
    /// unprocessed (sanitised, see ``sanitizeSVG``). Default `false`.
    public var alwaysRasterizeSVG = false
    /// `IMAGO_SANITIZE_SVG`: SVG sent as SVG (no format asked, `f:svg`, `skp:svg`) is sanitised
    /// first (`SVGSanitizer`: no scripts, event attributes or unsafe links). Default `true`.
    public var sanitizeSVG = true
    /// Whether answers may depend on `Accept` (any `AUTO` or `ENFORCE` format on, or the
    /// efficient format policy).
    package var negotiatesByAccept: Bool {
        autoWebP || autoAVIF || autoJXL || enforceWebP || enforceAVIF || enforceJXL || formatPolicy == .efficient
    }
    /// How the service spends its encoders' effort on results whose format it chooses.
    public enum FormatPolicy: String, Sendable, CaseIterable {
        /// imgproxy's answers: every result encoded once, in the negotiated (or preferred)
        /// format at its quality, as the client waits (with ``OutputSettings/avifLater`` for AVIF).
        case imgproxy
        /// Effort follows popularity. A still result's first answer is a progressive JPEG with
        /// optimised Huffman tables (and N. Robidoux's quantisation tables) at the visual
        /// quality (SSIMULACRA2) the imgproxy answer would have had, whatever the client
        /// accepts: a few milliseconds of encoding. For a client that takes AVIF, an AVIF at
        /// libavif's speed 9 is made on the result's second request (already on its first when
        /// its source was asked before) and sent when smaller. Once it is asked
        /// ``OutputSettings/efficientHotAsks`` times, the format of fewest bytes the client takes
        /// is made in the background, on at most one fewer than the workers, at its slowest
        /// useful effort (AVIF at ``OutputSettings/efficientAVIFSpeed``, WebP at
        /// ``OutputSettings/efficientWebPEffort``). Each is kept only when it is smaller than the
        /// answer it replaces, and answered from then on; a quick AVIF that lost more often than it
        /// won on a source is not tried at its other sizes. Answers not final are provisional
        /// (`max-age` of ``OutputSettings/avifLaterTTL`` with `stale-while-revalidate`), so a CDN
        /// picks up the smaller one; the ETag changes with the bytes. Animations, results that
        /// may be transparent, a format the URL names and a preserved gain map are answered as
        /// imgproxy would.
        case efficient
    }
    /// `IMAGO_FORMAT_POLICY`: `imgproxy` or `efficient` (see ``FormatPolicy``). Default
    /// `imgproxy`.
    public var formatPolicy = FormatPolicy.imgproxy
    /// `IMAGO_JPEG_PROGRESSIVE`: JPEG results are progressive (imgproxy's
    /// `IMGPROXY_JPEG_PROGRESSIVE`). Default `false`. The efficient policy's first answers are
    /// progressive whatever it says.
    public var jpegProgressive = false
    /// `IMAGO_JPEG_QUANTIZATION`: the quantisation tables of JPEG results, `standard` or
    /// `robidoux` (`EncodeOptions.JPEGQuantization`). Default `standard` (imgproxy's). The
    /// efficient policy's first answers use `robidoux`, their quality raised to score as the
    /// standard's would (`QualityMapping.robidouxQuality(_:)`).
    public var jpegQuantization = EncodeOptions.JPEGQuantization.standard
    /// `IMAGO_EFFICIENT_WEBP_EFFORT`: libwebp's method, 0 to 6, of the WebP the efficient policy
    /// makes in the background for a hot result (see ``efficientHotAsks``). Default 6.
    public var efficientWebPEffort = 6
    /// `IMAGO_EFFICIENT_AVIF_SPEED`: libavif's speed, 2 to 10, of the AVIF the efficient policy
    /// makes in the background for a hot result (see ``efficientHotAsks``). Default 6.
    public var efficientAVIFSpeed = 6
    /// `IMAGO_EFFICIENT_HOT_ASKS`: requests after which the efficient policy counts a result as
    /// hot and makes its smallest answer at the slowest useful effort (AVIF at
    /// ``efficientAVIFSpeed``, WebP at ``efficientWebPEffort``), kept if smaller than the one it
    /// replaces. Default 30: about where the bytes it saves on each later request (a fifth of a
    /// speed-9 AVIF's) pay for its encode (7 times the CPU) at cloud prices for CPU and
    /// egress; on a 4,000-request trace, 10 cost 17% more CPU per request for 2% fewer bytes
    /// (docs/benchmarks.md).
    public var efficientHotAsks = 30
    /// `IMAGO_STRIP_METADATA`. Default `true`.
    public var stripMetadata = true
    /// `IMAGO_KEEP_COPYRIGHT`: keep EXIF `Copyright` and `Artist` when stripping metadata. Default `true`.
    public var keepCopyright = true
    /// `IMAGO_STRIP_COLOR_PROFILE`: convert to sRGB and drop the profile. Default `true`.
    public var stripColorProfile = true
    /// `IMAGO_AUTO_ROTATE`: apply the EXIF orientation. Default `true`.
    public var autoRotate = true

    /// The defaults.
    public init() {}
}
