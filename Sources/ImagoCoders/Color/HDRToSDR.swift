// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(Glibc)
import Glibc
#endif

/// HDR samples, coded with the PQ (SMPTE ST 2084) or HLG (ARIB STD-B67) transfer function, to
/// 8-bit sRGB for an SDR display of ``displayNits``, as libjxl's own decoder delivers them when
/// it is asked for sRGB at that intensity target (what `djxl --display_nits=255` gives).
///
/// The tone mapping of PQ is libjxl's for JPEG XL, done before the samples reach this (the
/// decoder is given the display's intensity target): PQ samples then peak at ``displayNits``.
/// For other formats (AVIF, HEIF), whose libraries do not map, it is Rec. ITU-R BT.2408's curve from
/// the source's peak (as libjxl 0.8 and later draw it): light below a knee is kept, light above
/// it is eased into the display's range in PQ's perceptual scale. HLG samples are
/// scene light, which HLG's OOTF turns into display light for a display of ``displayNits``, as
/// libjxl does for HLG. Then the primaries go to sRGB's, colours outside sRGB are mixed with
/// grey of their luminance until they fit (libjxl's gamut mapping: saturation kept at 10%), and
/// the sRGB curve is applied.
struct HDRToSDR: Sendable {
    /// The transfer function the samples are coded with.
    enum Transfer: Sendable {
        /// SMPTE ST 2084: code values to absolute light, 1.0 = 10,000 nits.
        case pq
        /// ARIB STD-B67 / BT.2100 HLG: code values to relative scene light.
        case hlg

        /// The transfer function an H.273 (CICP, nclx) transfer characteristics code names when
        /// it is an HDR one: 16 (PQ) or 18 (HLG); `nil` for every other code.
        init?(cicp code: Int) {
            switch code {
            case 16: self = .pq
            case 18: self = .hlg
            default: return nil
            }
        }
    }

    /// The conversion for samples an H.273 (CICP, nclx) description says are HDR (transfer
    /// characteristics 16 or 18), with its colour primaries code (``ColorPrimaries/cicp(_:)``);
    /// `nil` when the transfer is not PQ or HLG. PQ light is mapped from `contentPeak` nits
    /// (the file's maximum content light level) or, when the file gives none, from PQ's 10,000.
    init?(cicpTransfer transferCode: Int, primaries primariesCode: Int, contentPeak: Double? = nil) {
        guard let transfer = Transfer(cicp: transferCode) else { return nil }
        let (primaries, white) = ColorPrimaries.cicp(primariesCode)
        let peak = contentPeak.flatMap { $0 > 0 ? min($0, 10_000) : nil } ?? 10_000
        self.init(transfer: transfer, primaries: primaries, white: white, sourcePeak: transfer == .pq ? peak : nil)
    }

    /// The SDR display the samples are mapped for: 255 nits, libjxl's intensity target for SDR.
    static let displayNits: Double = 255

    let transfer: Transfer
    /// BT.2408's mapping from the source's peak, for PQ samples that were not mapped before.
    private let toneMap: Rec2408?
    /// Linear source RGB to linear sRGB (row-major), `nil` when the source is sRGB's primaries.
    private let matrix: [Float]?
    /// The source primaries' luminances (the Y row of their RGB to XYZ matrix), for HLG's OOTF.
    private let sourceLuminance: (Float, Float, Float)
    /// sRGB's primaries' luminances, for the gamut mapping.
    private static let srgbLuminance: (Float, Float, Float) = (0.2126, 0.7152, 0.0722)
    /// HLG's OOTF exponent for the display: γ − 1, with γ = 1.2 × 1.111^log2(nits / 1000).
    private static let hlgExponent = Float(1.2 * pow(1.111, log2(displayNits / 1000)) - 1)

    /// - Parameters:
    ///   - transfer: The samples' transfer function.
    ///   - primaries: The red, green and blue primaries' CIE xy chromaticities.
    ///   - white: The white point's xy.
    ///   - sourcePeak: For PQ samples not yet mapped to the display: the brightest light they
    ///     hold, in nits (10,000 when nothing says less), mapped with BT.2408's curve. Default
    ///     `nil`: the samples peak at ``displayNits`` already.
    init(transfer: Transfer, primaries: [(x: Double, y: Double)], white: (x: Double, y: Double), sourcePeak: Double? = nil) {
        self.transfer = transfer
        toneMap = transfer == .pq ? sourcePeak.map { Rec2408(sourcePeak: max($0, Self.displayNits), targetPeak: Self.displayNits) } : nil
        let toXYZ = ColorPrimaries.rgbToXYZ(primaries: primaries, white: white) ?? ColorPrimaries.srgbToXYZ
        let adapted = ColorPrimaries.multiply(ColorPrimaries.bradford(from: white, to: ColorPrimaries.d65), toXYZ)
        let toSRGB = ColorPrimaries.multiply(ColorPrimaries.xyzToSRGB, adapted)
        let identity = zip(toSRGB, [1.0, 0, 0, 0, 1, 0, 0, 0, 1]).allSatisfy { abs($0 - $1) < 1e-4 }
        matrix = identity ? nil : toSRGB.map { Float($0) }
        sourceLuminance = (Float(toXYZ[3]), Float(toXYZ[4]), Float(toXYZ[5]))
    }

