// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

@Suite("Codec threads: one limit for every codec that can use more than one, the pixels the same either way")
struct CodecThreadsTests {
    @Test("The limit: the caller's, or the cores up to 4; 1 below a megapixel where threads cost more")
    func limits() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(CodecThreads.defaultLimit == min(4, max(1, cores)))
        #expect(CodecThreads.limit(nil) == CodecThreads.defaultLimit)
        #expect(CodecThreads.limit(1) == 1)
        #expect(CodecThreads.limit(0) == 1)
        #expect(CodecThreads.limit(-3) == 1)
        #expect(CodecThreads.limit(16) == 16)
        #expect(CodecThreads.limit(6, pixels: 999_999) == 1)
        #expect(CodecThreads.limit(6, pixels: 1_000_000) == 6)
        #expect(CodecThreads.limit(nil, pixels: 12_000_000) == CodecThreads.defaultLimit)
    }

    /// Decodes `file` with `maxThreads` 1 and 4 and expects the same pixels.
    private func expectSamePixels(_ file: String, colorManagement: Bool = true) throws {
        let data = try Corpus.data(file)
        let coders = ImageCoderRegistry.makeDefault()
        var one = DecodeOptions(colorManagement: colorManagement)
        one.maxThreads = 1
        var four = one
        four.maxThreads = 4
        let alone = try coders.decode(data, options: one), shared = try coders.decode(data, options: four)
        let same = alone.buffer == shared.buffer  // not inside #expect: it would print every byte
        #expect(same, "\(file): the pixels depend on the threads")
    }

    @Test(
        "libjxl's threads, libheif's tiles and libwebp's filtering thread give the same pixels on one thread",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason),
        arguments: [
            "libjxl/conformance/progressive.jxl",  // 11 MP: libjxl's runner
            "libheif/example.heic",  // a grid of tiles
            "libwebp-test-data/bryce.webp"  // libwebp's filtering thread
        ])
    func decodesAgree(file: String) throws {
        try expectSamePixels(file)
    }

    @Test(
        "A large image converted through its profile in bands gives the same pixels on one thread",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func colorBandsAgree() throws {
        let coders = ImageCoderRegistry.makeDefault()
        let kept = DecodeOptions(colorManagement: false)
        let p3 = try #require(try coders.decode(Corpus.data("libavif/apple_gainmap_new.jpg"), options: kept).metadata.iccProfile)
        // A 1.75-MP picture tagged Display P3, so decoding converts it in bands.
        var photo = try coders.decode(try Corpus.data("libjxl/conformance/patches_lossless.ref.png"), options: kept)
        #expect(photo.buffer.width * photo.buffer.height >= ColorManagement.Converter.bandingThreshold)
        photo.metadata.iccProfile = p3
        for format in [ImageFormat.jpeg, .png] {
            let tagged = try coders.encode(photo, as: format, options: EncodeOptions(quality: 0.9))
            let managed = try coders.decode(tagged), unmanaged = try coders.decode(tagged, options: kept)
            let converted = managed.buffer != unmanaged.buffer
            #expect(converted, "\(format): the profile converts the pixels")
            var one = DecodeOptions()
            one.maxThreads = 1
            let same = try coders.decode(tagged, options: one).buffer == managed.buffer
            #expect(same, "\(format): the pixels depend on the threads")
        }
    }

    @Test(
        "A large GIF frame is quantized the same on one thread as on libimagequant's team",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func gifEncodesAgree() throws {
        let coders = ImageCoderRegistry.makeDefault()
        let photo = try coders.decode(try Corpus.data("libjxl/conformance/patches_lossless.ref.png"))
        #expect(photo.buffer.width * photo.buffer.height >= CodecThreads.smallImagePixels)
        var one = EncodeOptions()
        one.maxThreads = 1
        var four = one
        four.maxThreads = 4
        let alone = try coders.encode(photo, as: .gif, options: one)
        let shared = try coders.encode(photo, as: .gif, options: four)
        let same = try coders.decode(alone).buffer == coders.decode(shared).buffer
        #expect(same)
    }

    @Test(
        "libjxl's encoder writes the same file on one thread as on its runner",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func jxlEncodesAgree() throws {
        let coders = ImageCoderRegistry.makeDefault()
        let photo = try coders.decode(try Corpus.data("libavif/apple_gainmap_new.jpg"))
        var one = EncodeOptions(quality: 0.8)
        one.effort = 3
        one.maxThreads = 1
        var four = one
        four.maxThreads = 4
        let same = try coders.encode(photo, as: .jxl, options: one) == coders.encode(photo, as: .jxl, options: four)
        #expect(same)
    }
}
