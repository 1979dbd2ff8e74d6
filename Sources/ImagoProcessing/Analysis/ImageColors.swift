// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImageQuant
public import ImagoCore

/// Colour summaries of an image: its average, a quantized palette, and the six dominant colours
/// of Android's Palette (vibrant, muted, and their light and dark variants), as imgproxy Pro's
/// `/info` reports them.
///
/// Palettes are quantized by libimagequant (the quantizer Imago's GIF encoder uses) over a sample
/// of at most 200×200 pixels, so their cost does not grow with the image.
public enum ImageColors {
    /// The six colours Android's Palette picks (`nil` where no colour of the image fits the
    /// target and none was built).
    public struct DominantColors: Sendable, Hashable {
        /// Saturated (at least 0.35), of middle lightness (0.3–0.7, aiming at 0.5).
        public var vibrant: RGBA8?
        /// Saturated (at least 0.35), light (0.55–1, aiming at 0.74).
        public var lightVibrant: RGBA8?
        /// Saturated (at least 0.35), dark (0–0.45, aiming at 0.26).
        public var darkVibrant: RGBA8?
        /// Greyish (saturation 0–0.4), of middle lightness (0.3–0.7, aiming at 0.5).
        public var muted: RGBA8?
        /// Greyish (saturation 0–0.4), light (0.55–1, aiming at 0.74).
        public var lightMuted: RGBA8?
        /// Greyish (saturation 0–0.4), dark (0–0.45, aiming at 0.26).
        public var darkMuted: RGBA8?

        /// The colours by imgproxy Pro's names (`vibrant`, `light_vibrant`, …), found ones only.
        package var named: [(name: String, color: RGBA8)] {
            let all: [(String, RGBA8?)] = [
                ("vibrant", vibrant), ("light_vibrant", lightVibrant), ("dark_vibrant", darkVibrant),
                ("muted", muted), ("light_muted", lightMuted), ("dark_muted", darkMuted)
            ]
            return all.compactMap { entry in entry.1.map { (entry.0, $0) } }
        }
    }

    /// The largest side of the sample palettes are quantized from.
    static let sampleSide = 200

    /// The average colour of `buffer`'s pixels (straight colour, and the average alpha).
    ///
    /// - Parameters:
    ///   - buffer: Any pixel format.
    ///   - ignoringTransparent: Leave fully transparent pixels out (their colour is meaningless).
    ///     Default `true`. An image with no other pixel averages to transparent black.
    public static func average(_ buffer: PixelBuffer, ignoringTransparent: Bool = true) -> RGBA8 {
        let rgba = buffer.converted(to: .rgba8)
        var sums = (0, 0, 0, 0)
        var count = 0
        rgba.withUnsafeBytes { raw in
            for i in stride(from: 0, to: rgba.width * rgba.height * 4, by: 4) {
                let a = Int(raw[i + 3])
                if ignoringTransparent, a == 0 { continue }
                sums.0 += Int(raw[i])
                sums.1 += Int(raw[i + 1])
                sums.2 += Int(raw[i + 2])
                sums.3 += a
                count += 1
            }
        }
        guard count > 0 else { return RGBA8(r: 0, g: 0, b: 0, a: 0) }
        func mean(_ s: Int) -> UInt8 { UInt8((s + count / 2) / count) }
        return RGBA8(r: mean(sums.0), g: mean(sums.1), b: mean(sums.2), a: mean(sums.3))
    }

    /// At most `colors` colours that represent `buffer`, most used first, quantized by
    /// libimagequant (an image with fewer distinct colours gets fewer).
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for `colors` outside 2...256 or an
    ///   empty buffer.
    public static func palette(_ buffer: PixelBuffer, colors: Int) throws -> [RGBA8] {
        guard (2...256).contains(colors) else { throw ImageCodingError.invalidArgument("a palette has 2...256 colours, not \(colors)") }
        return try swatches(of: buffer.placeholderSample(maxSide: sampleSide), colors: colors).map(\.color)
    }

