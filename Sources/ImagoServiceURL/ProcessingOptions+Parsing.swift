// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProcessingOptions {
    /// Parses option segments (`name:arg:arg`), in order: a later option overrides an earlier one,
    /// and a preset's options apply where the preset is named. Missing arguments keep their
    /// defaults; an empty argument (`rs:fill::300`) does too.
    ///
    /// - Parameters:
    ///   - segments: The path's option segments, such as `rs:fit:300:300`, in order.
    ///   - presets: Named lists of option segments (`IMAGO_PRESETS`). A preset named `default`
    ///     applies first, before the URL's options. Default none.
    ///   - allowSecurityOptions: Let the URL override the service's limits. Default `false`.
    ///   - initial: Options to start from, before the default preset (what client hints say,
    ///     as imgproxy applies them). Default: the defaults.
    ///   - argumentSeparator: What separates an option's name and arguments, in `segments` and
    ///     in the presets (imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`). Default `:`.
    /// - Throws: ``ServiceURLError/unknownOption(_:)`` naming the option,
    ///   ``ServiceURLError/invalidArgument(option:reason:)``, ``ServiceURLError/unknownPreset(_:)``,
    ///   ``ServiceURLError/securityOptionNotAllowed(_:)``.
    public init(
        parsing segments: [String], presets: [String: [String]] = [:],
        allowSecurityOptions: Bool = false, startingFrom initial: ProcessingOptions = ProcessingOptions(), argumentSeparator: String = ":"
    ) throws(ServiceURLError) {
        self = initial
        var budget = Self.presetBudget
        let syntax = Syntax(presets: presets, allowSecurityOptions: allowSecurityOptions, separator: argumentSeparator)
        if let defaults = presets["default"] {
            try apply(defaults, syntax, using: ["default"], budget: &budget)
        }
        try apply(segments, syntax, using: [], budget: &budget)
    }

    /// What option segments are read with: the presets they may name, whether security options
    /// are allowed, and the argument separator.
    private struct Syntax {
        var presets: [String: [String]]
        var allowSecurityOptions: Bool
        var separator: String
    }

    /// `segment` taken apart at `separator`: the option's name, then its arguments (empty ones
    /// kept).
    package static func split(_ segment: String, separator: String = ":") -> [String] {
        if separator == ":" { return segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
        return segment.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
    }

    /// Presets applied for one URL at most: presets nest as deep as they are written, but a
    /// tree of them naming each other several times over would grow without bound.
    static let presetBudget = 1000

    /// Applies `segments` on top of these options.
    ///
    /// - Throws: as ``init(parsing:presets:allowSecurityOptions:startingFrom:argumentSeparator:)``.
    public mutating func apply(
        _ segments: [String], presets: [String: [String]] = [:],
        allowSecurityOptions: Bool = false, argumentSeparator: String = ":"
    ) throws(ServiceURLError) {
        var budget = Self.presetBudget
        try apply(
            segments, Syntax(presets: presets, allowSecurityOptions: allowSecurityOptions, separator: argumentSeparator), using: [],
            budget: &budget)
    }

    private mutating func apply(_ segments: [String], _ syntax: Syntax, using: [String], budget: inout Int) throws(ServiceURLError) {
        for segment in segments where !segment.isEmpty {
            let parts = Self.split(segment, separator: syntax.separator)
            let name = parts[0]
            let args = Array(parts.dropFirst())
            if name == "preset" || name == "pr" {
                for preset in args {
                    guard let options = syntax.presets[preset] else { throw .unknownPreset(preset) }
                    // A preset already being applied further up is skipped, as imgproxy does.
                    if using.contains(preset) { continue }
                    budget -= 1
                    guard budget >= 0 else {
                        throw .invalidArgument(option: name, reason: "presets apply more than \(Self.presetBudget) times")
                    }
                    try apply(options, syntax, using: using + [preset], budget: &budget)
                }
                continue
            }
            try applyOption(name, args.isEmpty ? [""] : args, allowSecurityOptions: syntax.allowSecurityOptions)
        }
    }

    /// One option, with imgproxy's rules for its arguments: each option takes at most so many
    /// (more is an error), a compound option's empty argument leaves that part as it was, a
    /// single value must be there, and a boolean that is not one of Go's spellings is false.
    ///
    /// Each family's reader below takes the names it knows and answers `true`; a name none of
    /// them knows is an unknown option.
    private mutating func applyOption(_ name: String, _ args: [String], allowSecurityOptions: Bool) throws(ServiceURLError) {
        let a = OptionArguments(option: name, values: args)
        if try applyResizeOption(name, a) { return }
        if try applyScaleOption(name, a) { return }
        if try applyCropOption(name, a) { return }
        if try applyOrientationOption(name, a) { return }
        if try applyEffectOption(name, a) { return }
        if try applyWatermarkOption(name, a) { return }
        if try applyVideoOption(name, a) { return }
        if try applyAdjustment(name, a) { return }
        if try applyFormatOption(name, a) { return }
        if try applyMetadataOption(name, a) { return }
        if try applyDeliveryOption(name, a) { return }
        if try applySourceOption(name, a) { return }
        if try applySecurityOption(name, a, allowSecurityOptions: allowSecurityOptions) { return }
        throw .unknownOption(name)
    }

    /// The resize and the target size: `resize`, `size`, `resizing_type`, `width`, `height`,
    /// `min-width` and `min-height`; `false` when `name` is none of them.
    private mutating func applyResizeOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "resize", "rs":
            try a.atMost(8)
            if !args[0].isEmpty { resizingType = try a.resizingType(0) }
            if args.count > 1 { try applySize(OptionArguments(option: name, values: Array(args.dropFirst()))) }
        case "size", "s":
            try applySize(a)
        case "resizing_type", "rt":
            try a.atMost(1)
            resizingType = try a.resizingType(0)
        case "width", "w":
            width = try a.single(try a.size(0))
        case "height", "h":
            height = try a.single(try a.size(0))
        case "min-width", "mw", "min_width":
            minWidth = try a.single(try a.size(0))
        case "min-height", "mh", "min_height":
            minHeight = try a.single(try a.size(0))
        default:
            return false
        }
        return true
    }

    /// Scale and canvas: `zoom`, `dpr`, `enlarge`, `extend` and `extend_aspect_ratio`; `false`
    /// when `name` is none of them.
    private mutating func applyScaleOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "zoom", "z":
            try a.atMost(2)
            zoomX = try a.positive(0)
            zoomY = args.count > 1 ? try a.positive(1) : zoomX
        case "dpr":
            dpr = try a.single(try a.positive(0))
            guard dpr <= 8 else { throw .invalidArgument(option: name, reason: "dpr \(dpr) is over 8") }
        case "enlarge", "el":
            enlarge = try a.single(a.bool(0))
        case "extend", "ex":
            try a.atMost(4)
            extend = a.bool(0)
            if args.count > 1 { extendGravity = try a.gravity(from: 1, current: extendGravity, smart: false) }
        case "extend_aspect_ratio", "extend_ar", "exar":
            try a.atMost(4)
            extendAspectRatio = a.bool(0)
            if args.count > 1 {
                extendAspectRatioGravity = try a.gravity(from: 1, current: extendAspectRatioGravity, smart: false)
            }
        default:
            return false
        }
        return true
    }

    /// Crop and gravity: `gravity`, `crop`, `trim` and `padding`; `false` when `name` is none
    /// of them.
    private mutating func applyCropOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "gravity", "g":
            gravity = try a.gravity(from: 0, current: gravity, smart: true)
        case "crop", "c":
            var c = crop ?? Crop(width: 0, height: 0)
            c.width = try a.nonNegative(0)
            if args.count > 1 { c.height = try a.nonNegative(1) }
            if args.count > 2 { c.gravity = try a.gravity(from: 2, current: c.gravity ?? .center, smart: true) }
            crop = c.width == 0 && c.height == 0 && c.gravity == nil ? nil : c
        case "trim", "t":
            try a.atMost(4)
            var t = trim ?? Trim(threshold: 10)
            if args[0].isEmpty {
                trim = nil
                return true
            }
            t.threshold = try a.number(0)
            t.color = args.count > 1 && !args[1].isEmpty ? try a.hexColor(1) : nil
            if args.count > 2, !args[2].isEmpty { t.equalHorizontal = a.bool(2) }
            if args.count > 3, !args[3].isEmpty { t.equalVertical = a.bool(3) }
            trim = t
        case "padding", "pd":
            try a.atMost(4)
            let old = padding ?? Padding(top: 0, right: 0, bottom: 0, left: 0)
            let top = args[0].isEmpty ? old.top : try a.size(0)
            let right = args.count > 1 && !args[1].isEmpty ? try a.size(1) : top
            let bottom = args.count > 2 && !args[2].isEmpty ? try a.size(2) : top
            let left = args.count > 3 && !args[3].isEmpty ? try a.size(3) : right
            let p = Padding(top: top, right: right, bottom: bottom, left: left)
            padding = top == 0 && right == 0 && bottom == 0 && left == 0 ? nil : p
        default:
            return false
        }
        return true
    }

    /// Orientation: `auto_rotate`, `rotate` and `flip`; `false` when `name` is none of them.
    private mutating func applyOrientationOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "auto_rotate", "ar":
            autoRotate = try a.single(a.bool(0))
        case "rotate", "rot":
            let degrees = try a.single(try a.integer(0))
            guard degrees % 90 == 0 else { throw .invalidArgument(option: name, reason: "\(degrees) is not a multiple of 90") }
            rotate = ((degrees % 360) + 360) % 360
        case "flip", "fl":
            try a.atMost(2)
            if !args[0].isEmpty { flipHorizontal = a.bool(0) }
            if args.count > 1, !args[1].isEmpty { flipVertical = a.bool(1) }
        default:
            return false
        }
        return true
    }

    /// Background and filters: `background`, `blur`, `sharpen` and `pixelate`; `false` when
    /// `name` is none of them.
    private mutating func applyEffectOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "background", "bg":
            switch args.count {
            case 1: background = args[0].isEmpty ? nil : try a.hexColor(0)
            case 3: background = RGBA8(r: try a.channel(0), g: try a.channel(1), b: try a.channel(2))
            default: throw .invalidArgument(option: name, reason: "expects a hex colour or three channels")
            }
        case "blur", "bl":
            blur = try a.single(try a.nonNegative(0))
            guard blur <= 100 else { throw .invalidArgument(option: name, reason: "sigma \(blur) is over 100") }
        case "sharpen", "sh":
            sharpen = try a.single(try a.nonNegative(0))
            guard sharpen <= 100 else { throw .invalidArgument(option: name, reason: "sigma \(sharpen) is over 100") }
        case "pixelate", "pix":
            pixelate = try a.single(try a.count(0))
        default:
            return false
        }
        return true
    }

    /// The watermark: `watermark`, its sources (`watermark_text`, `watermark_url`,
    /// `watermark_size`), `watermark_rotate` and `watermark_shadow`; `false` when `name` is none
    /// of them.
    private mutating func applyWatermarkOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        switch name {
        case "watermark", "wm":
            try applyWatermark(a)
        case "watermark_text", "wmt", "watermark_url", "wmu", "watermark_size", "wms":
            try applyWatermarkSource(name, a)
        case "watermark_rotate", "wmr", "wm_rot":
            let degrees = try a.single(try a.number(0))
            guard degrees.isFinite, abs(degrees) <= 3600 else { throw .invalidArgument(option: name, reason: "\(degrees) is not an angle") }
            watermarkRotate = degrees
        case "watermark_shadow", "wmsh":
            let sigma = try a.single(try a.nonNegative(0))
            guard sigma <= 100 else { throw .invalidArgument(option: name, reason: "sigma \(sigma) is over 100") }
            watermarkShadow = sigma
        default:
            return false
        }
        return true
    }

    /// A video's thumbnail: `video_thumbnail_second` and `video_thumbnail_keyframes`; `false`
    /// when `name` is neither.
    private mutating func applyVideoOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        switch name {
        case "video_thumbnail_second", "vts":
            videoThumbnailSecond = try a.single(try a.nonNegative(0))
        case "video_thumbnail_keyframes", "vtk":
            videoThumbnailKeyframes = try a.single(a.bool(0))
        default:
            return false
        }
        return true
    }

    /// The output's format and quality: `quality`, `format_quality`, `max_bytes` and `format`;
    /// `false` when `name` is none of them.
    private mutating func applyFormatOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "quality", "q":
            quality = try a.single(try a.quality(0))
        case "format_quality", "fq":
            guard args.count % 2 == 0 else {
                throw .invalidArgument(option: name, reason: "expects pairs of format and quality")
            }
            for i in stride(from: 0, to: args.count, by: 2) {
                formatQuality[try a.format(i)] = try a.quality(i + 1)
            }
        case "max_bytes", "mb":
            maxBytes = try a.single(try a.count(0))
        case "format", "f", "ext":
            format = try a.single(try a.format(0))
        default:
            return false
        }
        return true
    }

    /// Metadata and colour: `strip_metadata`, `keep_copyright`, `strip_color_profile`,
    /// `preserve_hdr`, `color_profile` and `enforce_thumbnail`; `false` when `name` is none of
    /// them.
    private mutating func applyMetadataOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "strip_metadata", "sm":
            stripMetadata = try a.single(a.bool(0))
        case "keep_copyright", "kcr":
            keepCopyright = try a.single(a.bool(0))
        case "strip_color_profile", "scp":
            stripColorProfile = try a.single(a.bool(0))
        case "preserve_hdr", "ph":
            preserveHDR = try a.single(a.bool(0))
        case "color_profile", "cp", "icc":
            let v = try a.single(args[0])
            if v.isEmpty {
                colorProfile = nil
            } else {
                guard v.count <= 128, !v.hasPrefix("."),
                    v.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._+-".contains($0)) })
                else { throw .invalidArgument(option: name, reason: "'\(v)' is not a profile name") }
                colorProfile = v
            }
        case "enforce_thumbnail", "eth":
            enforceThumbnail = try a.single(a.bool(0))
        default:
            return false
        }
        return true
    }

    /// The answer's delivery: `cachebuster`, `expires`, `filename` and `return_attachment`;
    /// `false` when `name` is none of them.
    private mutating func applyDeliveryOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "cachebuster", "cb":
            try a.atMost(1)
            cacheBuster = args[0].isEmpty ? nil : args[0]
        case "expires", "exp":
            try a.atMost(1)
            guard let t = Int64(args[0]) else { throw .invalidArgument(option: name, reason: "'\(args[0])' is not a Unix time") }
            // 0 or less: never expires.
            expires = t > 0 ? t : nil
        case "filename", "fn":
            try a.atMost(2)
            if args.count > 1, a.bool(1) {
                guard let decoded = Base64URL.decode(args[0]).flatMap({ String(bytes: $0, encoding: .utf8) }) else {
                    throw .invalidArgument(option: name, reason: "not base64url")
                }
                filename = decoded.isEmpty ? nil : decoded
            } else {
                guard let decoded = PercentEncoding.decode(args[0]) else {
                    throw .invalidArgument(option: name, reason: "broken percent-escape")
                }
                // Empty: the source's own name, as imgproxy falls back to it.
                filename = decoded.isEmpty ? nil : decoded
            }
        case "return_attachment", "att":
            returnAttachment = try a.single(a.bool(0))
        default:
            return false
        }
        return true
    }

    /// How the source is read: `page`, `skip_processing` and `raw`; `false` when `name` is none
    /// of them.
    private mutating func applySourceOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "page", "pg":
            page = try a.single(try a.count(0))
        case "skip_processing", "skp":
            for i in args.indices { skipProcessing.insert(try a.format(i)) }
        case "raw":
            raw = try a.single(a.bool(0))
        default:
            return false
        }
        return true
    }

    /// The service's limits, which a URL may override only when `allowSecurityOptions` is set:
    /// `max_src_resolution`, `max_src_file_size`, `max_animation_frames`,
    /// `max_animation_frame_resolution` and `max_result_dimension`; `false` when `name` is none
    /// of them.
    private mutating func applySecurityOption(_ name: String, _ a: OptionArguments, allowSecurityOptions: Bool) throws(ServiceURLError) -> Bool {
        switch name {
        case "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
            "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd":
            guard allowSecurityOptions else { throw .securityOptionNotAllowed(name) }
            try a.atMost(1)
            switch name {
            case "max_src_resolution", "msr": maxSourceResolution = try a.nonNegative(0)
            case "max_src_file_size", "msfs": maxSourceFileSize = try a.integer(0)
            case "max_animation_frames", "maf":
                let n = try a.integer(0)
                guard n > 0 else { throw .invalidArgument(option: name, reason: "\(n) is not above 0") }
                maxAnimationFrames = n
            case "max_animation_frame_resolution", "mafr": maxAnimationFrameResolution = try a.nonNegative(0)
            default: maxResultDimension = try a.integer(0)
            }
        default:
            return false
        }
        return true
    }

    /// `size`'s arguments (and `resize`'s after the type): width, height, enlarge, then
    /// extend and its gravity; an empty one leaves its part as it was.
    private mutating func applySize(_ a: OptionArguments) throws(ServiceURLError) {
        try a.atMost(7)
        let args = a.values
        if !args[0].isEmpty { width = try a.size(0) }
        if args.count > 1, !args[1].isEmpty { height = try a.size(1) }
        if args.count > 2, !args[2].isEmpty { enlarge = a.bool(2) }
        if args.count > 3, !args[3].isEmpty {
            extend = a.bool(3)
            if args.count > 4 { extendGravity = try a.gravity(from: 4, current: extendGravity, smart: false) }
        }
    }
}

