// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CLCMS2
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// ICC profiles to convert into and embed: built-in sRGB and Display P3 (made with lcms2), or
/// any RGB profile's bytes, for results in another colour space than sRGB (the service's
/// `color_profile`). Decoders convert to sRGB by default; ``convert(_:fromSRGBTo:)`` takes the
/// sRGB pixels on to the target space, and the encoder embeds the profile.
///
/// ```swift
/// let wide = try ColorProfiles.convert(photo.buffer, fromSRGBTo: ColorProfiles.displayP3)
/// var image = Image(buffer: wide)
/// image.metadata.iccProfile = ColorProfiles.displayP3
/// ```
public enum ColorProfiles {
    /// lcms2's sRGB profile (IEC 61966-2-1), version 4, about 500 bytes.
    public static let sRGB: Data = build(primaries: nil, description: "sRGB built-in") ?? Data()

    /// Display P3: the DCI-P3 primaries, D65 white and sRGB's tone curve, as Apple's displays and
    /// cameras use it; made with lcms2, version 4.
    public static let displayP3: Data =
        build(primaries: ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060)), description: "Display P3") ?? Data()

    /// A profile by the name the service's `color_profile` uses: `srgb`, `display-p3` (or
    /// `p3`); `nil` for any other name (a file, for the caller to read).
    package static func named(_ name: String) -> Data? {
        switch name.lowercased() {
        case "srgb": return sRGB
        case "display-p3", "displayp3", "p3": return displayP3
        default: return nil
        }
    }

    /// Whether lcms2 reads `icc` as a profile of RGB data (one pixels can be converted into).
    public static func isRGB(_ icc: Data) -> Bool { ColorManagement.space(of: icc) == .rgb }

    /// `buffer`'s sRGB pixels in the colour space of `icc` (perceptual intent, alpha kept), as
    /// straight RGBA.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` when `icc` is not an RGB profile lcms2
    ///   can read, or no transform can be made to it.
    public static func convert(_ buffer: PixelBuffer, fromSRGBTo icc: Data) throws -> PixelBuffer {
        try convert(buffer, from: nil, to: icc)
    }

    /// `buffer`'s pixels, described by `source` (an RGB profile; `nil` or any other kind: they
    /// are first brought to sRGB as a decoder would), in the colour space of `target`, as
    /// straight RGBA. Equal profiles leave the pixels as they are, so a Display P3 photo sent
    /// on in Display P3 loses nothing to sRGB's smaller gamut.
    ///
    /// - Throws: as ``convert(_:fromSRGBTo:)``.
    public static func convert(_ buffer: PixelBuffer, from source: Data?, to target: Data) throws -> PixelBuffer {
        guard isRGB(target) else { throw ImageCodingError.invalidArgument("the colour profile is not an RGB profile lcms2 can read") }
        var out = buffer.converted(to: .rgba8)
        if let source, source == target { return out }
        let w = out.width, h = out.height, stride = out.bytesPerRow
        var from = source.flatMap { isRGB($0) ? $0 : nil }
        if let other = source, from == nil {
            // A gray or broken profile: to sRGB first, as decoding would have done.
            out.withUnsafeMutableBytes { p in
                _ = ColorManagement.convertToSRGB(
                    p, width: w, height: h, bytesPerRow: stride, profile: other, layout: IMAGO_TYPE_RGBA_8,
                    threads: CodecThreads.defaultLimit)
            }
            from = nil
        }
        let made = target.withUnsafeBytes { raw -> Bool in
            guard let to = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return false }
            defer { cmsCloseProfile(to) }
            let input: cmsHPROFILE? =
                from.flatMap { f in f.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) } }
                ?? cmsCreate_sRGBProfile()
            guard let input else { return false }
            defer { cmsCloseProfile(input) }
            guard
                let t = cmsCreateTransform(
                    input, IMAGO_TYPE_RGBA_8, to, IMAGO_TYPE_RGBA_8, cmsUInt32Number(INTENT_PERCEPTUAL),
                    cmsUInt32Number(cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOCACHE))
            else { return false }
            defer { cmsDeleteTransform(t) }
            out.withUnsafeMutableBytes { p in
                guard let base = p.baseAddress else { return }
                for y in 0..<h { cmsDoTransform(t, base + y * stride, base + y * stride, cmsUInt32Number(w)) }
            }
            return true
        }
        guard made else { throw ImageCodingError.invalidArgument("no conversion into the colour profile can be made") }
        return out
    }

    /// A version-4 matrix/TRC profile with sRGB's tone curve and D65 white: sRGB's own with no
    /// primaries given, else these.
    private static func build(primaries: ((Double, Double), (Double, Double), (Double, Double))?, description: String) -> Data? {
        let profile: cmsHPROFILE?
        if let p = primaries {
            var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
            var triple = cmsCIExyYTRIPLE(
                Red: cmsCIExyY(x: p.0.0, y: p.0.1, Y: 1), Green: cmsCIExyY(x: p.1.0, y: p.1.1, Y: 1), Blue: cmsCIExyY(x: p.2.0, y: p.2.1, Y: 1))
            // sRGB's curve: (a·x + b)^2.4 above 0.04045, x / 12.92 below.
            let parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            guard let curve = parameters.withUnsafeBufferPointer({ cmsBuildParametricToneCurve(nil, 4, $0.baseAddress) }) else { return nil }
            defer { cmsFreeToneCurve(curve) }
            var curves: [OpaquePointer?] = [curve, curve, curve]
            profile = curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &triple, $0.baseAddress) }
        } else {
            profile = cmsCreate_sRGBProfile()
        }
        guard let profile else { return nil }
        defer { cmsCloseProfile(profile) }
        cmsSetProfileVersion(profile, 4.3)
        if let mlu = cmsMLUalloc(nil, 1) {
            cmsMLUsetASCII(mlu, "en", "US", description)
            cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
            cmsMLUfree(mlu)
        }
        var length: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &length) != 0, length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        guard cmsSaveProfileToMem(profile, &bytes, &length) != 0 else { return nil }
        return Data(bytes.prefix(Int(length)))
    }
}