    /// The dominant colours of `buffer`, chosen as Android's Palette chooses them: the image
    /// quantized to 16 colours, near-black and near-white ones left out, and for each of the six
    /// targets the unused colour whose lightness and saturation lie in the target's range and
    /// score best on closeness to the target (weights 0.52 lightness, 0.24 saturation) and on
    /// population (0.24).
    ///
    /// - Parameters:
    ///   - buffer: Any pixel format.
    ///   - buildingMissing: Fill targets no colour fits from a found relative, as node-vibrant
    ///     does: a missing vibrant or muted colour from its dark or light variant at the middle
    ///     lightness, a missing dark or light variant from its middle one at the target
    ///     lightness. Default `false`.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for an empty buffer.
    public static func dominantColors(_ buffer: PixelBuffer, buildingMissing: Bool = false) throws -> DominantColors {
        let found = try swatches(of: buffer.placeholderSample(maxSide: sampleSide), colors: 16)
            .filter { $0.color.a >= 128 }
            .map { Swatch(color: $0.color, population: $0.population) }
            .filter { !$0.isBlackOrWhite }
        let maxPopulation = Double(found.map(\.population).max() ?? 1)
        var used = Set<Int>()
        func pick(_ target: Target) -> RGBA8? {
            var best: (index: Int, score: Double)?
            for (i, s) in found.enumerated() where !used.contains(i) {
                guard (target.minSaturation...target.maxSaturation).contains(s.hsl.s),
                    (target.minLightness...target.maxLightness).contains(s.hsl.l)
                else { continue }
                let score =
                    0.24 * (1 - abs(s.hsl.s - target.saturation)) + 0.52 * (1 - abs(s.hsl.l - target.lightness))
                    + 0.24 * Double(s.population) / maxPopulation
                if best.map({ score > $0.score }) ?? true { best = (i, score) }
            }
            guard let best else { return nil }
            used.insert(best.index)
            return found[best.index].color
        }
        var result = DominantColors()
        result.vibrant = pick(.vibrant)
        result.lightVibrant = pick(.lightVibrant)
        result.darkVibrant = pick(.darkVibrant)
        result.muted = pick(.muted)
        result.lightMuted = pick(.lightMuted)
        result.darkMuted = pick(.darkMuted)
        if buildingMissing {
            func rebuilt(_ color: RGBA8?, lightness: Double) -> RGBA8? {
                color.map { c in
                    let hsl = HSL(c)
                    return HSL(h: hsl.h, s: hsl.s, l: lightness).rgba
                }
            }
            result.vibrant = result.vibrant ?? rebuilt(result.darkVibrant ?? result.lightVibrant, lightness: Target.vibrant.lightness)
            result.darkVibrant = result.darkVibrant ?? rebuilt(result.vibrant, lightness: Target.darkVibrant.lightness)
            result.lightVibrant = result.lightVibrant ?? rebuilt(result.vibrant, lightness: Target.lightVibrant.lightness)
            result.muted = result.muted ?? rebuilt(result.darkMuted ?? result.lightMuted, lightness: Target.muted.lightness)
            result.darkMuted = result.darkMuted ?? rebuilt(result.muted, lightness: Target.darkMuted.lightness)
            result.lightMuted = result.lightMuted ?? rebuilt(result.muted, lightness: Target.lightMuted.lightness)
        }
        return result
    }

    /// Whether any pixel of `buffer` is less than opaque (an alpha channel alone is not enough).
    package static func hasTransparency(_ buffer: PixelBuffer) -> Bool { !buffer.isOpaque }

    // MARK: Quantizing

    /// The colours libimagequant makes of `sample` (tight `rgba8`) and how many pixels each
    /// stands for, most used first.
    static func swatches(of sample: PixelBuffer, colors: Int) throws -> [(color: RGBA8, population: Int)] {
        guard let attr = liq_attr_create() else { throw ImageCodingError.invalidArgument("libimagequant could not start") }
        defer { liq_attr_destroy(attr) }
        liq_set_max_colors(attr, Int32(colors))
        liq_set_speed(attr, 8)
        let w = sample.width, h = sample.height
        return try sample.withUnsafeBytes { raw -> [(color: RGBA8, population: Int)] in
            guard let base = raw.baseAddress,
                let image = liq_image_create_rgba(attr, base, Int32(w), Int32(h), 0)
            else { throw ImageCodingError.invalidArgument("libimagequant refused a \(w)x\(h) image") }
            defer { liq_image_destroy(image) }
            var result: OpaquePointer?
            guard liq_image_quantize(image, attr, &result) == LIQ_OK, let result else {
                throw ImageCodingError.invalidArgument("libimagequant could not quantize the image")
            }
            defer { liq_result_destroy(result) }
            liq_set_dithering_level(result, 0)
            var indices = [UInt8](repeating: 0, count: w * h)
            let status = indices.withUnsafeMutableBytes { out -> liq_error in
                guard let target = out.baseAddress else { return LIQ_BUFFER_TOO_SMALL }
                return liq_write_remapped_image(result, image, target, w * h)
            }
            guard status == LIQ_OK, let palette = liq_get_palette(result)?.pointee else {
                throw ImageCodingError.invalidArgument("libimagequant could not map the image")
            }
            var counts = [Int](repeating: 0, count: 256)
            for i in indices { counts[Int(i)] += 1 }
            let entries = withUnsafeBytes(of: palette.entries) { e in
                (0..<Int(palette.count)).map { i in (color: RGBA8(r: e[i * 4], g: e[i * 4 + 1], b: e[i * 4 + 2], a: e[i * 4 + 3]), population: counts[i]) }
            }
            return entries.filter { $0.population > 0 }.sorted { $0.population > $1.population }
        }
    }