extension ProcessingOptions {
    /// Every option name a URL may use, full and short, as the parser reads them (imgproxy's,
    /// and Imago's `min_width`, `min_height`, `page` and `pg`).
    package static let optionNames: [String] = [
        "resize", "rs", "size", "s", "resizing_type", "rt", "width", "w", "height", "h", "min-width", "mw", "min_width",
        "min-height", "mh", "min_height", "zoom", "z", "dpr", "enlarge", "el", "extend", "ex", "extend_aspect_ratio", "extend_ar",
        "exar", "gravity", "g", "crop", "c", "trim", "t", "padding", "pd", "auto_rotate", "ar", "rotate", "rot", "flip", "fl",
        "background", "bg", "blur", "bl", "sharpen", "sh", "pixelate", "pix", "watermark", "wm", "quality", "q", "format_quality", "fq",
        "max_bytes", "mb", "format", "f", "ext", "strip_metadata", "sm", "keep_copyright", "kcr", "strip_color_profile", "scp",
        "preserve_hdr", "ph", "color_profile", "cp", "icc", "enforce_thumbnail", "eth", "cachebuster", "cb", "expires", "exp", "filename", "fn",
        "return_attachment", "att", "page", "pg", "skip_processing", "skp", "raw", "preset", "pr", "max_src_resolution", "msr",
        "max_src_file_size", "msfs", "max_animation_frames", "maf", "max_animation_frame_resolution", "mafr",
        "max_result_dimension", "mrd", "brightness", "br", "contrast", "co", "saturation", "sa", "adjust", "a", "monochrome", "mc",
        "duotone", "dt", "colorize", "col", "rounded_corners", "rc", "blur_detections", "bd", "draw_detections", "dd", "objects_position", "obj_pos", "op",
        "watermark_text", "wmt", "watermark_url",
        "wmu", "watermark_size", "wms",
        "video_thumbnail_second", "vts", "video_thumbnail_keyframes", "vtk", "watermark_rotate", "wmr", "wm_rot", "watermark_shadow", "wmsh"
    ]
}

extension ImageFormat {
    /// A format named as a service URL names it: an extension (`jpg`, `jpeg`, `png`, `webp`,
    /// `avif`, `gif`, `tiff`, …), case-insensitive.
    package init?(serviceExtension text: String) {
        self.init(fileExtension: text.lowercased())
    }
}