    // MARK: Converting

    /// Converts `count` pixels of `channels` 16-bit samples (1 gray, 2 gray and alpha, 3 RGB,
    /// 4 RGBA) into 8-bit samples of the same layout.
    func convert(_ source: UnsafePointer<UInt16>, into destination: UnsafeMutablePointer<UInt8>, count: Int, channels: Int) {
        let table = transfer == .pq ? Self.pqTable : Self.hlgTable
        let color = channels >= 3
        for i in 0..<count {
            let s = source + i * channels, d = destination + i * channels
            if color {
                let (r, g, b) = map(table[Int(s[0])], table[Int(s[1])], table[Int(s[2])])
                d[0] = r
                d[1] = g
                d[2] = b
                if channels == 4 { d[3] = Self.alpha(s[3]) }
            } else {
                d[0] = mapGray(table[Int(s[0])])
                if channels == 2 { d[1] = Self.alpha(s[1]) }
            }
        }
    }

    /// Converts 8-bit samples in place (a partial image of a progressive decode, which libjxl
    /// writes at 8 bits): each is read as the 16-bit value it stands for.
    func convert(_ pixels: UnsafeMutablePointer<UInt8>, count: Int, channels: Int) {
        let table = transfer == .pq ? Self.pqTable : Self.hlgTable
        for i in 0..<count {
            let p = pixels + i * channels
            if channels >= 3 {
                (p[0], p[1], p[2]) = map(table[Int(p[0]) * 257], table[Int(p[1]) * 257], table[Int(p[2]) * 257])
            } else {
                p[0] = mapGray(table[Int(p[0]) * 257])
            }
        }
    }

    /// One colour from linear source light (1.0 = the display's peak for PQ; scene light for HLG).
    private func map(_ r: Float, _ g: Float, _ b: Float) -> (UInt8, UInt8, UInt8) {
        var (r, g, b) = (r, g, b)
        if let toneMap {
            let nits = Float(Self.displayNits) * (sourceLuminance.0 * r + sourceLuminance.1 * g + sourceLuminance.2 * b)
            (r, g, b) = toneMap.scaled(r, g, b, luminance: nits)
        }
        if transfer == .hlg {
            let y = sourceLuminance.0 * r + sourceLuminance.1 * g + sourceLuminance.2 * b
            let ratio = y > 0 ? min(powf(y, Self.hlgExponent), 1e9) : 0
            (r, g, b) = (r * ratio, g * ratio, b * ratio)
        }
        if let m = matrix {
            (r, g, b) = (m[0] * r + m[1] * g + m[2] * b, m[3] * r + m[4] * g + m[5] * b, m[6] * r + m[7] * g + m[8] * b)
        }
        (r, g, b) = Self.gamutMapped(r, g, b)
        return (Self.encode(r), Self.encode(g), Self.encode(b))
    }

    private func mapGray(_ v: Float) -> UInt8 {
        if let toneMap { return Self.encode(toneMap.scaled(v, v, v, luminance: Float(Self.displayNits) * v).0) }
        guard transfer == .hlg else { return Self.encode(v) }
        return Self.encode(v > 0 ? v * min(powf(v, Self.hlgExponent), 1e9) : 0)
    }

    /// libjxl's gamut mapping: the colour is mixed with grey of its own luminance (sRGB's
    /// weights) just enough for no component to be negative, and, weighted 90% towards keeping
    /// luminance, for none to pass 1; what still passes 1 is scaled down to fit.
    static func gamutMapped(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
        let luminance = srgbLuminance.0 * r + srgbLuminance.1 * g + srgbLuminance.2 * b
        var forSaturation: Float = 0, forLuminance: Float = 0
        // The mix that takes a component to 0 (when it is under the grey) or to 1 (over it).
        func weigh(_ value: Float) {
            let offset = value - luminance
            let inverse = 1 / (offset == 0 ? 1 : offset)
            if offset < 0 { forSaturation = max(forSaturation, value * inverse) }
            forLuminance = max(forLuminance, offset <= 0 ? forSaturation : (value - 1) * inverse)
        }
        weigh(r)
        weigh(g)
        weigh(b)
        let mix = min(max(0.1 * (forSaturation - forLuminance) + forLuminance, 0), 1)
        let mixed = (r + mix * (luminance - r), g + mix * (luminance - g), b + mix * (luminance - b))
        let scale = 1 / max(max(1, mixed.0), max(mixed.1, mixed.2))
        return (mixed.0 * scale, mixed.1 * scale, mixed.2 * scale)
    }

