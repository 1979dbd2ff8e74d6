// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CLCMS2
import Dispatch
import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// ICC-profile conversion to sRGB through lcms2.
///
/// Pixels are converted with perceptual intent. Profiles equivalent to sRGB are skipped, since
/// the conversion would be an identity and photos very often carry one: a matrix/TRC profile
/// is sRGB when its colorants and tone curves match sRGB's (whatever its name, version or
/// bytes); a table-based profile when its description names sRGB. A profile lcms2 cannot
/// parse, or one of a colour space that does not match the pixels, leaves the pixels
/// unchanged: a wrong or broken profile must not make an image undecodable, and browsers
/// behave the same way.
///
/// Each profile's converter is built once and kept (``converter(for:layout:)``): a site's or a
/// camera's images carry the same few profiles, and building an lcms2 transform costs more
/// than converting a small image. Large images are converted in bands on every core.
enum ColorManagement {
    /// The colour space a profile describes, as far as Imago cares.
    enum Space { case rgb, gray, cmyk, other }

    /// The profile's data colour space, or `nil` when lcms2 cannot parse it.
    static func space(of icc: Data) -> Space? {
        guard let profile = open(icc) else { return nil }
        defer { cmsCloseProfile(profile) }
        switch cmsGetColorSpace(profile) {
        case cmsSigRgbData: return .rgb
        case cmsSigGrayData: return .gray
        case cmsSigCmykData: return .cmyk
        default: return .other
        }
    }

    /// Converts a buffer with straight (or no) alpha from `icc` to sRGB in place.
    ///
    /// `layout` is the lcms pixel type of both input and output: BGRA, RGBA, ARGB (4 bytes) or
    /// RGB (3 bytes); the gray-profile table applies to the 4-byte layouts. Large images are
    /// converted in bands on up to `threads` threads (``CodecThreads``). Returns whether the
    /// pixels were converted. See ``Converter``.
    @discardableResult
    static func convertToSRGB(
        _ pixels: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
        profile icc: Data, layout: cmsUInt32Number, threads: Int
    ) -> Bool {
        guard let converter = converter(for: icc, layout: layout) else { return false }
        converter.convert(pixels, width: width, height: height, bytesPerRow: bytesPerRow, threads: threads)
        return true
    }

    /// The converter for `icc` and `layout`, built on first use and then shared; `nil` when
    /// nothing is to be done (see ``Converter/init(profile:layout:)``).
    static func converter(for icc: Data, layout: cmsUInt32Number) -> Converter? {
        // Profiles of several megabytes exist (print profiles with big tables); they are rare
        // enough not to be worth keeping.
        guard icc.count <= ConverterCache.largestProfile else { return Converter(profile: icc, layout: layout) }
        let key = ConverterCache.Key(profile: icc, layout: layout)
        if let hit = converters.lookup(key) { return hit.converter }
        let built = Converter(profile: icc, layout: layout)
        converters.insert(key, ConverterCache.Entry(converter: built))
        return built
    }

    /// The shared converters.
    static let converters = ConverterCache(capacity: 32)

    /// Converters by profile bytes and layout, the least recently used dropped past `capacity`.
    final class ConverterCache: Sendable {
        /// Profiles larger than this are converted without being kept.
        static let largestProfile = 1 << 20

        struct Key: Hashable, Sendable {
            let profile: Data
            let layout: cmsUInt32Number
        }

        /// A converter, or `nil` for a profile that needs no conversion.
        struct Entry: Sendable {
            let converter: Converter?
        }

        private struct State {
            var entries: [Key: (entry: Entry, used: UInt64)] = [:]
            var clock: UInt64 = 0
        }

        private let capacity: Int
        private let state = Mutex(State())

        init(capacity: Int) { self.capacity = max(1, capacity) }

        func lookup(_ key: Key) -> Entry? {
            state.withLock { s in
                guard let hit = s.entries[key] else { return nil }
                s.clock += 1
                s.entries[key] = (hit.entry, s.clock)
                return hit.entry
            }
        }

        func insert(_ key: Key, _ entry: Entry) {
            state.withLock { s in
                s.clock += 1
                s.entries[key] = (entry, s.clock)
                if s.entries.count > capacity, let oldest = s.entries.min(by: { $0.value.used < $1.value.used })?.key {
                    s.entries[oldest] = nil
                }
            }
        }

