// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(Glibc)
import Glibc
#endif

/// ThumbHash placeholders (Evan Wallace's format): an image's blurred likeness, its alpha and
/// its approximate aspect ratio in about 25 bytes, usually sent base64-encoded.
///
/// Encoding and decoding follow the reference implementation (and the `thumbhash` package on
/// PyPI, which ports it): a luminance and two chroma channels (and alpha, when the image has
/// transparency) as 4-bit cosine coefficients; the decoded picture is at most 32 pixels a side,
/// with the hash's aspect ratio.
///
/// ```swift
/// let hash = try ThumbHash.encode(image.buffer)      // 21–25 bytes
/// let placeholder = try ThumbHash.decode(hash)        // rgba8, 32 px on its longer side
/// ```
public enum ThumbHash {
    /// Encodes `buffer` (any pixel format, any size) as a ThumbHash.
    ///
    /// Images larger than 100×100 are first shrunk to fit 100×100, as the reference requires.
    ///
    /// - Returns: The hash's bytes (5 header bytes, an alpha byte when the image has
    ///   transparency, then the packed coefficients).
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for an empty buffer.
    public static func encode(_ buffer: PixelBuffer) throws -> [UInt8] {
        encode(sample: try buffer.placeholderSample(maxSide: 100))
    }

    /// Encodes `sample` (tight `rgba8`, at most 100×100) as it is.
    static func encode(sample: PixelBuffer) -> [UInt8] {
        let w = sample.width, h = sample.height, n = w * h
        let (l, p, q, a, avgA) = channels(of: sample)
        let hasAlpha = avgA < Double(n)
        let limit = hasAlpha ? 5.0 : 7.0
        let longer = Double(max(w, h))
        let lx = max(1, Int(round(limit * Double(w) / longer)))
        let ly = max(1, Int(round(limit * Double(h) / longer)))
        let lc = encodeChannel(l, w, h, max(3, lx), max(3, ly))
        let pc = encodeChannel(p, w, h, 3, 3)
        let qc = encodeChannel(q, w, h, 3, 3)
        let ac = hasAlpha ? encodeChannel(a, w, h, 5, 5) : (dc: 1, ac: [], scale: 1)
        return pack(lc, pc, qc, ac, hasAlpha: hasAlpha, isLandscape: w > h, lx: lx, ly: ly)
    }

    /// One channel's cosine coefficients: the DC term, the AC terms mapped to 0...1, and their scale.
    private typealias Coefficients = (dc: Double, ac: [Double], scale: Double)

    /// `sample`'s luminance, two chroma and alpha channels (colours composited over the average
    /// colour), with the summed alpha.
    private static func channels(of sample: PixelBuffer) -> (l: [Double], p: [Double], q: [Double], a: [Double], avgA: Double) {
        let n = sample.width * sample.height
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        var l = [Double](repeating: 0, count: n), p = l, q = l, a = l
        sample.withUnsafeBytes { raw in
            for i in 0..<n {
                let alpha = Double(raw[i * 4 + 3]) / 255
                avgR += alpha / 255 * Double(raw[i * 4])
                avgG += alpha / 255 * Double(raw[i * 4 + 1])
                avgB += alpha / 255 * Double(raw[i * 4 + 2])
                avgA += alpha
            }
            if avgA > 0 {
                avgR /= avgA
                avgG /= avgA
                avgB /= avgA
            }
            for i in 0..<n {
                let alpha = Double(raw[i * 4 + 3]) / 255
                let r = avgR * (1 - alpha) + alpha / 255 * Double(raw[i * 4])
                let g = avgG * (1 - alpha) + alpha / 255 * Double(raw[i * 4 + 1])
                let b = avgB * (1 - alpha) + alpha / 255 * Double(raw[i * 4 + 2])
                l[i] = (r + g + b) / 3
                p[i] = (r + g) / 2 - b
                q[i] = r - g
                a[i] = alpha
            }
        }
        return (l, p, q, a, avgA)
    }

