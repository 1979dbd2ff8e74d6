// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(Glibc)
import Glibc
#endif

extension ImageTransformers {
    /// Colour adjustments, as imgproxy Pro names them, applied together in one pass over the
    /// pixels (straight colour; alpha kept but by ``colorizeOpacity`` without
    /// ``colorizeKeepsAlpha``), in this order:
    ///
    /// 1. ``brightness`` (−255...255, added to each channel) and ``contrast`` (a factor about the
    ///    middle level 128), through one lookup table;
    /// 2. ``saturation``: CIE LCh chroma multiplied, lightness and hue kept (0 is gray);
    /// 3. ``monochrome``: the CIE lightness mapped onto a ramp from black through the colour (at
    ///    its own lightness) to white, mixed in by the intensity: the default colour `b3b3b3`
    ///    gives neutral gray;
    /// 4. ``duotone``: the lightness mapped from the first colour (shadows) to the second
    ///    (highlights), mixed in by the intensity;
    /// 5. colorize (``colorizeOpacity``, ``colorizeColor``): a flat colour laid over the image at the opacity; transparent parts are
    ///    covered too unless ``colorizeKeepsAlpha``.
    ///
    /// A setting at its default (brightness 0, contrast and saturation 1, intensities and
    /// opacity 0) costs nothing; all at their defaults return the buffer as it was.
    public struct ColorAdjust: ImageTransforming {
        /// Added to each colour channel, −255...255. Default 0.
        public var brightness: Int
        /// Contrast factor about level 128, at least 0. Default 1.
        public var contrast: Double
        /// Chroma factor, at least 0 (0: gray). Default 1.
        public var saturation: Double
        /// Intensity 0...1 and the ramp's colour. Default `(0, b3b3b3)`.
        public var monochrome: (intensity: Double, color: RGBA8)
        /// Intensity 0...1, the shadows' and the highlights' colours. Default `(0, 000000, ffffff)`.
        public var duotone: (intensity: Double, shadows: RGBA8, highlights: RGBA8)
        /// Opacity 0...1 of the flat colour laid over. Default 0.
        public var colorizeOpacity: Double
        /// The colour laid over. Default black.
        public var colorizeColor: RGBA8
        /// Keep the image's alpha under the colour. Default `false`.
        public var colorizeKeepsAlpha: Bool

        /// Creates the adjustments; every argument defaults to "no change".
        public init(
            brightness: Int = 0, contrast: Double = 1, saturation: Double = 1,
            monochrome: (intensity: Double, color: RGBA8) = (0, RGBA8(r: 0xb3, g: 0xb3, b: 0xb3)),
            duotone: (intensity: Double, shadows: RGBA8, highlights: RGBA8) = (0, RGBA8(r: 0, g: 0, b: 0), RGBA8(r: 255, g: 255, b: 255)),
            colorizeOpacity: Double = 0, colorizeColor: RGBA8 = RGBA8(r: 0, g: 0, b: 0), colorizeKeepsAlpha: Bool = false
        ) {
            self.brightness = brightness
            self.contrast = contrast
            self.saturation = saturation
            self.monochrome = monochrome
            self.duotone = duotone
            self.colorizeOpacity = colorizeOpacity
            self.colorizeColor = colorizeColor
            self.colorizeKeepsAlpha = colorizeKeepsAlpha
        }

        /// Whether every setting is at its default (the transform changes nothing).
        public var isIdentity: Bool {
            brightness == 0 && contrast == 1 && saturation == 1 && monochrome.intensity == 0 && duotone.intensity == 0 && colorizeOpacity == 0
        }

        /// `ColorAdjust(br,co,sa,mc…,dt…,col…)`, only the settings that act.
        public var key: String {
            func hex(_ c: RGBA8) -> String { PathName.hex([c.r, c.g, c.b]) }
            var parts: [String] = []
            if brightness != 0 { parts.append("br\(brightness)") }
            if contrast != 1 { parts.append("co\(contrast)") }
            if saturation != 1 { parts.append("sa\(saturation)") }
            if monochrome.intensity > 0 { parts.append("mc\(monochrome.intensity):\(hex(monochrome.color))") }
            if duotone.intensity > 0 { parts.append("dt\(duotone.intensity):\(hex(duotone.shadows)):\(hex(duotone.highlights))") }
            if colorizeOpacity > 0 { parts.append("col\(colorizeOpacity):\(hex(colorizeColor)):\(colorizeKeepsAlpha ? 1 : 0)") }
            return "ColorAdjust(\(parts.joined(separator: ",")))"
        }