        /// How many converters (and sRGB verdicts) are kept.
        var count: Int { state.withLock { $0.entries.count } }
    }

    /// A conversion from one ICC profile to sRGB, built once and applied to any number of rows
    /// (streamed decoding converts row by row).
    ///
    /// RGB profiles go through an lcms transform, or through its inline form (``MatrixShaper``)
    /// when it is a matrix/TRC profile and the two agree; gray profiles, for pixels decoded gray and
    /// expanded to RGB, through a 256-entry table.
    ///
    /// Sendable: the transform is made with `cmsFLAGS_NOCACHE`, which leaves it no mutable
    /// state, so lcms2 allows `cmsDoTransform` on it from several threads at once; the table
    /// is immutable.
    final class Converter: @unchecked Sendable {
        private let transform: cmsHTRANSFORM?
        /// The inline form of `transform`, when it is a matrix/TRC one (see ``MatrixShaper``).
        private let fast: MatrixShaper?
        private let grayTable: [UInt8]?
        private let bytesPerPixel: Int
        private let layout: cmsUInt32Number

        /// `nil` when nothing is to be done: an unparsable or sRGB profile, or a colour space
        /// that does not match `layout`.
        init?(profile icc: Data, layout: cmsUInt32Number) {
            guard let profile = ColorManagement.open(icc) else { return nil }
            defer { cmsCloseProfile(profile) }
            if ColorManagement.isSRGB(profile) { return nil }
            guard let srgb = cmsCreate_sRGBProfile() else { return nil }
            defer { cmsCloseProfile(srgb) }
            self.layout = layout
            bytesPerPixel = layout == IMAGO_TYPE_RGB_8 ? 3 : 4
            switch cmsGetColorSpace(profile) {
            case cmsSigRgbData:
                guard
                    let t = cmsCreateTransform(
                        profile, layout, srgb, layout, cmsUInt32Number(INTENT_PERCEPTUAL),
                        cmsUInt32Number(cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOCACHE))
                else { return nil }
                transform = t
                fast = MatrixShaper(profile: profile, checkedAgainst: t, layout: layout)
                grayTable = nil
            case cmsSigGrayData:
                guard layout != IMAGO_TYPE_RGB_8,
                    let t = cmsCreateTransform(
                        profile, IMAGO_TYPE_GRAY_8, srgb, IMAGO_TYPE_RGB_8,
                        cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(cmsFLAGS_NOCACHE))
                else { return nil }
                defer { cmsDeleteTransform(t) }
                var input = (0...255).map { UInt8($0) }
                var table = [UInt8](repeating: 0, count: 768)
                cmsDoTransform(t, &input, &table, 256)
                transform = nil
                fast = nil
                grayTable = table
            default:
                return nil
            }
        }

        deinit { if let transform { cmsDeleteTransform(transform) } }

        /// Whether pixels go through the inline matrix/TRC tables rather than lcms2's transform.
        var convertsInline: Bool { fast != nil }

        /// Images of at least this many pixels are converted in bands, one per thread.
        static let bandingThreshold = 1 << 20
        /// Bands of a streamed decode of at least this many pixels (16 rows of 2048) are split
        /// across threads too.
        static let streamedBandingThreshold = 1 << 15

        /// Converts `height` rows of `width` pixels in place, in bands on up to `threads`
        /// threads when they hold at least `threshold` pixels (streamed decoding passes a smaller
        /// one for its bands).
        func convert(
            _ pixels: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
            threads: Int, bandingThreshold threshold: Int = bandingThreshold
        ) {
            let cores = threads
            guard cores > 1, width * height >= threshold, height >= cores,
                let base = pixels.baseAddress
            else {
                convertRows(pixels, width: width, height: height, bytesPerRow: bytesPerRow)
                return
            }
            let rowsPerBand = (height + cores - 1) / cores
            // The bands are disjoint rows of one buffer that outlives the call; the address
            // crosses into the workers as an integer.
            let address = Int(bitPattern: base), total = pixels.count, pixelBytes = bytesPerPixel
            DispatchQueue.concurrentPerform(iterations: cores) { band in
                let first = band * rowsPerBand
                let rows = min(rowsPerBand, height - first)
                guard rows > 0, let start = UnsafeMutableRawPointer(bitPattern: address + first * bytesPerRow) else { return }
                let length = min(total - first * bytesPerRow, (rows - 1) * bytesPerRow + width * pixelBytes)
                convertRows(
                    UnsafeMutableRawBufferPointer(start: start, count: length), width: width, height: rows,
                    bytesPerRow: bytesPerRow)
            }
        }