    /// The first `nx` × `ny` (triangle) cosine coefficients of a `w` × `h` channel.
    private static func encodeChannel(_ channel: [Double], _ w: Int, _ h: Int, _ nx: Int, _ ny: Int) -> Coefficients {
        let n = w * h
        var dc = 0.0, ac: [Double] = [], scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                var f = 0.0
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                }
                f /= Double(n)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }

    /// The hash's bytes: the two headers, the alpha byte when there is alpha, then the AC
    /// coefficients two 4-bit nibbles a byte.
    private static func pack(
        _ lc: Coefficients, _ pc: Coefficients, _ qc: Coefficients, _ ac: Coefficients,
        hasAlpha: Bool, isLandscape: Bool, lx: Int, ly: Int
    ) -> [UInt8] {
        // JavaScript's Math.round, as the reference rounds: halves up.
        func r(_ v: Double) -> Int { Int((v + 0.5).rounded(.down)) }
        let header24 =
            r(63 * lc.dc) | (r(31.5 + 31.5 * pc.dc) << 6) | (r(31.5 + 31.5 * qc.dc) << 12) | (r(31 * lc.scale) << 18) | ((hasAlpha ? 1 : 0) << 23)
        let header16 = (isLandscape ? ly : lx) | (r(63 * pc.scale) << 3) | (r(63 * qc.scale) << 9) | ((isLandscape ? 1 : 0) << 15)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16), UInt8(header16 & 255), UInt8(header16 >> 8)
        ]
        if hasAlpha { hash.append(UInt8(r(15 * ac.dc) | (r(15 * ac.scale) << 4))) }
        var odd = false
        for channel in hasAlpha ? [lc.ac, pc.ac, qc.ac, ac.ac] : [lc.ac, pc.ac, qc.ac] {
            for f in channel {
                let u = UInt8(clamping: r(15 * f))
                if odd {
                    hash[hash.count - 1] |= u << 4
                } else {
                    hash.append(u)
                }
                odd.toggle()
            }
        }
        return hash
    }

    /// The approximate aspect ratio (width / height) `hash` records.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a malformed hash.
    public static func aspectRatio(of hash: [UInt8]) throws -> Double {
        try Header(hash).aspectRatio
    }

    /// The average colour `hash` records, with its average alpha.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a malformed hash.
    public static func averageColor(of hash: [UInt8]) throws -> RGBA8 {
        let header = try Header(hash)
        let (r, g, b) = header.rgb(l: header.lDC, p: header.pDC, q: header.qDC)
        return RGBA8(r: level(r), g: level(g), b: level(b), a: level(header.aDC))
    }

    /// Decodes `hash` into a straight `rgba8` picture 32 pixels on its longer side, shaped by the
    /// hash's aspect ratio.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a malformed hash (too short for
    ///   the components its header declares, or a header no encoder writes).
    public static func decode(_ hash: [UInt8]) throws -> PixelBuffer {
        let header = try Header(hash)
        let coefficients = acCoefficients(of: hash, header: header)
        let ratio = header.aspectRatio
        let w = Int(ratio > 1 ? 32 : (32 * ratio + 0.5).rounded(.down))
        let h = Int(ratio > 1 ? (32 / ratio + 0.5).rounded(.down) : 32)
        return try PixelBuffer(uninitializedWidth: max(1, w), height: max(1, h), format: .rgba8) { raw in
            render(into: raw, header: header, coefficients: coefficients, width: w, height: h)
        }
    }

    /// The AC coefficients a hash holds for each channel, scaled (`a` empty without alpha).
    private struct ACCoefficients {
        var l, p, q, a: [Double]
    }

    /// Reads every channel's AC coefficients from `hash`, in the order the encoder wrote them.
    private static func acCoefficients(of hash: [UInt8], header: Header) -> ACCoefficients {
        var index = 0
        let lAC = decodeChannel(hash, header, &index, header.lx, header.ly, header.lScale)
        let pAC = decodeChannel(hash, header, &index, 3, 3, header.pScale * 1.25)
        let qAC = decodeChannel(hash, header, &index, 3, 3, header.qScale * 1.25)
        let aAC = header.hasAlpha ? decodeChannel(hash, header, &index, 5, 5, header.aScale) : []
        return ACCoefficients(l: lAC, p: pAC, q: qAC, a: aAC)
    }

    /// Reads one channel's `nx` × `ny` (triangle) AC coefficients from the nibble at `index` on.
    private static func decodeChannel(
        _ hash: [UInt8], _ header: Header, _ index: inout Int, _ nx: Int, _ ny: Int, _ scale: Double
    ) -> [Double] {
        var ac: [Double] = []
        for cy in 0..<ny {
            var cx = cy > 0 ? 0 : 1
            while cx * ny < nx * (ny - cy) {
                let nibble = (hash[header.acStart + (index >> 1)] >> ((index & 1) << 2)) & 15
                ac.append((Double(nibble) / 7.5 - 1) * scale)
                index += 1
                cx += 1
            }
        }
        return ac
    }

    /// Writes the `w` × `h` straight `rgba8` picture the coefficients describe into `raw`.
    private static func render(
        into raw: UnsafeMutableRawBufferPointer, header: Header, coefficients: ACCoefficients, width w: Int, height h: Int
    ) {
        let lAC = coefficients.l, pAC = coefficients.p, qAC = coefficients.q, aAC = coefficients.a
        let lx = header.lx, ly = header.ly, hasAlpha = header.hasAlpha
        let nx = max(lx, hasAlpha ? 5 : 3), ny = max(ly, hasAlpha ? 5 : 3)
        var fx = [Double](repeating: 0, count: nx), fy = [Double](repeating: 0, count: ny)
        for y in 0..<max(1, h) {
            for x in 0..<max(1, w) {
                var l = header.lDC, p = header.pDC, q = header.qDC, a = header.aDC
                for cx in 0..<nx { fx[cx] = cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
                for cy in 0..<ny { fy[cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
                var j = 0
                for cy in 0..<ly {
                    var cx = cy > 0 ? 0 : 1
                    let fy2 = fy[cy] * 2
                    while cx * ly < lx * (ly - cy) {
                        l += lAC[j] * fx[cx] * fy2
                        cx += 1
                        j += 1
                    }
                }
                j = 0
                for cy in 0..<3 {
                    let fy2 = fy[cy] * 2
                    for cx in (cy > 0 ? 0 : 1)..<(3 - cy) {
                        let f = fx[cx] * fy2
                        p += pAC[j] * f
                        q += qAC[j] * f
                        j += 1
                    }
                }
                if hasAlpha {
                    j = 0
                    for cy in 0..<5 {
                        let fy2 = fy[cy] * 2
                        for cx in (cy > 0 ? 0 : 1)..<(5 - cy) {
                            a += aAC[j] * fx[cx] * fy2
                            j += 1
                        }
                    }
                }
                let (r, g, b) = header.rgb(l: l, p: p, q: q)
                let o = (y * w + x) * 4
                raw[o] = level(r)
                raw[o + 1] = level(g)
                raw[o + 2] = level(b)
                raw[o + 3] = level(a)
            }
        }
    }

    /// A unit value as a level 0...255, rounded.
    static func level(_ v: Double) -> UInt8 { UInt8(max(0, min(255, (255 * (v.isNaN ? 0 : v) + 0.5).rounded(.down)))) }

    /// A hash's header, checked against its length.
    struct Header {
        var lDC, pDC, qDC, lScale, pScale, qScale, aDC, aScale: Double
        var hasAlpha: Bool
        var lx, ly, acStart: Int

        init(_ hash: [UInt8]) throws {
            guard hash.count >= 5 else { throw ImageCodingError.invalidArgument("a ThumbHash has at least 5 bytes, not \(hash.count)") }
            let header24 = Int(hash[0]) | (Int(hash[1]) << 8) | (Int(hash[2]) << 16)
            let header16 = Int(hash[3]) | (Int(hash[4]) << 8)
            hasAlpha = header24 >> 23 != 0
            let isLandscape = header16 >> 15 != 0
            let shorter = header16 & 7
            guard shorter > 0 else { throw ImageCodingError.invalidArgument("a ThumbHash's header gives no components on its shorter side") }
            let longer = hasAlpha ? 5 : 7
            // The sizes as encoded (the aspect ratio), then the luminance components decoded.
            let encodedX = isLandscape ? longer : shorter, encodedY = isLandscape ? shorter : longer
            lx = max(3, encodedX)
            ly = max(3, encodedY)
            lDC = Double(header24 & 63) / 63
            pDC = Double((header24 >> 6) & 63) / 31.5 - 1
            qDC = Double((header24 >> 12) & 63) / 31.5 - 1
            lScale = Double((header24 >> 18) & 31) / 31
            pScale = Double((header16 >> 3) & 63) / 63
            qScale = Double((header16 >> 9) & 63) / 63
            acStart = hasAlpha ? 6 : 5
            guard !hasAlpha || hash.count >= 6 else { throw ImageCodingError.invalidArgument("a ThumbHash with alpha has at least 6 bytes") }
            aDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
            aScale = hasAlpha ? Double(hash[5] >> 4) / 15 : 0
            func count(_ nx: Int, _ ny: Int) -> Int {
                var total = 0
                for cy in 0..<ny {
                    var cx = cy > 0 ? 0 : 1
                    while cx * ny < nx * (ny - cy) {
                        total += 1
                        cx += 1
                    }
                }
                return total
            }
            let coefficients = count(lx, ly) + 2 * count(3, 3) + (hasAlpha ? count(5, 5) : 0)
            let needed = acStart + (coefficients + 1) / 2
            guard hash.count >= needed else {
                throw ImageCodingError.invalidArgument("a ThumbHash with this header has \(needed) bytes, not \(hash.count)")
            }
            // The aspect ratio is that of the encoded component counts (before the minimum of 3).
            aspectRatio = Double(encodedX) / Double(encodedY)
        }

        /// Width over height, as the encoded luminance component counts give it.
        var aspectRatio = 1.0

        /// Luminance and chroma to red, green and blue, each a unit value (unclamped).
        func rgb(l: Double, p: Double, q: Double) -> (Double, Double, Double) {
            let b = l - 2.0 / 3.0 * p
            let r = (3 * l - b + q) / 2
            return (r, r - q, b)
        }
    }
}