        /// - Throws: `ImageCodingError.invalidArgument(_:)` for a setting out of its range (or
        ///   not finite).
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            try validate()
            if isIdentity { return buffer }
            var out = buffer.converted(to: .rgba8)
            let pass = pixelPass()
            out.withUnsafeMutableBytes { raw in adjust(raw, pass) }
            return out.converted(to: .argb32Premultiplied)
        }

        /// Checks every setting against its range.
        private func validate() throws {
            guard (-255...255).contains(brightness), contrast.isFinite, contrast >= 0, saturation.isFinite, saturation >= 0,
                (0...1).contains(monochrome.intensity), (0...1).contains(duotone.intensity), (0...1).contains(colorizeOpacity)
            else {
                throw ImageCodingError.invalidArgument("colour adjustments out of range: \(key)")
            }
        }

        /// What the pass over the pixels needs, worked out once from the settings.
        private struct PixelPass {
            var levels: [Float]
            var lab: LabTables
            var needsLab: Bool
            var mono: Ramp?
            var shadows: (Float, Float, Float), highlights: (Float, Float, Float), col: (Float, Float, Float)
            var opacity: Float, monoIntensity: Float, duoIntensity: Float, chroma: Float
        }

        /// The level table, the Lab tables and ramp when needed, and the settings as unit values.
        private func pixelPass() -> PixelPass {
            let levels = Self.levels(brightness: brightness, contrast: contrast)
            let lab = LabTables.shared
            let needsLab = saturation != 1 || monochrome.intensity > 0 || duotone.intensity > 0
            let mono = monochrome.intensity > 0 ? Ramp(monochrome.color, tables: lab) : nil
            let shadows = Self.unit(duotone.shadows), highlights = Self.unit(duotone.highlights)
            let col = Self.unit(colorizeColor), opacity = Float(colorizeOpacity)
            let monoIntensity = Float(monochrome.intensity), duoIntensity = Float(duotone.intensity), chroma = Float(saturation)
            return PixelPass(
                levels: levels, lab: lab, needsLab: needsLab, mono: mono, shadows: shadows, highlights: highlights, col: col,
                opacity: opacity, monoIntensity: monoIntensity, duoIntensity: duoIntensity, chroma: chroma)
        }

        /// The one pass over straight `rgba8` pixels: levels, then Lab adjustments, then colorize.
        private func adjust(_ raw: UnsafeMutableRawBufferPointer, _ pass: PixelPass) {
            let levels = pass.levels, lab = pass.lab, needsLab = pass.needsLab, mono = pass.mono
            let shadows = pass.shadows, highlights = pass.highlights, col = pass.col, opacity = pass.opacity
            let monoIntensity = pass.monoIntensity, duoIntensity = pass.duoIntensity, chroma = pass.chroma
            guard let p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for i in stride(from: 0, to: raw.count, by: 4) {
                var r = levels[Int(p[i])], g = levels[Int(p[i + 1])], b = levels[Int(p[i + 2])]
                if needsLab {
                    var c = lab.lab(r, g, b)
                    if chroma != 1 {
                        c.a *= chroma
                        c.b *= chroma
                    }
                    var rgb = chroma != 1 ? lab.srgb(c) : (r, g, b)
                    let lightness = max(0, min(1, c.l / 100))
                    if let mono {
                        let m = mono.color(at: lightness)
                        rgb = Self.mix(rgb, m, monoIntensity)
                    }
                    if duoIntensity > 0 {
                        let d = (
                            shadows.0 + (highlights.0 - shadows.0) * lightness, shadows.1 + (highlights.1 - shadows.1) * lightness,
                            shadows.2 + (highlights.2 - shadows.2) * lightness
                        )
                        rgb = Self.mix(rgb, d, duoIntensity)
                    }
                    (r, g, b) = rgb
                }
                if opacity > 0 {
                    let a = Float(p[i + 3]) / 255
                    if colorizeKeepsAlpha || a == 1 {
                        (r, g, b) = Self.mix((r, g, b), col, opacity)
                    } else {
                        // The colour layer over the image: alpha grows where the image was clear.
                        let outA = opacity + a * (1 - opacity)
                        let k = a * (1 - opacity)
                        if outA > 0 {
                            r = (col.0 * opacity + r * k) / outA
                            g = (col.1 * opacity + g * k) / outA
                            b = (col.2 * opacity + b * k) / outA
                        }
                        p[i + 3] = Self.level(outA)
                    }
                }
                p[i] = Self.level(r)
                p[i + 1] = Self.level(g)
                p[i + 2] = Self.level(b)
            }
        }