    private static func alpha(_ a: UInt16) -> UInt8 { UInt8((UInt32(a) * 255 + 32767) / 65535) }

    /// Linear light in [0, 1] to an sRGB code value, through a 65,536-entry table.
    private static func encode(_ v: Float) -> UInt8 {
        srgbTable[Int(min(max(v, 0), 1) * 65535 + 0.5)]
    }

    /// Rec. ITU-R BT.2408's tone mapping (its Annex 5 EETF) of luminance, in PQ's perceptual
    /// scale: from [0, source peak] to [0, display peak], identity below the knee, a Hermite
    /// spline above it.
    struct Rec2408: Sendable {
        private let pqMin: Float, range: Float, minLum: Float, maxLum: Float, knee: Float, targetPeak: Float

        init(sourcePeak: Double, targetPeak: Double) {
            pqMin = HDRToSDR.pqEncode(0)
            range = HDRToSDR.pqEncode(Float(sourcePeak)) - pqMin
            minLum = (HDRToSDR.pqEncode(0) - pqMin) / range
            maxLum = (HDRToSDR.pqEncode(Float(targetPeak)) - pqMin) / range
            knee = 1.5 * maxLum - 0.5
            self.targetPeak = Float(targetPeak)
        }

        /// The display's light, in nits, for light of `nits`.
        func map(_ nits: Float) -> Float {
            let e1 = min(1, (HDRToSDR.pqEncode(nits) - pqMin) / range)
            var e2 = e1
            if e1 >= knee {
                let t = (e1 - knee) / max(1e-6, 1 - knee), t2 = t * t, t3 = t2 * t
                e2 = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * maxLum
            }
            let lift = (1 - e2) * (1 - e2)
            let e3 = minLum * lift * lift + e2
            return min(max(HDRToSDR.pqDecode(e3 * range + pqMin), 0), targetPeak)
        }

        /// A colour (1.0 = the display's peak) whose luminance is `luminance` nits, scaled to
        /// the mapped luminance (black stays black; light too faint to scale becomes grey).
        func scaled(_ r: Float, _ g: Float, _ b: Float, luminance: Float) -> (Float, Float, Float) {
            let mapped = map(luminance)
            guard luminance > 1e-6 else {
                let grey = mapped / targetPeak
                return (grey, grey, grey)
            }
            let ratio = mapped / luminance
            return (r * ratio, g * ratio, b * ratio)
        }
    }

    /// Light in nits to its PQ code value in [0, 1] (SMPTE ST 2084's inverse EOTF).
    static func pqEncode(_ nits: Float) -> Float {
        let y = powf(min(max(nits / 10_000, 0), 1), 2610 / 16384)
        return powf((3424 / 4096 + 2413 / 128 * y) / (1 + 2392 / 128 * y), 2523 / 32)
    }

    /// A PQ code value in [0, 1] to light in nits (SMPTE ST 2084's EOTF).
    static func pqDecode(_ code: Float) -> Float {
        let e = powf(min(max(code, 0), 1), 32 / 2523)
        return powf(max(e - 3424 / 4096, 0) / (2413 / 128 - 2392 / 128 * e), 16384 / 2610) * 10_000
    }

    // MARK: Tables

    /// PQ code value (16-bit) to linear light, 1.0 = ``displayNits``.
    private static let pqTable: [Float] = (0...65535).map { code in
        let e = pow(Double(code) / 65535, 1 / (2523.0 / 32))
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 128, c3 = 2392.0 / 128
        let light = pow(max(e - c1, 0) / (c2 - c3 * e), 1 / (2610.0 / 16384))
        return Float(light * 10_000 / displayNits)
    }

    /// HLG code value (16-bit) to relative scene light in [0, 1] (the inverse OETF).
    private static let hlgTable: [Float] = (0...65535).map { code in
        let e = Double(code) / 65535
        let a = 0.178_832_77, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        return Float(e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12)
    }

    /// Linear light (index / 65535) to an 8-bit sRGB code value.
    private static let srgbTable: [UInt8] = (0...65535).map { i in
        let v = Double(i) / 65535
        let encoded = v <= 0.003_130_8 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8(min(max(encoded * 255 + 0.5, 0), 255))
    }
}

