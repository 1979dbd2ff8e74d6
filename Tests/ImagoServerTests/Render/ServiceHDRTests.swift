// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// Ultra HDR JPEGs through the service: the gain map follows the result's geometry.
@Suite("Service: Ultra HDR gain maps kept through resize, crop, turns and padding", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct ServiceHDRTests {
    static let hdrgm = Data(
        ("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\" hdrgm:Version=\"1.0\" hdrgm:GainMapMin=\"0\" "
            + "hdrgm:GainMapMax=\"2\" hdrgm:Gamma=\"1\" hdrgm:HDRCapacityMin=\"0\" hdrgm:HDRCapacityMax=\"2\"/></rdf:RDF></x:xmpmeta>").utf8)

    /// A photo (libavif's seine, 400×300) whose gain map is its own luminance at a quarter of its
    /// size: wherever the geometry takes the photo, the map must show the same picture.
    static func source() throws -> (data: Data, photo: PixelBuffer) {
        let photo = try JPEGCoder().decode(try Corpus.data("libavif/seine_sdr_gainmap_srgb.jpg"), options: DecodeOptions(pixelFormat: .rgba8))
            .buffer.converted(to: .rgba8)
        let map = try Resampler.resize(photo, to: PixelSize(width: 100, height: 75)).converted(to: .gray8)
        var image = Image(buffer: photo)
        image.metadata.gainMap = GainMap(pixels: map, xmp: hdrgm)
        return (try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.95)), photo)
    }

    static func map(_ reply: Reply) throws -> (image: PixelBuffer, map: GainMap?) {
        var options = DecodeOptions(pixelFormat: .rgba8)
        options.gainMap = true
        let image = try JPEGCoder().decode(reply.body, options: options)
        return (image.buffer.converted(to: .rgba8), image.metadata.gainMap)
    }

    /// Mean absolute difference between the map and the result's own luminance at the map's size.
    static func mismatch(_ map: PixelBuffer, _ image: PixelBuffer) throws -> Double {
        let expected = try Resampler.resize(image, to: map.size).converted(to: .gray8).bytes
        let got = map.converted(to: .gray8).bytes
        return Double(zip(expected, got).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(max(1, got.count))
    }

    @Test("every geometry: the map is the result's size at a quarter, shows the same picture, and keeps its hdrgm values")
    func geometry() async throws {
        let (data, _) = try Self.source()
        try await ServiceHarness.with { h in
            h.origin.register("hdr.jpg", data: data, contentType: "image/jpeg")
            let cases = [
                "w:200", "rs:fill:150:150", "c:200:150:nowe", "rot:90/w:120", "fl:1/rs:fill:100:200", "c:0.5:0.5:soea/rs:fill:80:80",
                "rs:fill:160:160/g:sm", "rot:270/fl::1/c:150:100:ea", "t:10/w:300", "rs:force:300:100"
            ]
            for options in cases {
                let r = try await h.get(h.plain(options, "/img/hdr.jpg"))
                #expect(r.status == 200, "\(options): \(r.errorFields)")
                let (image, map) = try Self.map(r)
                let gain = try #require(map, "\(options): no gain map")
                let expected = PixelSize(width: (image.width + 2) / 4, height: (image.height + 2) / 4)
                #expect(abs(gain.pixels.width - expected.width) <= 1 && abs(gain.pixels.height - expected.height) <= 1, "\(options)")
                #expect(gain.xmp == Self.hdrgm, "\(options)")
                let off = try Self.mismatch(gain.pixels, image)
                #expect(off < 12, "\(options): the map is off the picture by \(off) levels")
                // The test can tell: the map turned the other way does not match.
                let turned = try ImageTransformers.Flip(horizontal: true, vertical: true).transform(gain.pixels.converted(to: .rgba8))
                #expect(try Self.mismatch(turned, image) > off + 8, "\(options)")
            }
            // Padding and extension: the map grows with the picture.
            for options in ["rs:fit:300:300/pd:10:20", "rs:fit:200:200/ex:1", "w:200/exar:1:ce/ar:1"] {
                let r = try await h.get(h.plain(options, "/img/hdr.jpg"))
                let (image, map) = try Self.map(r)
                let gain = try #require(map, "\(options)")
                #expect(abs(gain.pixels.width * 4 - image.width) <= 4 && abs(gain.pixels.height * 4 - image.height) <= 4, "\(options)")
            }
        }
    }

    @Test("preserve_hdr:0, IMAGO_PRESERVE_HDR=false and other formats drop the map; ph:1 keeps it")
    func dropping() async throws {
        let (data, _) = try Self.source()
        try await ServiceHarness.with { h in
            h.origin.register("hdr.jpg", data: data, contentType: "image/jpeg")
            let off = try await h.get(h.plain("ph:0/w:200", "/img/hdr.jpg"))
            #expect(try Self.map(off).map == nil)
            #expect(UltraHDR.multiPicture(in: off.body) == nil)
            let webp = try await h.get(h.plain("w:200", "/img/hdr.jpg", ext: "webp"))
            #expect(webp.status == 200 && UltraHDR.multiPicture(in: webp.body) == nil)
            // The unchanged picture is sent as it came, map and all.
            let same = try await h.get(h.plain("", "/img/hdr.jpg"))
            #expect(try Self.map(same).map != nil)
        }
        try await ServiceHarness.with({ $0.output.preserveHDR = false }) { h in
            h.origin.register("hdr.jpg", data: data, contentType: "image/jpeg")
            let plain = try await h.get(h.plain("w:200", "/img/hdr.jpg"))
            #expect(try Self.map(plain).map == nil)
            let asked = try await h.get(h.plain("ph:1/w:200", "/img/hdr.jpg"))
            #expect(try Self.map(asked).map != nil)
        }
    }

    @Test("libavif's Ultra HDR photos resized and cropped: MPF, hdrgm and a map of the result's geometry")
    func corpus() async throws {
        try await ServiceHarness.with { h in
            for name in ["seine_sdr_gainmap_srgb.jpg", "paris_exif_xmp_gainmap_bigendian.jpg"] {
                let source = try Corpus.data("libavif/" + name)
                h.origin.register(name, data: source, contentType: "image/jpeg")
                let original = try #require(try UltraHDR.gainMap(in: source))
                let r = try await h.get(h.plain("rs:fill:200:100/c:180:90", "/img/\(name)"))
                #expect(r.status == 200)
                let mp = try #require(UltraHDR.multiPicture(in: r.body), "\(name)")
                #expect(mp.entries.count == 2 && mp.base + mp.entries[1].offset == mp.entries[0].size)
                let (image, map) = try Self.map(r)
                let gain = try #require(map, "\(name)")
                #expect(image.size == PixelSize(width: 180, height: 90))
                // The map keeps its resolution relative to the picture, at most the picture's.
                #expect(gain.pixels.size == image.size, "\(name): \(gain.pixels.size)")
                #expect(gain.pixels.format == original.pixels.format && gain.xmp == original.xmp)
            }
        }
    }
}
