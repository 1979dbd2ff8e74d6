// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import CLCMS2

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The fast path of an 8-bit conversion from an RGB matrix/TRC profile (Display P3, Adobe RGB,
/// a camera's or a monitor's profile) to sRGB.
///
/// lcms2 optimises such a transform into curves, a matrix and curves in 1.14 fixed point, but
/// evaluates them through its generic per-pixel formatters, at about 10 ns a pixel on this
/// machine's cores. The same tables in one inline loop (`imago_matshaper8_apply`) cost a
/// fraction of that. The tables are read from the profile through lcms2 (its tone curves and
/// colorants), and the result is used only when it agrees with lcms2's own transform to within
/// one level on every channel of a grid over the whole cube and every gray level; otherwise
/// ``init(profile:checkedAgainst:layout:)`` returns `nil` and lcms2 converts.
final class MatrixShaper: @unchecked Sendable {
    private let table: UnsafeMutablePointer<imago_matshaper8>
    private let bytesPerPixel: Int
    private let red: Int32, green: Int32, blue: Int32

    /// Byte offsets of red, green and blue and the pixel size for the layouts Imago converts.
    static func channels(of layout: cmsUInt32Number) -> (red: Int, green: Int, blue: Int, bytesPerPixel: Int)? {
        switch layout {
        case IMAGO_TYPE_BGRA_8: return (2, 1, 0, 4)
        case IMAGO_TYPE_RGBA_8: return (0, 1, 2, 4)
        case IMAGO_TYPE_ARGB_8: return (1, 2, 3, 4)
        case IMAGO_TYPE_RGB_8: return (0, 1, 2, 3)
        default: return nil
        }
    }

    /// The tables for `profile` to sRGB, or `nil` when the profile is not an RGB matrix/TRC
    /// profile, its matrix does not fit the fixed point, or the tables disagree with `transform`
    /// (lcms2's transform for the same profiles, `layout` in and out) by more than one level.
    init?(profile: cmsHPROFILE, checkedAgainst transform: cmsHTRANSFORM, layout: cmsUInt32Number) {
        guard cmsGetColorSpace(profile) == cmsSigRgbData, cmsIsMatrixShaper(profile) != 0,
            let channels = Self.channels(of: layout),
            let matrix = Self.matrixToSRGB(from: profile)
        else { return nil }
        var curves: [OpaquePointer] = []
        for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
            guard let raw = cmsReadTag(profile, tag) else { return nil }
            curves.append(OpaquePointer(raw))
        }
        let one = Double(IMAGO_MATSHAPER_ONE)
        guard let table = imago_matshaper8_create() else { return nil }
        for c in 0..<3 {
            let input = imago_matshaper8_input(table, Int32(c))
            for level in 0...255 {
                let linear = Double(cmsEvalToneCurveFloat(curves[c], Float(level) / 255))
                input?[level] = UInt16(min(max((linear * one).rounded(), 0), one))
            }
        }
        let m = imago_matshaper8_matrix(table)
        for i in 0..<9 { m?[i] = Int32((matrix[i] * one).rounded()) }
        let output = imago_matshaper8_output(table)
        for i in 0...Int(IMAGO_MATSHAPER_ONE) {
            let linear = Double(i) / one
            let encoded = linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1.0 / 2.4) - 0.055
            output?[i] = UInt8(min(max((encoded * 255).rounded(), 0), 255))
        }
        self.table = table
        bytesPerPixel = channels.bytesPerPixel
        red = Int32(channels.red)
        green = Int32(channels.green)
        blue = Int32(channels.blue)
        guard agrees(with: transform) else { return nil }
    }

    deinit { imago_matshaper8_destroy(table) }

    /// Converts `count` pixels in place from `pixels`.
    func apply(_ pixels: UnsafeMutableRawPointer, count: Int) {
        imago_matshaper8_apply(
            table, pixels.assumingMemoryBound(to: UInt8.self), count, Int32(bytesPerPixel), red, green, blue)
    }

    /// Whether the tables give lcms2's answer to within one level on a 18×18×18 grid over the
    /// cube (steps of 15) and on all 256 grays.
    private func agrees(with transform: cmsHTRANSFORM) -> Bool {
        var colors: [(UInt8, UInt8, UInt8)] = []
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 15) {
                for b in stride(from: 0, through: 255, by: 15) { colors.append((UInt8(r), UInt8(g), UInt8(b))) }
            }
        }
        for level in 0...255 { colors.append((UInt8(level), UInt8(level), UInt8(level))) }
        let size = bytesPerPixel
        var pixels = [UInt8](repeating: 255, count: colors.count * size)
        for (i, c) in colors.enumerated() {
            pixels[i * size + Int(red)] = c.0
            pixels[i * size + Int(green)] = c.1
            pixels[i * size + Int(blue)] = c.2
        }
        var expected = pixels
        cmsDoTransform(transform, pixels, &expected, cmsUInt32Number(colors.count))
        pixels.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { apply(base, count: colors.count) }
        }
        for i in 0..<colors.count {
            for offset in [red, green, blue] where abs(Int(pixels[i * size + Int(offset)]) - Int(expected[i * size + Int(offset)])) > 1 {
                return false
            }
        }
        return true
    }

    /// The matrix from `profile`'s linear RGB to sRGB's (row-major), through their D50 colorants:
    /// `nil` when a colorant is missing, sRGB's matrix cannot be inverted, or a coefficient is 2
    /// or more in magnitude (beyond the fixed point; such gamuts convert through lcms2).
    private static func matrixToSRGB(from profile: cmsHPROFILE) -> [Double]? {
        guard let source = ColorManagement.colorants(of: profile), let srgb = cmsCreate_sRGBProfile() else { return nil }
        defer { cmsCloseProfile(srgb) }
        guard let target = ColorManagement.colorants(of: srgb) else { return nil }
        // Columns are the colorants: XYZ = M · RGB.
        func columns(_ c: [cmsCIEXYZ]) -> [Double] { [c[0].X, c[1].X, c[2].X, c[0].Y, c[1].Y, c[2].Y, c[0].Z, c[1].Z, c[2].Z] }
        let s = columns(source), t = columns(target)
        let det =
            t[0] * (t[4] * t[8] - t[5] * t[7]) - t[1] * (t[3] * t[8] - t[5] * t[6]) + t[2] * (t[3] * t[7] - t[4] * t[6])
        guard abs(det) > 1e-9 else { return nil }
        let inverse = [
            (t[4] * t[8] - t[5] * t[7]) / det, (t[2] * t[7] - t[1] * t[8]) / det, (t[1] * t[5] - t[2] * t[4]) / det,
            (t[5] * t[6] - t[3] * t[8]) / det, (t[0] * t[8] - t[2] * t[6]) / det, (t[2] * t[3] - t[0] * t[5]) / det,
            (t[3] * t[7] - t[4] * t[6]) / det, (t[1] * t[6] - t[0] * t[7]) / det, (t[0] * t[4] - t[1] * t[3]) / det
        ]
        var out = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for col in 0..<3 { out[row * 3 + col] = (0..<3).reduce(0) { $0 + inverse[row * 3 + $1] * s[$1 * 3 + col] } }
        }
        return out.allSatisfy({ abs($0) < 1.99 }) ? out : nil
    }
}
