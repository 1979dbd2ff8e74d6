// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CLCMS2
import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("Colour management: sRGB by colorants and curves, converters built once, large images in bands")
struct ColorManagementTests {
    /// Every distinct ICC profile in the corpus's JPEGs that lcms2 reads as RGB.
    static func corpusProfiles() throws -> [(name: String, icc: Data)] {
        let coders = ImageCoderRegistry.makeDefault()
        var seen = Set<Data>(), out: [(String, Data)] = []
        for url in Corpus.files(in: ".", extensions: ["jpg", "jpeg"]) where !url.path.contains("/malformed/") {
            guard let data = try? Data(contentsOf: url),
                let icc = try? coders.decode(data, options: DecodeOptions(pixelFormat: .rgb8, colorManagement: false)).metadata.iccProfile,
                ColorManagement.space(of: icc) == .rgb, seen.insert(icc).inserted
            else { continue }
            out.append((url.lastPathComponent, icc))
        }
        return out
    }

    /// The largest change, in 8-bit levels, that `icc`'s transform to sRGB makes to a grid of
    /// 17³ colours: what skipping it would cost; `nil` when lcms2 cannot build the transform.
    static func largestChange(_ icc: Data) throws -> Int? {
        let profile = try #require(icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        defer { cmsCloseProfile(profile) }
        let srgb = try #require(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(srgb) }
        guard
            let t = cmsCreateTransform(
                profile, IMAGO_TYPE_RGB_8, srgb, IMAGO_TYPE_RGB_8,
                cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(cmsFLAGS_NOCACHE))
        else { return nil }
        defer { cmsDeleteTransform(t) }
        var input: [UInt8] = []
        for r in stride(from: 0, through: 255, by: 16) {
            for g in stride(from: 0, through: 255, by: 16) { for b in stride(from: 0, through: 255, by: 16) { input += [UInt8(r), UInt8(g), UInt8(b)] } }
        }
        var output = [UInt8](repeating: 0, count: input.count)
        cmsDoTransform(t, input, &output, cmsUInt32Number(input.count / 3))
        return zip(input, output).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test(
        "a profile is skipped as sRGB exactly when converting from it would change no colour by more than a level",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func srgbVerdicts() throws {
        let profiles = try Self.corpusProfiles()
        #expect(profiles.count >= 6, "expected the corpus's sRGB, Display P3 and other RGB profiles, found \(profiles.count)")
        var skipped = 0, converted = 0
        for (name, icc) in profiles {
            let needed = ColorManagement.converter(for: icc, layout: IMAGO_TYPE_RGB_8) != nil
            guard let change = try Self.largestChange(icc) else {
                #expect(!needed, "\(name): lcms2 cannot convert from it, so it must be left alone")
                continue
            }
            if needed {
                converted += 1
                #expect(change > 1, "\(name): converted though its transform changes colours by at most \(change)")
            } else {
                skipped += 1
                #expect(change <= 1, "\(name): skipped as sRGB though its transform changes colours by \(change)")
            }
        }
        #expect(skipped >= 2 && converted >= 2, "skipped \(skipped), converted \(converted)")
    }

    @Test("sRGB is recognised by what a profile says, not by its name or bytes", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func byColorantsAndCurves() throws {
        func verdict(_ icc: Data) throws -> Bool? {
            let p = try #require(icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
            defer { cmsCloseProfile(p) }
            return ColorManagement.matrixShaperMatchesSRGB(p)
        }
        let coders = ImageCoderRegistry.makeDefault()
        func profile(_ path: String) throws -> Data {
            try #require(try coders.decode(Corpus.data(path), options: DecodeOptions(colorManagement: false)).metadata.iccProfile)
        }
        // HP's v2 sRGB (3144 bytes), a 596-byte v4 sRGB and GIMP's built-in one: all sRGB.
        #expect(try verdict(profile("pillow/jpeg/flower2.jpg")) == true)
        #expect(try verdict(profile("libavif/paris_exif_xmp_icc.jpg")) == true)
        // Display P3, and P3's gamut with sRGB's curve: not sRGB.
        #expect(try verdict(profile("libavif/apple_gainmap_new.jpg")) == false)
        #expect(try verdict(profile("libavif/paris_exif_xmp_icc_gainmap_bigendian.jpg")) == false)
        // lcms2's own sRGB, written out: different bytes from all of the above, still sRGB.
        let built = try #require(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(built) }
        var size: cmsUInt32Number = 0
        #expect(cmsSaveProfileToMem(built, nil, &size) != 0)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        #expect(cmsSaveProfileToMem(built, &bytes, &size) != 0)
        #expect(try verdict(Data(bytes)) == true)
    }

    @Test("a profile's converter is built once and shared", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func convertersAreShared() throws {
        let p3 = try #require(
            try ImageCoderRegistry.makeDefault().decode(
                Corpus.data("libavif/apple_gainmap_new.jpg"),
                options: DecodeOptions(colorManagement: false)
            ).metadata.iccProfile)
        let first = try #require(ColorManagement.converter(for: p3, layout: IMAGO_TYPE_RGBA_8))
        let second = try #require(ColorManagement.converter(for: p3, layout: IMAGO_TYPE_RGBA_8))
        #expect(first === second)
        // Another layout is another transform.
        let bgra = try #require(ColorManagement.converter(for: p3, layout: IMAGO_TYPE_BGRA_8))
        #expect(bgra !== first)
        // The cache is bounded.
        let cache = ColorManagement.ConverterCache(capacity: 2)
        for layout in [IMAGO_TYPE_RGBA_8, IMAGO_TYPE_BGRA_8, IMAGO_TYPE_RGB_8] {
            cache.insert(.init(profile: p3, layout: layout), .init(converter: nil))
        }
        #expect(cache.count == 2)
        #expect(cache.lookup(.init(profile: p3, layout: IMAGO_TYPE_RGBA_8)) == nil, "the least recently used was dropped")
    }

    @Test(
        "a large image converted in bands on every core equals the one-pass conversion",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func bandsMatch() throws {
        let p3 = try #require(
            try ImageCoderRegistry.makeDefault().decode(
                Corpus.data("libavif/apple_gainmap_new.jpg"),
                options: DecodeOptions(colorManagement: false)
            ).metadata.iccProfile)
        let converter = try #require(ColorManagement.converter(for: p3, layout: IMAGO_TYPE_RGBA_8))
        // 1031 rows, so bands are unequal; a row stride with padding.
        let width = 1100, height = 1031, stride = width * 4 + 12
        #expect(width * height >= ColorManagement.Converter.bandingThreshold)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let original = (0..<(stride * height)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var banded = original, single = original
        banded.withUnsafeMutableBytes { converter.convert($0, width: width, height: height, bytesPerRow: stride, threads: 4) }
        single.withUnsafeMutableBytes { converter.convertRows($0, width: width, height: height, bytesPerRow: stride) }
        #expect(banded == single)
        #expect(banded != original)
        // The padding at each row's end is untouched.
        for row in 0..<height {
            let pad = (row * stride + width * 4)..<((row + 1) * stride)
            #expect(banded[pad] == original[pad])
        }
    }

    @Test(
        "matrix/TRC profiles convert inline, within a level of lcms2 on every layout, and alpha is kept",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func inlineMatchesLCMS() throws {
        var inline = 0
        for (name, icc) in try Self.corpusProfiles() {
            let profile = try #require(icc.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
            defer { cmsCloseProfile(profile) }
            let srgb = try #require(cmsCreate_sRGBProfile())
            defer { cmsCloseProfile(srgb) }
            for layout in [IMAGO_TYPE_BGRA_8, IMAGO_TYPE_RGBA_8, IMAGO_TYPE_ARGB_8, IMAGO_TYPE_RGB_8] {
                guard let converter = ColorManagement.converter(for: icc, layout: layout) else { continue }
                guard converter.convertsInline else {
                    #expect(cmsIsMatrixShaper(profile) == 0, "\(name): a matrix/TRC profile that lcms2 converts")
                    continue
                }
                inline += 1
                let channels = try #require(MatrixShaper.channels(of: layout))
                let flags = channels.bytesPerPixel == 4 ? cmsFLAGS_COPY_ALPHA | cmsFLAGS_NOCACHE : cmsFLAGS_NOCACHE
                let t = try #require(
                    cmsCreateTransform(profile, layout, srgb, layout, cmsUInt32Number(INTENT_PERCEPTUAL), cmsUInt32Number(flags)))
                defer { cmsDeleteTransform(t) }
                // 300,000 pseudo-random pixels: colours the check's grid never saw.
                var state: UInt64 = 0x2545_F491_4F6C_DD1D
                let original = (0..<(300_000 * channels.bytesPerPixel)).map { _ -> UInt8 in
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return UInt8(truncatingIfNeeded: state >> 56)
                }
                var mine = original, theirs = original
                mine.withUnsafeMutableBytes { converter.convertRows($0, width: 300_000, height: 1, bytesPerRow: $0.count) }
                cmsDoTransform(t, original, &theirs, 300_000)
                let largest = zip(mine, theirs).map { abs(Int($0) - Int($1)) }.max() ?? 0
                let exact = zip(mine, theirs).filter { $0 == $1 }.count
                #expect(largest <= 1, "\(name), layout \(layout): \(largest) levels from lcms2")
                #expect(Double(exact) / Double(mine.count) > 0.99, "\(name): \(exact) of \(mine.count) bytes as lcms2's")
                #expect(mine != original)
                if channels.bytesPerPixel == 4 {
                    let alpha = 6 - channels.red - channels.green - channels.blue
                    for i in stride(from: alpha, to: mine.count, by: 4) where mine[i] != original[i] {
                        Issue.record("\(name): alpha changed at byte \(i)")
                        break
                    }
                }
            }
        }
        #expect(inline >= 8, "the corpus's Display P3 and other matrix/TRC profiles convert inline (\(inline) converters)")
    }
}
