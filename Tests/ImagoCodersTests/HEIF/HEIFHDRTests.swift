// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CHeif
import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// HDR HEIF (an nclx colour box with transfer PQ or HLG) tone-mapped to sRGB for a 255-nit
/// display, as AVIF is: BT.2408's curve for PQ, from the file's content light level when it
/// gives one. The corpus holds no HDR HEIC (camera HIF files are), and libheif 1.15's heif-enc
/// writes no nclx box, so the HEIC files are written here through libheif's own encoder (x265,
/// lossless); the corpus's HDR AVIF files are read through libheif as well.
@Suite(
    "HEIF HDR to SDR", .serialized,
    .enabled(if: HEIFCoder().canDecode(.heic) && HEIFCoder().canEncode(.heic), "libheif with libde265 and x265 is missing: run scripts/bootstrap"))
struct HEIFHDRTests {
    /// The grey steps of the corpus's `hdr_pq_test`: 10-bit codes 127, 255, … 1023.
    static let steps = (1...8).map { UInt16($0 * 128 - 1) }

    static func greySteps(_ data: Data) throws -> [UInt8] {
        let image = try HEIFCoder().decode(data, options: DecodeOptions(pixelFormat: .rgba8)).buffer
        return (0..<8).map { image.color(atX: $0 * 16 + 8, y: 4)?.g ?? 0 }
    }

    /// One staircase: its transfer (16 PQ, 18 HLG), its content light level, and where its grey
    /// steps must land, computed apart from Imago (the numpy port of the curves in
    /// docs/issue-51-hdr-research.md; AVIFHDRTests checks the same PQ steps).
    struct Staircase: Sendable, CustomTestStringConvertible {
        let name: String
        let transfer: UInt16
        let contentLightLevel: UInt16?
        let expected: [UInt8]
        var testDescription: String { name }
    }

    static let staircases = [
        // BT.2408's curve from 10,000 nits (no clli) to a 255-nit display, then sRGB.
        Staircase(name: "PQ, 0.6 to 10,000 nits", transfer: 16, contentLightLevel: nil, expected: [8, 39, 87, 152, 206, 240, 253, 255]),
        // The curve starts from the file's 1,000 nits, so the bright steps reach white.
        Staircase(name: "PQ, clli 1,000 nits", transfer: 16, contentLightLevel: 1000, expected: [8, 39, 87, 162, 240, 255, 255, 255]),
        // Scene light through HLG's OOTF for a 255-nit display (gamma 0.975), then sRGB.
        Staircase(name: "HLG", transfer: 18, contentLightLevel: nil, expected: [18, 42, 63, 84, 108, 143, 190, 255])
    ]

    @Test("the grey steps land where the tone curve puts them", arguments: staircases)
    func staircase(_ staircase: Staircase) throws {
        let got = try Self.greySteps(HDRHEIC.steps(Self.steps, transfer: staircase.transfer, contentLightLevel: staircase.contentLightLevel))
        #expect(
            zip(got, staircase.expected).allSatisfy { abs(Int($0) - Int($1)) <= 2 }, "\(staircase.name): \(got) against \(staircase.expected)")
    }

    @Test("without colour management the PQ codes are kept, reduced to 8 bits as libheif reduces them")
    func keptWithoutColorManagement() throws {
        let data = try HDRHEIC.steps(Self.steps, transfer: 16)
        let image = try HEIFCoder().decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false)).buffer
        let got = (0..<8).map { image.color(atX: $0 * 16 + 8, y: 4)?.g ?? 0 }
        #expect(got == Self.steps.map { UInt8($0 >> 2) }, "\(got)")
    }

    @Test(
        "the corpus's HDR AVIF files read by libheif agree with libavif's reading (content light level included) and across primaries",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func corpusAVIFThroughLibheif() throws {
        func heif(_ name: String) throws -> PixelBuffer {
            try HEIFCoder().decode(Corpus.data("libavif/\(name).avif"), options: DecodeOptions(pixelFormat: .rgba8)).buffer
        }
        for stem in ["colors_hdr_", "colors_text_hdr_"] {
            let srgb = try heif(stem + "srgb")
            for other in ["p3", "rec2020"] {
                let dB = PixelMetrics.psnr(srgb, try heif(stem + other))
                print("libheif: \(stem)srgb against \(other): \(String(format: "%.1f", dB)) dB")
                #expect(dB >= 35, "\(stem)\(other)")
            }
        }
        // Both map from the files' content light levels (470 to 707 nits): libheif reads the
        // clli box, and Imago reads it for libavif 0.11, which does not (AVIFContentLight).
        for name in ["colors_hdr_rec2020", "colors_text_hdr_p3", "seine_hdr_srgb", "seine_hdr_rec2020"] {
            let avif = try ImageCoderRegistry.shared.decode(Corpus.data("libavif/\(name).avif"), options: DecodeOptions(pixelFormat: .rgba8)).frames[0].buffer
            let dB = PixelMetrics.psnr(avif, try heif(name))
            print("\(name): libheif against libavif: \(String(format: "%.1f", dB)) dB")
            #expect(dB >= 35, "\(name)")
        }
    }
}

/// HDR HEIC files written through libheif's API with an nclx colour box (which heif-enc 1.15
/// leaves out for old macOS readers).
enum HDRHEIC {
    /// A 128×8 grey staircase of 10-bit `codes` (16 pixels each), lossless, with BT.2020
    /// primaries, the given transfer characteristics and, when given, a content light level.
    static func steps(_ codes: [UInt16], transfer: UInt16, contentLightLevel: UInt16? = nil) throws -> Data {
        let width = 16 * codes.count, height = 8
        guard let context = heif_context_alloc() else { throw Failure("no libheif context") }
        defer { heif_context_free(context) }
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RRGGBB_LE, &image))
        guard let image else { throw Failure("no image") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 10))
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else { throw Failure("no plane") }
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    (UnsafeMutableRawPointer(plane) + y * Int(stride) + (x * 3 + c) * 2).storeBytes(
                        of: codes[x / 16].littleEndian, as: UInt16.self)
                }
            }
        }
        guard let nclx = heif_nclx_color_profile_alloc() else { throw Failure("no nclx") }
        defer { heif_nclx_color_profile_free(nclx) }
        try check(heif_nclx_color_profile_set_color_primaries(nclx, 9))
        try check(heif_nclx_color_profile_set_transfer_characteristics(nclx, transfer))
        try check(heif_nclx_color_profile_set_matrix_coefficients(nclx, 0))
        nclx.pointee.full_range_flag = 1
        try check(heif_image_set_nclx_color_profile(image, nclx))
        if let contentLightLevel {
            var level = heif_content_light_level(max_content_light_level: contentLightLevel, max_pic_average_light_level: contentLightLevel / 4)
            heif_image_set_content_light_level(image, &level)
        }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        guard let encoder else { throw Failure("no HEVC encoder") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossless(encoder, 1))
        try check(heif_encoder_set_parameter_string(encoder, "chroma", "444"))
        guard let options = heif_encoding_options_alloc() else { throw Failure("no options") }
        defer { heif_encoding_options_free(options) }
        options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        try check(heif_context_encode_image(context, image, encoder, options, nil))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imago-hdr-\(UUID().uuidString).heic")
        defer { try? FileManager.default.removeItem(at: url) }
        try check(heif_context_write_to_file(context, url.path))
        return try Data(contentsOf: url)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func check(_ error: heif_error) throws {
        guard error.code != heif_error_Ok else { return }
        throw Failure(error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)")
    }
}
