// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ImagoCore

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
    /// - Throws: ``ServiceURLError/unknownOption(_:)`` naming the option,
    ///   ``ServiceURLError/invalidArgument(option:reason:)``, ``ServiceURLError/unknownPreset(_:)``,
    ///   ``ServiceURLError/securityOptionNotAllowed(_:)``.
    public init(
        parsing segments: [String], presets: [String: [String]] = [:],
        allowSecurityOptions: Bool = false
    ) throws(ServiceURLError) {
        self.init()
        if let defaults = presets["default"] {
            try apply(defaults, presets: presets, allowSecurityOptions: allowSecurityOptions, depth: 1)
        }
        try apply(segments, presets: presets, allowSecurityOptions: allowSecurityOptions, depth: 0)
    }

    /// Applies `segments` on top of these options.
    ///
    /// - Throws: as ``init(parsing:presets:allowSecurityOptions:)``.
    public mutating func apply(
        _ segments: [String], presets: [String: [String]] = [:],
        allowSecurityOptions: Bool = false
    ) throws(ServiceURLError) {
        try apply(segments, presets: presets, allowSecurityOptions: allowSecurityOptions, depth: 0)
    }

    private mutating func apply(
        _ segments: [String], presets: [String: [String]], allowSecurityOptions: Bool,
        depth: Int
    ) throws(ServiceURLError) {
        for segment in segments where !segment.isEmpty {
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let name = parts[0]
            let args = Array(parts.dropFirst())
            if name == "preset" || name == "pr" {
                guard depth < 8 else { throw .invalidArgument(option: name, reason: "presets nest more than 8 deep") }
                for preset in args where !preset.isEmpty {
                    guard let options = presets[preset] else { throw .unknownPreset(preset) }
                    try apply(options, presets: presets, allowSecurityOptions: allowSecurityOptions, depth: depth + 1)
                }
                continue
            }
            try applyOption(name, args, allowSecurityOptions: allowSecurityOptions)
        }
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private mutating func applyOption(_ name: String, _ args: [String], allowSecurityOptions: Bool) throws(ServiceURLError) {
        let a = Arguments(option: name, values: args)
        switch name {
        case "resize", "rs":
            if let t = try a.resizingType(0) { resizingType = t }
            if let w = try a.size(1) { width = w }
            if let h = try a.size(2) { height = h }
            if let e = try a.bool(3) { enlarge = e }
            if let e = try a.bool(4) { extend = e }
            if let g = try a.gravity(from: 5, allowSmart: false) { extendGravity = g }
        case "size", "s":
            if let w = try a.size(0) { width = w }
            if let h = try a.size(1) { height = h }
            if let e = try a.bool(2) { enlarge = e }
            if let e = try a.bool(3) { extend = e }
            if let g = try a.gravity(from: 4, allowSmart: false) { extendGravity = g }
        case "resizing_type", "rt":
            try a.require(1)
            if let t = try a.resizingType(0) { resizingType = t }
        case "width", "w":
            try a.require(1)
            width = try a.size(0) ?? 0
        case "height", "h":
            try a.require(1)
            height = try a.size(0) ?? 0
        case "min-width", "mw", "min_width":
            try a.require(1)
            minWidth = try a.size(0) ?? 0
        case "min-height", "mh", "min_height":
            try a.require(1)
            minHeight = try a.size(0) ?? 0
        case "zoom", "z":
            try a.require(1)
            let x = try a.positive(0) ?? 1
            zoomX = x
            zoomY = try a.positive(1) ?? x
        case "dpr":
            try a.require(1)
            dpr = try a.positive(0) ?? 1
            guard dpr <= 8 else { throw .invalidArgument(option: name, reason: "dpr \(dpr) is over 8") }
        case "enlarge", "el":
            try a.require(1)
            enlarge = try a.bool(0) ?? false
        case "extend", "ex":
            try a.require(1)
            extend = try a.bool(0) ?? false
            extendGravity = try a.gravity(from: 1, allowSmart: false) ?? .center
        case "extend_aspect_ratio", "extend_ar", "exar":
            try a.require(1)
            extendAspectRatio = try a.bool(0) ?? false
            extendAspectRatioGravity = try a.gravity(from: 1, allowSmart: false) ?? .center
        case "gravity", "g":
            try a.require(1)
            gravity = try a.gravity(from: 0, allowSmart: true) ?? .center
        case "crop", "c":
            try a.require(2)
            let w = try a.nonNegative(0) ?? 0, h = try a.nonNegative(1) ?? 0
            crop = Crop(width: w, height: h, gravity: try a.gravity(from: 2, allowSmart: true))
        case "trim", "t":
            try a.require(1)
            let threshold = try a.nonNegative(0) ?? 10
            trim = Trim(
                threshold: threshold, color: try a.color(1), equalHorizontal: try a.bool(2) ?? false,
                equalVertical: try a.bool(3) ?? false)
        case "padding", "pd":
            try a.require(1)
            let top = try a.count(0) ?? 0
            let right = try a.count(1) ?? top
            let bottom = try a.count(2) ?? top
            let left = try a.count(3) ?? right
            padding =
                top == 0 && right == 0 && bottom == 0 && left == 0
                ? nil
                : Padding(top: top, right: right, bottom: bottom, left: left)
        case "auto_rotate", "ar":
            try a.require(1)
            autoRotate = try a.bool(0)
        case "rotate", "rot":
            try a.require(1)
            let degrees = try a.integer(0) ?? 0
            guard degrees % 90 == 0 else { throw .invalidArgument(option: name, reason: "\(degrees) is not a multiple of 90") }
            rotate = ((degrees % 360) + 360) % 360
        case "flip", "fl":
            try a.require(1)
            flipHorizontal = try a.bool(0) ?? false
            flipVertical = try a.bool(1) ?? false
        case "background", "bg":
            if args.count >= 3 {
                background = RGBA8(r: try a.channel(0), g: try a.channel(1), b: try a.channel(2))
            } else if let c = try a.color(0) {
                background = c
            } else {
                background = nil
            }
        case "blur", "bl":
            try a.require(1)
            blur = try a.nonNegative(0) ?? 0
            guard blur <= 100 else { throw .invalidArgument(option: name, reason: "sigma \(blur) is over 100") }
        case "sharpen", "sh":
            try a.require(1)
            sharpen = try a.nonNegative(0) ?? 0
            guard sharpen <= 100 else { throw .invalidArgument(option: name, reason: "sigma \(sharpen) is over 100") }
        case "pixelate", "pix":
            try a.require(1)
            pixelate = try a.count(0) ?? 0
        case "quality", "q":
            try a.require(1)
            quality = try a.quality(0) ?? 0
        case "format_quality", "fq":
            guard args.count % 2 == 0, !args.isEmpty else {
                throw .invalidArgument(option: name, reason: "expects pairs of format and quality")
            }
            for i in stride(from: 0, to: args.count, by: 2) {
                guard let format = try a.format(i) else { continue }
                formatQuality[format] = try a.quality(i + 1) ?? 0
            }
        case "max_bytes", "mb":
            try a.require(1)
            maxBytes = try a.count(0) ?? 0
        case "format", "f", "ext":
            try a.require(1)
            format = try a.format(0)
        case "strip_metadata", "sm":
            try a.require(1)
            stripMetadata = try a.bool(0)
        case "keep_copyright", "kcr":
            try a.require(1)
            keepCopyright = try a.bool(0)
        case "strip_color_profile", "scp":
            try a.require(1)
            stripColorProfile = try a.bool(0)
        case "cachebuster", "cb":
            cacheBuster = args.joined(separator: ":")
        case "expires", "exp":
            try a.require(1)
            guard let t = Int64(args[0]) else { throw .invalidArgument(option: name, reason: "'\(args[0])' is not a Unix time") }
            expires = t
        case "filename", "fn":
            try a.require(1)
            if try a.bool(1) == true {
                guard let decoded = Base64URL.decode(args[0]).flatMap({ String(bytes: $0, encoding: .utf8) }) else {
                    throw .invalidArgument(option: name, reason: "not base64url")
                }
                filename = decoded
            } else {
                guard let decoded = PercentEncoding.decode(args[0]) else {
                    throw .invalidArgument(option: name, reason: "broken percent-escape")
                }
                filename = decoded
            }
        case "return_attachment", "att":
            try a.require(1)
            returnAttachment = try a.bool(0)
        case "page", "pg":
            try a.require(1)
            page = try a.count(0)
        case "skip_processing", "skp":
            skipProcessing = []
            for i in args.indices { if let f = try a.format(i) { skipProcessing.insert(f) } }
        case "raw":
            try a.require(1)
            raw = try a.bool(0) ?? false
        case "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
            "max_result_dimension", "mrd":
            guard allowSecurityOptions else { throw .securityOptionNotAllowed(name) }
            try a.require(1)
            switch name {
            case "max_src_resolution", "msr": maxSourceResolution = try a.positive(0)
            case "max_src_file_size", "msfs": maxSourceFileSize = try a.count(0)
            case "max_animation_frames", "maf": maxAnimationFrames = try a.count(0)
            default: maxResultDimension = try a.count(0)
            }
        default:
            throw .unknownOption(name)
        }
    }
}