        /// Each level after brightness, then contrast about 128, as a unit value.
        static func levels(brightness: Int, contrast: Double) -> [Float] {
            (0..<256).map { v in
                let shifted = Double(v + brightness)
                return Float(max(0, min(255, (shifted - 128) * contrast + 128)) / 255)
            }
        }

        static func unit(_ c: RGBA8) -> (Float, Float, Float) { (Float(c.r) / 255, Float(c.g) / 255, Float(c.b) / 255) }

        static func mix(_ a: (Float, Float, Float), _ b: (Float, Float, Float), _ t: Float) -> (Float, Float, Float) {
            (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t, a.2 + (b.2 - a.2) * t)
        }

        static func level(_ v: Float) -> UInt8 { UInt8(max(0, min(255, v * 255 + 0.5))) }

        /// Monochrome's ramp: black at lightness 0, the colour at its own lightness, white at 1.
        struct Ramp {
            var color: (Float, Float, Float)
            var lightness: Float

            init(_ c: RGBA8, tables: LabTables) {
                color = ColorAdjust.unit(c)
                lightness = max(0.001, min(0.999, tables.lab(color.0, color.1, color.2).l / 100))
            }

            func color(at t: Float) -> (Float, Float, Float) {
                if t <= lightness { return ColorAdjust.mix((0, 0, 0), color, t / lightness) }
                return ColorAdjust.mix(color, (1, 1, 1), (t - lightness) / (1 - lightness))
            }
        }
    }

    /// sRGB (D65) to CIE L*a*b* and back, with the transfer curves as tables.
    struct LabTables: Sendable {
        static let shared = LabTables()
        /// sRGB unit value (in 1/4095 steps) to linear light.
        let toLinear: [Float]
        /// Linear light (in 1/4095 steps) to sRGB unit value.
        let fromLinear: [Float]

        init() {
            toLinear = (0...4095).map { i in
                let v = Double(i) / 4095
                return Float(v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4))
            }
            fromLinear = (0...4095).map { i in
                let v = Double(i) / 4095
                return Float(v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055)
            }
        }

        private static func index(_ v: Float) -> Int { Int(max(0, min(4095, v * 4095 + 0.5))) }

        func lab(_ r: Float, _ g: Float, _ b: Float) -> (l: Float, a: Float, b: Float) {
            let lr = toLinear[Self.index(r)], lg = toLinear[Self.index(g)], lb = toLinear[Self.index(b)]
            // Linear sRGB to XYZ (D65), relative to the white point.
            let x = (0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / 0.95047
            let y = 0.2126729 * lr + 0.7151522 * lg + 0.0721750 * lb
            let z = (0.0193339 * lr + 0.1191920 * lg + 0.9503041 * lb) / 1.08883
            func f(_ t: Float) -> Float { t > 216.0 / 24389.0 ? cbrtf(t) : (24389.0 / 27.0 * t + 16) / 116 }
            let fx = f(x), fy = f(y), fz = f(z)
            return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
        }

        func srgb(_ c: (l: Float, a: Float, b: Float)) -> (Float, Float, Float) {
            let fy = (c.l + 16) / 116, fx = fy + c.a / 500, fz = fy - c.b / 200
            func finv(_ t: Float) -> Float { t * t * t > 216.0 / 24389.0 ? t * t * t : (116 * t - 16) * 27.0 / 24389.0 }
            let x = finv(fx) * 0.95047, y = finv(fy), z = finv(fz) * 1.08883
            let lr = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z
            let lg = -0.9692660 * x + 1.8760108 * y + 0.0415560 * z
            let lb = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z
            return (fromLinear[Self.index(lr)], fromLinear[Self.index(lg)], fromLinear[Self.index(lb)])
        }
    }
}
