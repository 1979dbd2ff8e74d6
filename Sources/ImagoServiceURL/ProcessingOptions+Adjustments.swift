// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension ProcessingOptions {
    /// imgproxy Pro's colour adjustments (`adjust`/`a`, `brightness`/`br`, `contrast`/`co`,
    /// `saturation`/`sa`, `monochrome`/`mc`, `duotone`/`dt`, `colorize`/`col`), applied together
    /// with the filters, after the crop and before any extension or padding.
    public struct Adjustments: Sendable, Hashable {
        /// −255...255, added to each channel. Default 0.
        public var brightness = 0
        /// A factor about the middle level, at least 0. Default 1.
        public var contrast = 1.0
        /// A chroma factor, at least 0 (0 is gray). Default 1.
        public var saturation = 1.0
        /// `monochrome`'s intensity, 0...1. Default 0 (off).
        public var monochromeIntensity = 0.0
        /// `monochrome`'s colour. Default `b3b3b3`.
        public var monochromeColor = RGBA8(r: 0xb3, g: 0xb3, b: 0xb3)
        /// `duotone`'s intensity, 0...1. Default 0 (off).
        public var duotoneIntensity = 0.0
        /// `duotone`'s colour for the shadows. Default black.
        public var duotoneShadows = RGBA8(r: 0, g: 0, b: 0)
        /// `duotone`'s colour for the highlights. Default white.
        public var duotoneHighlights = RGBA8(r: 255, g: 255, b: 255)
        /// `colorize`'s opacity, 0...1. Default 0 (off).
        public var colorizeOpacity = 0.0
        /// `colorize`'s colour. Default black.
        public var colorizeColor = RGBA8(r: 0, g: 0, b: 0)
        /// `colorize`'s `keep_alpha`: the image's alpha kept under the colour. Default `false`.
        public var colorizeKeepsAlpha = false

        /// No adjustment.
        public init() {}

        /// Whether nothing is adjusted.
        package var isIdentity: Bool { activeSegments.isEmpty }

        /// The canonical segments of the adjustments that act.
        var activeSegments: [String] {
            var out: [String] = []
            if brightness != 0 || contrast != 1 || saturation != 1 {
                out.append("adjust:\(brightness):\(ProcessingOptions.number(contrast)):\(ProcessingOptions.number(saturation))")
            }
            if monochromeIntensity > 0 {
                out.append("monochrome:\(ProcessingOptions.number(monochromeIntensity)):\(ProcessingOptions.hex(monochromeColor))")
            }
            if duotoneIntensity > 0 {
                out.append(
                    "duotone:\(ProcessingOptions.number(duotoneIntensity)):\(ProcessingOptions.hex(duotoneShadows)):\(ProcessingOptions.hex(duotoneHighlights))"
                )
            }
            if colorizeOpacity > 0 {
                out.append("colorize:\(ProcessingOptions.number(colorizeOpacity)):\(ProcessingOptions.hex(colorizeColor)):\(colorizeKeepsAlpha ? 1 : 0)")
            }
            return out
        }
    }

    /// Reads one of the adjustment options into ``adjustments``; `false` when `name` is not one.
    mutating func applyAdjustment(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        if try applyLevelAdjustment(name, a) { return true }
        if try applyTintAdjustment(name, a) { return true }
        if try applyDetectionOption(name, a) { return true }
        switch name {
        case "rounded_corners", "rc":
            let radius = try a.single(try a.nonNegative(0))
            guard radius <= 100_000 else { throw a.fail("\(radius) pixels is more than 100000") }
            roundedCorners = radius
        default: return false
        }
        return true
    }

    /// Brightness, contrast and saturation: `brightness`, `contrast`, `saturation` and `adjust`
    /// (all three at once); `false` when `name` is none of them.
    private mutating func applyLevelAdjustment(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "brightness", "br": adjustments.brightness = try a.single(try a.level(0))
        case "contrast", "co": adjustments.contrast = try a.single(try a.factor(0))
        case "saturation", "sa": adjustments.saturation = try a.single(try a.factor(0))
        case "adjust", "a":
            try a.atMost(3)
            if !args[0].isEmpty { adjustments.brightness = try a.level(0) }
            if args.count > 1, !args[1].isEmpty { adjustments.contrast = try a.factor(1) }
            if args.count > 2, !args[2].isEmpty { adjustments.saturation = try a.factor(2) }
        default: return false
        }
        return true
    }

    /// Tints: `monochrome`, `duotone` and `colorize`; `false` when `name` is none of them.
    private mutating func applyTintAdjustment(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "monochrome", "mc":
            try a.atMost(2)
            adjustments.monochromeIntensity = try a.unit(0)
            if args.count > 1, !args[1].isEmpty { adjustments.monochromeColor = try a.hexColor(1) }
        case "duotone", "dt":
            try a.atMost(3)
            adjustments.duotoneIntensity = try a.unit(0)
            if args.count > 1, !args[1].isEmpty { adjustments.duotoneShadows = try a.hexColor(1) }
            if args.count > 2, !args[2].isEmpty { adjustments.duotoneHighlights = try a.hexColor(2) }
        case "colorize", "col":
            try a.atMost(3)
            adjustments.colorizeOpacity = try a.unit(0)
            if args.count > 1, !args[1].isEmpty { adjustments.colorizeColor = try a.hexColor(1) }
            if args.count > 2, !args[2].isEmpty { adjustments.colorizeKeepsAlpha = a.bool(2) }
        default: return false
        }
        return true
    }

    /// Detected objects: `objects_position`, `blur_detections` and `draw_detections`; `false`
    /// when `name` is none of them.
    private mutating func applyDetectionOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        let args = a.values
        switch name {
        case "objects_position", "obj_pos", "op":
            if args[0] == "prop" {
                try a.atMost(1)
                objectsPosition = ObjectsPosition(gravity: .center, proportional: true)
            } else {
                objectsPosition = ObjectsPosition(gravity: try a.gravity(from: 0, current: objectsPosition?.gravity ?? .center, smart: false))
            }
        case "blur_detections", "bd", "draw_detections", "dd":
            let blur = name == "blur_detections" || name == "bd"
            let on = blur ? try a.nonNegative(0) : (a.bool(0) ? 1 : 0)
            guard on <= 1000 else { throw a.fail("a sigma of \(on) is more than 1000") }
            let classes = Array(args.dropFirst()).filter { !$0.isEmpty }
            guard classes.count <= 16,
                classes.allSatisfy({ c in c.count <= 64 && c.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") } })
            else { throw a.fail("object classes are at most 16 names of letters, digits, _ and -") }
            let setting = on > 0 ? Detections(sigma: blur ? on : 0, classes: classes.sorted()) : nil
            if blur { blurDetections = setting } else { drawDetections = setting }
        default: return false
        }
        return true
    }
}

extension OptionArguments {
    /// An adjustment's intensity or opacity: a number within 0...1.
    fileprivate func unit(_ i: Int) throws(ServiceURLError) -> Double {
        let v = try number(i)
        guard (0...1).contains(v) else { throw fail("\(v) is not within 0...1") }
        return v
    }

    /// An adjustment's factor (contrast, saturation): a non-negative number up to 1000.
    fileprivate func factor(_ i: Int) throws(ServiceURLError) -> Double {
        let v = try nonNegative(i)
        guard v <= 1000 else { throw fail("\(v) is over 1000") }
        return v
    }

    /// An adjustment's level (brightness): an integer within -255...255.
    fileprivate func level(_ i: Int) throws(ServiceURLError) -> Int {
        let v = try integer(i)
        guard (-255...255).contains(v) else { throw fail("\(v) is not within -255...255") }
        return v
    }
}