/// RGB primaries and white points as matrices: what ``HDRToSDR`` needs to bring another
/// colour space's linear light to sRGB's.
enum ColorPrimaries {
    static let d65 = (x: 0.3127, y: 0.3290)
    static let bt2020: [(x: Double, y: Double)] = [(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)]
    static let p3: [(x: Double, y: Double)] = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
    static let srgb: [(x: Double, y: Double)] = [(0.640, 0.330), (0.300, 0.600), (0.150, 0.060)]
    static let dci = (x: 0.314, y: 0.351)
    /// CIE illuminant C, the white of BT.470 System M and of generic film.
    static let illuminantC = (x: 0.310, y: 0.316)

    /// The primaries and white an H.273 (CICP, nclx) colour primaries code names: 1 (BT.709),
    /// 4 (BT.470 M), 5 (BT.601 625), 6 and 7 (BT.601 525, SMPTE 240M), 8 (generic film),
    /// 9 (BT.2020 and BT.2100), 11 (DCI-P3), 12 (Display P3), 22 (EBU 3213); sRGB's for
    /// unspecified, reserved and unknown codes, and for 10 (XYZ) and 255, which name no RGB.
    static func cicp(_ code: Int) -> (primaries: [(x: Double, y: Double)], white: (x: Double, y: Double)) {
        switch code {
        case 4: ([(0.67, 0.33), (0.21, 0.71), (0.14, 0.08)], illuminantC)
        case 5: ([(0.64, 0.33), (0.29, 0.60), (0.15, 0.06)], d65)
        case 6, 7: ([(0.630, 0.340), (0.310, 0.595), (0.155, 0.070)], d65)
        case 8: ([(0.681, 0.319), (0.243, 0.692), (0.145, 0.049)], illuminantC)
        case 9: (bt2020, d65)
        case 11: (p3, dci)
        case 12: (p3, d65)
        case 22: ([(0.630, 0.340), (0.295, 0.605), (0.155, 0.077)], d65)
        default: (srgb, d65)
        }
    }

    static let srgbToXYZ = rgbToXYZ(primaries: srgb, white: d65) ?? []
    static let xyzToSRGB = inverse(srgbToXYZ) ?? []

    /// The matrix from linear RGB with these primaries to XYZ (white's Y = 1); `nil` when the
    /// primaries are degenerate.
    static func rgbToXYZ(primaries: [(x: Double, y: Double)], white: (x: Double, y: Double)) -> [Double]? {
        guard primaries.count == 3, white.y > 0, primaries.allSatisfy({ $0.y > 0 }) else { return nil }
        let columns = primaries.map { [$0.x / $0.y, 1, (1 - $0.x - $0.y) / $0.y] }
        let m = [columns[0][0], columns[1][0], columns[2][0], columns[0][1], columns[1][1], columns[2][1], columns[0][2], columns[1][2], columns[2][2]]
        guard let inv = inverse(m) else { return nil }
        let w = [white.x / white.y, 1, (1 - white.x - white.y) / white.y]
        let s = (0..<3).map { i in inv[i * 3] * w[0] + inv[i * 3 + 1] * w[1] + inv[i * 3 + 2] * w[2] }
        return (0..<9).map { m[$0] * s[$0 % 3] }
    }

    /// Bradford adaptation from one white point to another (identity when they are the same).
    static func bradford(from source: (x: Double, y: Double), to target: (x: Double, y: Double)) -> [Double] {
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        guard abs(source.x - target.x) > 1e-6 || abs(source.y - target.y) > 1e-6, source.y > 0, target.y > 0 else { return identity }
        let cone: [Double] = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296]
        guard let inv = inverse(cone) else { return identity }
        func lms(_ w: (x: Double, y: Double)) -> [Double] {
            let xyz = [w.x / w.y, 1, (1 - w.x - w.y) / w.y]
            return (0..<3).map { i in cone[i * 3] * xyz[0] + cone[i * 3 + 1] * xyz[1] + cone[i * 3 + 2] * xyz[2] }
        }
        let s = lms(source), t = lms(target)
        let scale: [Double] = [t[0] / s[0], 0, 0, 0, t[1] / s[1], 0, 0, 0, t[2] / s[2]]
        return multiply(inv, multiply(scale, cone))
    }

    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        (0..<9).map { i in
            let r = i / 3, c = i % 3
            return a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c]
        }
    }

    static func inverse(_ m: [Double]) -> [Double]? {
        let det =
            m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
        guard abs(det) > 1e-12 else { return nil }
        let cofactors = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]
        ]
        return cofactors.map { $0 / det }
    }
}