        func convertRows(_ pixels: UnsafeMutableRawBufferPointer, width: Int, height: Int, bytesPerRow: Int) {
            if let fast, let base = pixels.baseAddress {
                if bytesPerRow == width * bytesPerPixel {
                    fast.apply(base, count: width * height)
                } else {
                    for y in 0..<height { fast.apply(base + y * bytesPerRow, count: width) }
                }
                return
            }
            if let transform {
                ColorManagement.transformRows(
                    transform, pixels, pixels, width: width, height: height, inStride: bytesPerRow,
                    outStride: bytesPerRow, bytesPerPixel: bytesPerPixel)
                return
            }
            guard let table = grayTable, let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            // Gray pixels were expanded to R = G = B; channel 1 is green in both BGRA and RGBA.
            let (rOff, bOff) = layout == IMAGO_TYPE_BGRA_8 ? (2, 0) : (0, 2)
            table.withUnsafeBufferPointer { t in
                for y in 0..<height {
                    var p = base + y * bytesPerRow
                    for _ in 0..<width {
                        let g = Int(p[1]) * 3
                        p[rOff] = t[g]
                        p[1] = t[g + 1]
                        p[bOff] = t[g + 2]
                        p += 4
                    }
                }
            }
        }
    }

    /// Converts CMYK pixels (4 bytes each) to opaque BGRA or RGBA.
    ///
    /// - Parameters:
    ///   - inverted: Adobe-style CMYK, where stored values are 255 minus the ink.
    ///   - profile: A CMYK ICC profile; when absent, unparsable, or colour management is off,
    ///     the naive conversion `R = 255 × (1 − C)(1 − K)` is used.
    static func convertCMYK(
        _ src: UnsafeRawBufferPointer, to dst: UnsafeMutableRawBufferPointer,
        width: Int, height: Int, inverted: Bool, profile icc: Data?, bgra: Bool
    ) {
        if let icc, let profile = open(icc) {
            defer { cmsCloseProfile(profile) }
            if cmsGetColorSpace(profile) == cmsSigCmykData, let srgb = cmsCreate_sRGBProfile() {
                defer { cmsCloseProfile(srgb) }
                let out = bgra ? IMAGO_TYPE_BGRA_8 : IMAGO_TYPE_RGBA_8
                if let t = cmsCreateTransform(
                    profile, inverted ? IMAGO_TYPE_CMYK_8_REV : IMAGO_TYPE_CMYK_8, srgb, out,
                    cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(cmsFLAGS_NOCACHE))
                {
                    defer { cmsDeleteTransform(t) }
                    transformRows(
                        t, UnsafeMutableRawBufferPointer(mutating: src), dst, width: width, height: height,
                        inStride: width * 4, outStride: width * 4, bytesPerPixel: 4)
                    // lcms leaves the extra channel alone when the input has none: make it opaque.
                    setAlpha(dst, count: width * height, offset: 3)
                    return
                }
            }
        }
        guard let s = src.baseAddress?.assumingMemoryBound(to: UInt8.self),
            let d = dst.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return }
        let (rOff, bOff) = bgra ? (2, 0) : (0, 2)
        for i in 0..<(width * height) {
            let o = i * 4
            var c = UInt32(s[o]), m = UInt32(s[o + 1]), y = UInt32(s[o + 2]), k = UInt32(s[o + 3])
            if !inverted {
                c = 255 - c
                m = 255 - m
                y = 255 - y
                k = 255 - k
            }
            // Now c, m, y, k are 255 − ink: channel = (255 − ink) × (255 − K ink) / 255.
            d[o + rOff] = UInt8((c * k + 127) / 255)
            d[o + 1] = UInt8((m * k + 127) / 255)
            d[o + bOff] = UInt8((y * k + 127) / 255)
            d[o + 3] = 255
        }
    }

    private static func setAlpha(_ p: UnsafeMutableRawBufferPointer, count: Int, offset: Int) {
        guard let b = p.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        for i in 0..<count { b[i * 4 + offset] = 255 }
    }

    /// Runs `t` over `height` rows, in batches small enough for lcms's 32-bit pixel counts.
    fileprivate static func transformRows(
        _ t: cmsHTRANSFORM, _ src: UnsafeMutableRawBufferPointer, _ dst: UnsafeMutableRawBufferPointer,
        width: Int, height: Int, inStride: Int, outStride: Int, bytesPerPixel: Int
    ) {
        guard let s = src.baseAddress, let d = dst.baseAddress else { return }
        if inStride == width * bytesPerPixel, outStride == width * bytesPerPixel {
            let rowsPerBatch = max(1, (1 << 24) / width)
            var y = 0
            while y < height {
                let n = min(rowsPerBatch, height - y)
                cmsDoTransform(t, s + y * inStride, d + y * outStride, cmsUInt32Number(n * width))
                y += n
            }
        } else {
            for y in 0..<height { cmsDoTransform(t, s + y * inStride, d + y * outStride, cmsUInt32Number(width)) }
        }
    }

    fileprivate static func open(_ icc: Data) -> cmsHPROFILE? {
        guard !icc.isEmpty, icc.count < Int(UInt32.max) else { return nil }
        return icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
    }

    /// Whether converting from `profile` to sRGB would leave 8-bit pixels as they are.
    fileprivate static func isSRGB(_ profile: cmsHPROFILE) -> Bool {
        if let verdict = matrixShaperMatchesSRGB(profile) { return verdict }
        // A table-based profile: its name is all there is to go on without building a transform.
        var buffer = [CChar](repeating: 0, count: 256)
        let n = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", &buffer, cmsUInt32Number(buffer.count))
        guard n > 0 else { return false }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let name = String(decoding: bytes, as: UTF8.self)
        return name.hasPrefix("sRGB IEC61966-2") || name == "sRGB" || name == "sRGB built-in"
    }

    /// sRGB's colorants as lcms2's built-in sRGB profile states them (D50-adapted XYZ).
    private static let srgbColorants: [cmsCIEXYZ]? = {
        guard let srgb = cmsCreate_sRGBProfile() else { return nil }
        defer { cmsCloseProfile(srgb) }
        return colorants(of: srgb)
    }()

    /// A profile's red, green and blue colorants (D50-adapted XYZ), or `nil` when one is missing.
    static func colorants(of profile: cmsHPROFILE) -> [cmsCIEXYZ]? {
        var out: [cmsCIEXYZ] = []
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let raw = cmsReadTag(profile, tag) else { return nil }
            out.append(raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee)
        }
        return out
    }

    /// For an RGB matrix/TRC profile: whether its colorants are sRGB's (within 0.0015 in XYZ,
    /// under half a level at full scale) and each tone curve, followed by sRGB's encoding,
    /// returns every 8-bit level to within half a level of itself. `nil` for other profiles.
    static func matrixShaperMatchesSRGB(_ profile: cmsHPROFILE) -> Bool? {
        guard cmsGetColorSpace(profile) == cmsSigRgbData, cmsIsMatrixShaper(profile) != 0,
            let want = srgbColorants, let have = colorants(of: profile)
        else { return nil }
        for (a, b) in zip(have, want) where abs(a.X - b.X) > 0.0015 || abs(a.Y - b.Y) > 0.0015 || abs(a.Z - b.Z) > 0.0015 {
            return false
        }
        for tag in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag] {
            guard let raw = cmsReadTag(profile, tag) else { return nil }
            let curve = OpaquePointer(raw)
            for level in 0...255 {
                let linear = Double(cmsEvalToneCurveFloat(curve, Float(level) / 255))
                let encoded = linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1.0 / 2.4) - 0.055
                if abs(encoded * 255 - Double(level)) > 0.5 { return false }
            }
        }
        return true
    }
}