    /// A quantized colour with its population and HSL.
    struct Swatch {
        var color: RGBA8
        var population: Int
        var hsl: HSL

        init(color: RGBA8, population: Int) {
            self.color = color
            self.population = population
            hsl = HSL(color)
        }

        /// Android's Palette leaves out near black (lightness ≤ 0.05) and near white (≥ 0.95).
        var isBlackOrWhite: Bool { hsl.l <= 0.05 || hsl.l >= 0.95 }
    }

    /// One of Android Palette's six targets.
    struct Target {
        var lightness, minLightness, maxLightness, saturation, minSaturation, maxSaturation: Double

        static let lightVibrant = Target(lightness: 0.74, minLightness: 0.55, maxLightness: 1, saturation: 1, minSaturation: 0.35, maxSaturation: 1)
        static let vibrant = Target(lightness: 0.5, minLightness: 0.3, maxLightness: 0.7, saturation: 1, minSaturation: 0.35, maxSaturation: 1)
        static let darkVibrant = Target(lightness: 0.26, minLightness: 0, maxLightness: 0.45, saturation: 1, minSaturation: 0.35, maxSaturation: 1)
        static let lightMuted = Target(lightness: 0.74, minLightness: 0.55, maxLightness: 1, saturation: 0.3, minSaturation: 0, maxSaturation: 0.4)
        static let muted = Target(lightness: 0.5, minLightness: 0.3, maxLightness: 0.7, saturation: 0.3, minSaturation: 0, maxSaturation: 0.4)
        static let darkMuted = Target(lightness: 0.26, minLightness: 0, maxLightness: 0.45, saturation: 0.3, minSaturation: 0, maxSaturation: 0.4)
    }

    /// Hue (degrees), saturation and lightness, each unit but hue.
    struct HSL {
        var h, s, l: Double

        init(h: Double, s: Double, l: Double) {
            self.h = h
            self.s = s
            self.l = l
        }

        init(_ c: RGBA8) {
            let r = Double(c.r) / 255, g = Double(c.g) / 255, b = Double(c.b) / 255
            let maxC = max(r, g, b), minC = min(r, g, b), delta = maxC - minC
            l = (maxC + minC) / 2
            guard delta > 0 else {
                h = 0
                s = 0
                return
            }
            s = delta / (1 - abs(2 * l - 1))
            switch maxC {
            case r: h = 60 * ((g - b) / delta).truncatingRemainder(dividingBy: 6)
            case g: h = 60 * ((b - r) / delta + 2)
            default: h = 60 * ((r - g) / delta + 4)
            }
            if h < 0 { h += 360 }
        }

        var rgba: RGBA8 {
            let c = (1 - abs(2 * l - 1)) * s
            let hp = h / 60
            let x = c * (1 - abs(hp.truncatingRemainder(dividingBy: 2) - 1))
            let m = l - c / 2
            let (r, g, b): (Double, Double, Double)
            switch hp {
            case ..<1: (r, g, b) = (c, x, 0)
            case ..<2: (r, g, b) = (x, c, 0)
            case ..<3: (r, g, b) = (0, c, x)
            case ..<4: (r, g, b) = (0, x, c)
            case ..<5: (r, g, b) = (x, 0, c)
            default: (r, g, b) = (c, 0, x)
            }
            func level(_ v: Double) -> UInt8 { UInt8(max(0, min(255, ((v + m) * 255).rounded()))) }
            return RGBA8(r: level(r), g: level(g), b: level(b))
        }
    }
}