/// One option's arguments, read by position with the checks each kind needs.
private struct Arguments {
    let option: String
    let values: [String]

    /// The argument at `i`, or `nil` when absent or empty.
    func raw(_ i: Int) -> String? {
        i < values.count && !values[i].isEmpty ? values[i] : nil
    }

    func fail(_ reason: String) -> ServiceURLError { .invalidArgument(option: option, reason: reason) }

    func require(_ n: Int) throws(ServiceURLError) {
        guard values.count >= n, values.prefix(n).contains(where: { !$0.isEmpty }) else {
            throw fail(n == 1 ? "an argument is required" : "\(n) arguments are required")
        }
    }

    func bool(_ i: Int) throws(ServiceURLError) -> Bool? {
        guard let v = raw(i) else { return nil }
        switch v.lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw fail("'\(v)' is not a boolean (1, t, true, 0, f, false)")
        }
    }

    func integer(_ i: Int) throws(ServiceURLError) -> Int? {
        guard let v = raw(i) else { return nil }
        guard let n = Int(v) else { throw fail("'\(v)' is not an integer") }
        return n
    }

    /// A non-negative integer.
    func count(_ i: Int) throws(ServiceURLError) -> Int? {
        guard let n = try integer(i) else { return nil }
        guard n >= 0 else { throw fail("\(n) is negative") }
        return n
    }

    /// A width or height: 0 through 100 000 pixels.
    func size(_ i: Int) throws(ServiceURLError) -> Int? {
        guard let n = try count(i) else { return nil }
        guard n <= 100_000 else { throw fail("\(n) pixels is more than 100000") }
        return n
    }

    func number(_ i: Int) throws(ServiceURLError) -> Double? {
        guard let v = raw(i) else { return nil }
        guard let d = Double(v), d.isFinite else { throw fail("'\(v)' is not a number") }
        return d
    }

    func nonNegative(_ i: Int) throws(ServiceURLError) -> Double? {
        guard let d = try number(i) else { return nil }
        guard d >= 0 else { throw fail("\(d) is negative") }
        return d
    }

    func positive(_ i: Int) throws(ServiceURLError) -> Double? {
        guard let d = try number(i) else { return nil }
        guard d > 0 else { throw fail("\(d) is not above 0") }
        return d
    }

    func quality(_ i: Int) throws(ServiceURLError) -> Int? {
        guard let q = try count(i) else { return nil }
        guard q <= 100 else { throw fail("quality \(q) is over 100") }
        return q
    }

    func channel(_ i: Int) throws(ServiceURLError) -> UInt8 {
        guard let n = try count(i), n <= 255 else { throw fail("a colour channel is 0-255") }
        return UInt8(n)
    }

    /// `RRGGBB`, `RRGGBBAA` or `RGB` in hex.
    func color(_ i: Int) throws(ServiceURLError) -> RGBA8? {
        guard let v = raw(i) else { return nil }
        var hex = v
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6 || hex.count == 8, let n = UInt32(hex, radix: 16) else {
            throw fail("'\(v)' is not a hex colour")
        }
        if hex.count == 6 {
            return RGBA8(r: UInt8(n >> 16 & 0xFF), g: UInt8(n >> 8 & 0xFF), b: UInt8(n & 0xFF))
        }
        return RGBA8(r: UInt8(n >> 24 & 0xFF), g: UInt8(n >> 16 & 0xFF), b: UInt8(n >> 8 & 0xFF), a: UInt8(n & 0xFF))
    }

    func resizingType(_ i: Int) throws(ServiceURLError) -> ProcessingOptions.ResizingType? {
        guard let v = raw(i) else { return nil }
        guard let t = ProcessingOptions.ResizingType(rawValue: v) else {
            throw fail("'\(v)' is not a resizing type (fit, fill, fill-down, force, auto)")
        }
        return t
    }

    func format(_ i: Int) throws(ServiceURLError) -> ImageFormat? {
        guard let v = raw(i) else { return nil }
        guard let f = ImageFormat(serviceExtension: v) else { throw fail("'\(v)' is not an image format") }
        return f
    }

    /// A gravity from argument `start` on: its kind, then offsets (or a focus point's x and y).
    func gravity(from start: Int, allowSmart: Bool) throws(ServiceURLError) -> ProcessingOptions.Gravity? {
        guard let v = raw(start) else { return nil }
        guard let kind = ProcessingOptions.Gravity.Kind(rawValue: v) else {
            throw fail("'\(v)' is not a gravity (no, so, ea, we, noea, nowe, soea, sowe, ce, sm, fp)")
        }
        switch kind {
        case .smart:
            guard allowSmart else { throw fail("smart gravity is not allowed here") }
            return .init(.smart)
        case .focusPoint:
            let x = try number(start + 1) ?? 0.5, y = try number(start + 2) ?? 0.5
            guard (0...1).contains(x), (0...1).contains(y) else { throw fail("a focus point is between 0 and 1") }
            return .init(.focusPoint, x: x, y: y)
        default:
            return .init(kind, x: try number(start + 1) ?? 0, y: try number(start + 2) ?? 0)
        }
    }
}

extension ImageFormat {
    /// A format named as a service URL names it: an extension (`jpg`, `jpeg`, `png`, `webp`,
    /// `avif`, `gif`, `tiff`, …), case-insensitive.
    public init?(serviceExtension text: String) {
        self.init(fileExtension: text.lowercased())
    }
}
