// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

/// What a service URL asks for: imgproxy's processing options, typed. Every property defaults
/// to imgproxy's default, and the ones left at their defaults are not written by
/// ``canonicalPath``.
///
/// ```swift
/// var options = ProcessingOptions()
/// options.resizingType = .fill
/// options.width = 300
/// options.height = 200
/// options.gravity = .init(.smart)
/// options.format = .webp
/// ```
public struct ProcessingOptions: Sendable, Hashable {
    /// How the image meets the requested size.
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Fit inside the size, keeping the aspect ratio (the default).
        case fit
        /// Cover the size, keeping the aspect ratio, and crop what projects by the gravity.
        case fill
        /// As `fill`, but an image smaller than the size is cropped to its aspect ratio, not enlarged.
        case fillDown = "fill-down"
        /// Exactly the size, not keeping the aspect ratio.
        case force
        /// `fill` when source and target have the same orientation, `fit` otherwise.
        case auto
    }

    /// Where to keep the image when part of it is cut (or where to place it when extended).
    public struct Gravity: Sendable, Hashable {
        /// The kind of gravity.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            case north = "no", south = "so", east = "ea", west = "we"
            case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
            case center = "ce"
            /// The most interesting part, by entropy (`sm`).
            case smart = "sm"
            /// A focus point: `x` and `y` are fractions of the width and height (`fp`).
            case focusPoint = "fp"
            /// Detected objects (`obj` and `objw`, imgproxy Pro's): the crop keeps the most of
            /// them, by ``Gravity/objectWeights``. Imago detects faces (class `face`).
            case objects = "obj"
        }

        /// The kind.
        public var kind: Kind
        /// The offset along x: pixels when at least 1, a fraction of the width when under 1.
        /// For a focus point, the point's x as a fraction.
        public var x: Double
        /// The offset along y, as ``x``.
        public var y: Double
        /// For ``Kind/objects``: the weight of each class kept (`obj:face` weighs `face` 1;
        /// `objw:all:2:face:3`); `all` weighs every class not named. Empty (`obj` alone): every
        /// detected object, weight 1.
        public var objectWeights: [String: Double]

        /// Creates a gravity; offsets default to 0 (a focus point to the centre, 0.5), object
        /// weights to none.
        public init(_ kind: Kind, x: Double? = nil, y: Double? = nil, objectWeights: [String: Double] = [:]) {
            self.kind = kind
            self.x = x ?? (kind == .focusPoint ? 0.5 : 0)
            self.y = y ?? (kind == .focusPoint ? 0.5 : 0)
            self.objectWeights = objectWeights
        }

        /// Centre, no offsets: the default.
        public static let center = Gravity(.center)
    }

    /// Where kept objects go (`objects_position`): a gravity (compass with offsets, or `fp`), or
    /// their place in the source kept (`prop`).
    public struct ObjectsPosition: Sendable, Hashable {
        /// The gravity; unused when ``proportional``.
        public var gravity: Gravity
        /// `prop`: the objects' offsets in the result proportional to theirs in the source.
        public var proportional: Bool

        /// Creates a position; `proportional` defaults to `false`.
        public init(gravity: Gravity, proportional: Bool = false) {
            self.gravity = gravity
            self.proportional = proportional
        }
    }

    /// Objects to blur or outline (`blur_detections`, `draw_detections`).
    public struct Detections: Sendable, Hashable {
        /// The blur's sigma; 0 for outlines.
        public var sigma: Double
        /// The classes acted on; empty: every detected object.
        public var classes: [String]

        /// Creates the setting; `classes` default to every object.
        public init(sigma: Double = 0, classes: [String] = []) {
            self.sigma = sigma
            self.classes = classes
        }
    }

    /// A region cut before resizing (`crop`).
    public struct Crop: Sendable, Hashable {
        /// Pixels when at least 1, a fraction of the width when under 1, the whole width when 0.
        public var width: Double
        /// As ``width``, for the height.
        public var height: Double
        /// Where the region sits; `nil` uses the ``ProcessingOptions/gravity``.
        public var gravity: Gravity?

        /// Creates a crop; `gravity` defaults to `nil`, the options' gravity.
        public init(width: Double, height: Double, gravity: Gravity? = nil) {
            self.width = width
            self.height = height
            self.gravity = gravity
        }
    }

    /// Removing a uniform border (`trim`).
    public struct Trim: Sendable, Hashable {
        /// How far (0–255 per channel) a pixel may differ from the border colour and still be cut.
        public var threshold: Double
        /// The colour to cut; `nil` takes the top-left pixel's.
        public var color: RGBA8?
        /// Cut as much from the left as from the right (the smaller of the two).
        public var equalHorizontal: Bool
        /// Cut as much from the top as from the bottom.
        public var equalVertical: Bool

        /// Creates a trim; the colour defaults to the top-left pixel's, the sides to unequal.
        public init(threshold: Double, color: RGBA8? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
            self.threshold = threshold
            self.color = color
            self.equalHorizontal = equalHorizontal
            self.equalVertical = equalVertical
        }
    }

    /// Space added around the result, CSS-style (`padding`).
    public struct Padding: Sendable, Hashable {
        /// Pixels on each side, before the `dpr`.
        public var top: Int, right: Int, bottom: Int, left: Int

        /// Creates padding.
        public init(top: Int, right: Int, bottom: Int, left: Int) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }
    }

    /// `resizing_type` (`rt`). Default ``ResizingType/fit``.
    public var resizingType: ResizingType = .fit
    /// `width` (`w`): 0 computes it from the height and the aspect ratio. Default 0.
    public var width: Int = 0
    /// `height` (`h`): 0 computes it from the width. Default 0.
    public var height: Int = 0
    /// `min-width` (`mw`). Default 0.
    public var minWidth: Int = 0
    /// `min-height` (`mh`). Default 0.
    public var minHeight: Int = 0
    /// `zoom` (`z`), along x. Default 1.
    public var zoomX: Double = 1
    /// `zoom` (`z`), along y. Default 1.
    public var zoomY: Double = 1
    /// `dpr`: multiplies the size, offsets and padding. Default 1.
    public var dpr: Double = 1
    /// `enlarge` (`el`): let a smaller image grow to the size. Default `false`.
    public var enlarge: Bool = false
    /// `extend` (`ex`): pad a smaller result to the size with the background. Default `false`.
    public var extend: Bool = false
    /// Where the image sits when extended. Default centre.
    public var extendGravity: Gravity = .center
    /// `extend_aspect_ratio` (`exar`, `extend_ar`): extend the result to the requested aspect
    /// ratio (not to the size), when both width and height are given. Default `false`.
    public var extendAspectRatio: Bool = false
    /// Where the image sits when extended to the aspect ratio. Default centre.
    public var extendAspectRatioGravity: Gravity = .center
    /// `gravity` (`g`). Default centre.
    public var gravity: Gravity = .center
    /// `crop` (`c`). Default none.
    public var crop: Crop?
    /// `trim` (`t`). Default none.
    public var trim: Trim?
    /// `padding` (`pd`). Default none.
    public var padding: Padding?
    /// `auto_rotate` (`ar`): apply the EXIF orientation. `nil` (the default) follows the service's setting.
    public var autoRotate: Bool?
    /// `rotate` (`rot`): degrees, a multiple of 90. Default 0.
    public var rotate: Int = 0
    /// `flip` (`fl`): mirror horizontally and/or vertically. Default neither.
    public var flipHorizontal: Bool = false
    /// See ``flipHorizontal``.
    public var flipVertical: Bool = false
    /// `background` (`bg`): fills transparent pixels and extended space. Default none.
    public var background: RGBA8?
    /// `blur` (`bl`): Gaussian sigma. Default 0 (none).
    public var blur: Double = 0
    /// `sharpen` (`sh`): sigma of the unsharp mask. Default 0 (none).
    public var sharpen: Double = 0
    /// `pixelate` (`pix`): block size in pixels. Default 0 (none).
    public var pixelate: Int = 0
    /// imgproxy Pro's colour adjustments (`adjust`, `brightness`, `contrast`, `saturation`,
    /// `monochrome`, `duotone`, `colorize`). Default none.
    public var adjustments = Adjustments()
    /// `objects_position` (`obj_pos`, `op`, imgproxy Pro's): where the objects `g:obj` keeps go
    /// in the result. `nil`: centred.
    public var objectsPosition: ObjectsPosition?
    /// `blur_detections` (`bd`, imgproxy Pro's): blur the detected objects of these classes
    /// (`face`; none named: every object) with a Gaussian of this sigma (times the `dpr`).
    /// `nil`: none.
    public var blurDetections: Detections?
    /// `draw_detections` (`dd`, imgproxy Pro's): outline the detected objects of these classes.
    /// `nil`: none.
    public var drawDetections: Detections?
    /// `rounded_corners` (`rc`), Imago's own: the corners' radius in pixels (times the `dpr`),
    /// cut after padding and before the background fills transparency. Default 0 (square).
    public var roundedCorners: Double = 0
    /// `watermark` (`wm`): the service's watermark over the result. Default none.
    public var watermark: Watermark?
    /// `video_thumbnail_second` (`vts`), imgproxy Pro's: the time of a video source's frame, in
    /// seconds. Default `nil`: the service's (`IMAGO_VIDEO_THUMBNAIL_SECOND`).
    public var videoThumbnailSecond: Double?
    /// `video_thumbnail_keyframes` (`vtk`), imgproxy Pro's: the last keyframe at or before that
    /// time instead of the exact frame. Default `nil`: the service's.
    public var videoThumbnailKeyframes: Bool?
    /// `watermark_text` (`wmt`), imgproxy Pro's: Pango markup drawn as the watermark (with
    /// `watermark`'s placement) instead of the service's image. Default `nil`.
    public var watermarkText: String?
    /// `watermark_url` (`wmu`), imgproxy Pro's: the watermark image's URL, fetched as a source is;
    /// signed URLs only. Default `nil`.
    public var watermarkURL: String?
    /// `watermark_size` (`wms`), imgproxy Pro's: the box the watermark is fitted into (enlarging
    /// too; 0 on one side follows the other) when `watermark`'s scale is 0. Default `nil`.
    public var watermarkSize: PixelSize?
    /// `watermark_rotate` (`wmr`, `wm_rot`), imgproxy Pro's: the watermark turned clockwise by
    /// this many degrees, after its scaling. Default 0.
    public var watermarkRotate: Double = 0
    /// `watermark_shadow` (`wmsh`), imgproxy Pro's: a black shadow under the watermark, its alpha
    /// blurred with this sigma (at most 100). Default 0 (none).
    public var watermarkShadow: Double = 0

    /// `quality` (`q`), 1–100; 0 (the default) uses the service's.
    public var quality: Int = 0
    /// `format_quality` (`fq`): quality per output format.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// `max_bytes` (`mb`): lower the quality until the result fits. Default 0 (no limit).
    public var maxBytes: Int = 0
    /// `format` (`f`, `ext`) or the URL's extension. Default `nil`: the source's format.
    public var format: ImageFormat?
    /// `strip_metadata` (`sm`). `nil` follows the service's setting.
    public var stripMetadata: Bool?
    /// `keep_copyright` (`kcr`). `nil` follows the service's setting.
    public var keepCopyright: Bool?
    /// `strip_color_profile` (`scp`). `nil` follows the service's setting.
    public var stripColorProfile: Bool?
    /// `color_profile` (`cp`, `icc`, imgproxy Pro's): convert the result to this profile and
    /// embed it: `srgb`, `display-p3` (`p3`), or a file's name in the service's profile folder
    /// (`.icc`/`.icm` may be left out). Letters, digits, `.`, `_`, `+` and `-` only. `nil`: none.
    public var colorProfile: String?
    /// `cachebuster` (`cb`): changes the URL, nothing else.
    public var cacheBuster: String?
    /// `expires` (`exp`): Unix time after which the URL is refused with 404.
    public var expires: Int64?
    /// `filename` (`fn`): the `Content-Disposition` file name.
    public var filename: String?
    /// `return_attachment` (`att`). `nil` follows the service's setting.
    public var returnAttachment: Bool?
    /// `page` (`pg`): the page or frame to use, from 0. Default `nil`: all of an animation.
    public var page: Int?
    /// `skip_processing` (`skp`): source formats sent as they are when the output format is theirs.
    public var skipProcessing: Set<ImageFormat> = []
    /// `raw`: send the source bytes unprocessed and unchecked. Default `false`.
    public var raw: Bool = false
    /// `max_src_resolution` (`msr`), megapixels. A security option.
    public var maxSourceResolution: Double?
    /// `max_src_file_size` (`msfs`), bytes; it only lowers the service's limit (0 or less: the
    /// service's). A security option.
    public var maxSourceFileSize: Int?
    /// `max_animation_frames` (`maf`). A security option.
    public var maxAnimationFrames: Int?
    /// `max_animation_frame_resolution` (`mafr`), megapixels of one frame of an animation kept
    /// animated, instead of `max_src_resolution` (0: the service's). A security option.
    public var maxAnimationFrameResolution: Double?
    /// `max_result_dimension` (`mrd`): a larger result is scaled down to fit; 0 or less: no
    /// limit (imgproxy's reading). A security option.
    public var maxResultDimension: Int?
    /// `preserve_hdr` (`ph`): keep a high-bit-depth source's depth where the output format can
    /// hold it. `nil` follows the service's setting.
    public var preserveHDR: Bool?
    /// `enforce_thumbnail` (`eth`): use the thumbnail embedded in the source (HEIF, AVIF) when
    /// there is one. `nil` follows the service's setting.
    public var enforceThumbnail: Bool?

    /// The defaults.
    public init() {}
}
