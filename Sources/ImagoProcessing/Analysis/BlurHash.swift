// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(Glibc)
import Glibc
#endif

/// BlurHash placeholders (Wolt's format, blurha.sh): a few cosine components of an image in
/// 20–30 ASCII characters, decoded into a blurred picture to show while the image loads, as the
/// BlurHash plugins of SDWebImage and Kingfisher do.
///
/// Encoding and decoding follow the reference implementation (and the `blurhash` package on
/// PyPI, which ports it): components are computed in linear light over the image's colour
/// (alpha is ignored, as the reference does), the DC term is kept as sRGB and the AC terms are
/// quantised to 19 levels against their largest magnitude.
///
/// ```swift
/// let hash = try BlurHash.encode(image.buffer)          // "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
/// let placeholder = try BlurHash.decode(hash, width: 32, height: 32)
/// ```
public enum BlurHash {
    /// The characters of the hash's base-83 digits, in order.
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)
    static let digitValues: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()

    /// The largest placeholder ``decode(_:width:height:punch:)`` makes: 1024×1024. A placeholder
    /// is meant to be decoded small and scaled up.
    public static let maxDecodedSide = 1024

    /// Encodes `buffer` (any pixel format, any size) as a BlurHash of `componentsX` ×
    /// `componentsY` cosine components.
    ///
    /// Images larger than 100×100 are first shrunk to fit 100×100 (the components of a blur need
    /// no more), so the cost is bounded whatever the size.
    ///
    /// - Parameters:
    ///   - buffer: The pixels; their straight colour is used, their alpha ignored.
    ///   - componentsX: Horizontal components, 1...9. Default 4.
    ///   - componentsY: Vertical components, 1...9. Default 3.
    /// - Returns: A hash of `4 + 2 × componentsX × componentsY` characters.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for component counts outside 1...9 or
    ///   an empty buffer.
    public static func encode(_ buffer: PixelBuffer, componentsX: Int = 4, componentsY: Int = 3) throws -> String {
        guard (1...9).contains(componentsX), (1...9).contains(componentsY) else {
            throw ImageCodingError.invalidArgument("BlurHash components must be 1...9, not \(componentsX)x\(componentsY)")
        }
        let sample = try buffer.placeholderSample(maxSide: 100)
        return encode(sample: sample, componentsX: componentsX, componentsY: componentsY)
    }

    /// Encodes `sample` (tight `rgba8`) as it is, without shrinking.
    static func encode(sample: PixelBuffer, componentsX cx: Int, componentsY cy: Int) -> String {
        let w = sample.width, h = sample.height
        let linear = (0..<256).map { srgbToLinear(Double($0) / 255) }
        // Each pixel's linear channels, once.
        var r = [Double](repeating: 0, count: w * h), g = r, b = r
        sample.withUnsafeBytes { raw in
            for i in 0..<(w * h) {
                r[i] = linear[Int(raw[i * 4])]
                g[i] = linear[Int(raw[i * 4 + 1])]
                b[i] = linear[Int(raw[i * 4 + 2])]
            }
        }
        var factors: [(Double, Double, Double)] = []
        factors.reserveCapacity(cx * cy)
        for j in 0..<cy {
            let cosY = (0..<h).map { cos(Double.pi * Double(j) * Double($0) / Double(h)) }
            for i in 0..<cx {
                let cosX = (0..<w).map { cos(Double.pi * Double(i) * Double($0) / Double(w)) }
                var sr = 0.0, sg = 0.0, sb = 0.0
                for y in 0..<h {
                    let fy = cosY[y]
                    for x in 0..<w {
                        let basis = cosX[x] * fy
                        let p = y * w + x
                        sr += basis * r[p]
                        sg += basis * g[p]
                        sb += basis * b[p]
                    }
                }
                let scale = (i == 0 && j == 0 ? 1.0 : 2.0) / Double(w * h)
                factors.append((sr * scale, sg * scale, sb * scale))
            }
        }
        let dc = factors[0]
        let ac = factors.dropFirst()
        var maximum = 0.0
        for f in ac { maximum = max(maximum, abs(f.0), abs(f.1), abs(f.2)) }
        let quantisedMaximum = ac.isEmpty ? 0 : Int(max(0, min(82, (maximum * 166 - 0.5).rounded(.down))))
        let maximumValue = ac.isEmpty ? 1 : Double(quantisedMaximum + 1) / 166

        var hash: [UInt8] = []
        hash.reserveCapacity(4 + 2 * cx * cy)
        appendBase83((cx - 1) + (cy - 1) * 9, length: 1, to: &hash)
        appendBase83(quantisedMaximum, length: 1, to: &hash)
        appendBase83((linearToSRGB(dc.0) << 16) + (linearToSRGB(dc.1) << 8) + linearToSRGB(dc.2), length: 4, to: &hash)
        func quantise(_ v: Double) -> Int {
            Int(max(0, min(18, (signPow(v / maximumValue, 0.5) * 9 + 9.5).rounded(.down))))
        }
        for f in ac {
            appendBase83(quantise(f.0) * 19 * 19 + quantise(f.1) * 19 + quantise(f.2), length: 2, to: &hash)
        }
        return String(decoding: hash, as: UTF8.self)
    }

    /// The numbers of horizontal and vertical components `hash` holds.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` when `hash` is not a well-formed
    ///   BlurHash (wrong length for its components, or a character outside the alphabet).
    public static func components(of hash: String) throws -> (x: Int, y: Int) {
        let parsed = try Parsed(hash)
        return (parsed.cx, parsed.cy)
    }

    /// The average colour `hash` records (its DC term), opaque.
    ///
    /// - Throws: as ``components(of:)``.
    public static func averageColor(of hash: String) throws -> RGBA8 {
        let parsed = try Parsed(hash)
        let dc = parsed.colors[0]
        return RGBA8(r: UInt8(linearToSRGB(dc.0)), g: UInt8(linearToSRGB(dc.1)), b: UInt8(linearToSRGB(dc.2)))
    }

    /// Decodes `hash` into an opaque `rgb8` picture of `width` × `height`.
    ///
    /// - Parameters:
    ///   - hash: A BlurHash.
    ///   - width: The picture's width, 1...``maxDecodedSide``. Default 32.
    ///   - height: The picture's height, 1...``maxDecodedSide``. Default 32.
    ///   - punch: Scales the contrast of the AC components (the reference's `punch`). Default 1.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a malformed hash, a size outside
    ///   1...``maxDecodedSide`` or a punch that is not finite and positive.
    public static func decode(_ hash: String, width: Int = 32, height: Int = 32, punch: Double = 1) throws -> PixelBuffer {
        guard (1...maxDecodedSide).contains(width), (1...maxDecodedSide).contains(height) else {
            throw ImageCodingError.invalidArgument("a BlurHash placeholder must be 1...\(maxDecodedSide) pixels a side, not \(width)x\(height)")
        }
        guard punch.isFinite, punch > 0 else { throw ImageCodingError.invalidArgument("BlurHash punch must be positive, not \(punch)") }
        var parsed = try Parsed(hash)
        let scaleAC = punch
        for k in 1..<parsed.colors.count {
            let c = parsed.colors[k]
            parsed.colors[k] = (c.0 * scaleAC, c.1 * scaleAC, c.2 * scaleAC)
        }
        let cx = parsed.cx, cy = parsed.cy, colors = parsed.colors
        let cosX = (0..<cx).map { i in (0..<width).map { cos(Double.pi * Double($0) * Double(i) / Double(width)) } }
        let cosY = (0..<cy).map { j in (0..<height).map { cos(Double.pi * Double($0) * Double(j) / Double(height)) } }
        return try PixelBuffer(uninitializedWidth: width, height: height, format: .rgb8) { raw in
            for y in 0..<height {
                for x in 0..<width {
                    var r = 0.0, g = 0.0, b = 0.0
                    for j in 0..<cy {
                        let fy = cosY[j][y]
                        for i in 0..<cx {
                            let basis = cosX[i][x] * fy
                            let c = colors[i + j * cx]
                            r += c.0 * basis
                            g += c.1 * basis
                            b += c.2 * basis
                        }
                    }
                    let o = (y * width + x) * 3
                    raw[o] = UInt8(linearToSRGB(r))
                    raw[o + 1] = UInt8(linearToSRGB(g))
                    raw[o + 2] = UInt8(linearToSRGB(b))
                }
            }
        }
    }

    /// A hash read into its component count and colours (DC in linear light, AC unscaled by punch).
    struct Parsed {
        var cx: Int
        var cy: Int
        var colors: [(Double, Double, Double)]

        init(_ hash: String) throws {
            let chars = Array(hash.utf8)
            guard chars.count >= 6 else { throw ImageCodingError.invalidArgument("a BlurHash has at least 6 characters, not \(chars.count)") }
            func digits(_ range: Range<Int>) throws -> Int {
                var value = 0
                for c in chars[range] {
                    let d = c < 128 ? BlurHash.digitValues[Int(c)] : -1
                    guard d >= 0 else { throw ImageCodingError.invalidArgument("a BlurHash has a character outside its base-83 alphabet") }
                    value = value * 83 + Int(d)
                }
                return value
            }
            let size = try digits(0..<1)
            cy = size / 9 + 1
            cx = size % 9 + 1
            guard chars.count == 4 + 2 * cx * cy else {
                throw ImageCodingError.invalidArgument("a BlurHash of \(cx)x\(cy) components has \(4 + 2 * cx * cy) characters, not \(chars.count)")
            }
            let maximum = Double(try digits(1..<2) + 1) / 166
            let dc = try digits(2..<6)
            colors = [(srgbToLinear(Double(dc >> 16) / 255), srgbToLinear(Double((dc >> 8) & 255) / 255), srgbToLinear(Double(dc & 255) / 255))]
            for k in 1..<(cx * cy) {
                let v = try digits((4 + k * 2)..<(6 + k * 2))
                func unquantise(_ q: Int) -> Double { signPow(Double(q - 9) / 9, 2) * maximum }
                colors.append((unquantise(v / (19 * 19)), unquantise((v / 19) % 19), unquantise(v % 19)))
            }
        }
    }

    static func appendBase83(_ value: Int, length: Int, to hash: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(1, length) { divisor *= 83 }
        for _ in 0..<length {
            hash.append(alphabet[(value / divisor) % 83])
            divisor /= 83
        }
    }

    static func srgbToLinear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }

    /// Linear light to an sRGB level 0...255 (clamped), rounded as the reference rounds.
    static func linearToSRGB(_ value: Double) -> Int {
        let v = max(0, min(1, value.isNaN ? 0 : value))
        if v <= 0.0031308 { return Int(v * 12.92 * 255 + 0.5) }
        return Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }

    static func signPow(_ v: Double, _ e: Double) -> Double { v < 0 ? -pow(-v, e) : pow(v, e) }
}
