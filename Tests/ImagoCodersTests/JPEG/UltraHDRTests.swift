// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// Ultra HDR JPEGs: the gain map found through MPF, decoded, and written back with MPF and
/// hdrgm metadata an independent reader (exiftool) agrees with.
@Suite("Ultra HDR gain maps: MPF, hdrgm, read and write", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct UltraHDRTests {
    static func decode(_ data: Data) throws -> Image {
        var options = DecodeOptions(pixelFormat: .rgba8)
        options.gainMap = true
        return try JPEGCoder().decode(data, options: options)
    }

    @Test("libavif's Ultra HDR JPEGs: the map, its size, channels and hdrgm values; files without one decode as SDR")
    func read() throws {
        let cases: [(String, PixelSize, PixelFormat)] = [
            ("libavif/seine_sdr_gainmap_srgb.jpg", PixelSize(width: 400, height: 300), .rgb8),
            ("libavif/seine_sdr_different_gainmap_srgb.jpg", PixelSize(width: 400, height: 300), .rgb8),
            ("libavif/paris_exif_xmp_gainmap_bigendian.jpg", PixelSize(width: 512, height: 384), .gray8),
            ("libavif/paris_exif_xmp_gainmap_littleendian.jpg", PixelSize(width: 512, height: 384), .gray8),
            ("libavif/paris_exif_xmp_icc_gainmap_bigendian.jpg", PixelSize(width: 512, height: 384), .gray8)
        ]
        for (path, size, format) in cases {
            let data = try Corpus.data(path)
            let mp = try #require(UltraHDR.multiPicture(in: data), "\(path)")
            let says = try JPEGCoder().info(of: data).hasGainMap
            #expect(says, "\(path): the header says so")
            #expect(mp.entries.count == 2 && mp.entries[0].offset == 0)
            let image = try Self.decode(data)
            let map = try #require(image.metadata.gainMap, "\(path)")
            #expect(map.pixels.size == size && map.pixels.format == format, "\(path): \(map.pixels.size) \(map.pixels.format)")
            let xmp = String(decoding: try #require(map.xmp), as: UTF8.self)
            #expect(xmp.contains("hdrgm:GainMapMax") || xmp.contains("<hdrgm:GainMapMax>"), "\(path)")
            // Without asking, no map is read.
            #expect(try JPEGCoder().decode(data, options: DecodeOptions()).metadata.gainMap == nil)
        }
        // Apple's older gain map says nothing of itself; Pillow's sample is cut before its map.
        for path in ["libavif/apple_gainmap_new.jpg", "pillow/jpeg/ultrahdr.jpg", "libjpeg-turbo/testorig.jpg"] {
            let data = try Corpus.data(path)
            #expect(try UltraHDR.gainMap(in: data) == nil, "\(path)")
            let says = try JPEGCoder().info(of: data).hasGainMap
            if path != "pillow/jpeg/ultrahdr.jpg" { #expect(!says, "\(path)") }
        }
    }

    @Test("hostile MPF: offsets past the end, huge counts, a cut map: no map, the primary still decodes")
    func hostile() throws {
        let data = try Corpus.data("libavif/seine_sdr_gainmap_srgb.jpg")
        let mp = try #require(UltraHDR.multiPicture(in: data))
        // Cut inside the gain map.
        let cut = data.prefix(mp.base + mp.entries[1].offset + 100)
        #expect(try UltraHDR.gainMap(in: Data(cut)) == nil)
        // Every byte of the MPF segment flipped in turn: never a crash, and a map only when one is there.
        var bytes = [UInt8](data)
        for i in (mp.base - 8)..<(mp.base + 80) {
            let saved = bytes[i]
            bytes[i] ^= 0xA5
            let result = try? UltraHDR.gainMap(in: Data(bytes))
            if let result { #expect(result.pixels.width > 0) }
            bytes[i] = saved
        }
        let image = try Self.decode(Data(cut))
        #expect(image.pixelSize == PixelSize(width: 400, height: 300) && image.metadata.gainMap == nil)
    }

    @Test("written back: MPF names both images at their offsets, the map keeps its hdrgm values; exiftool agrees")
    func roundTrip() async throws {
        let data = try Corpus.data("libavif/paris_exif_xmp_gainmap_littleendian.jpg")
        let image = try Self.decode(data)
        let source = try #require(image.metadata.gainMap)
        let written = try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.8))
        let mp = try #require(UltraHDR.multiPicture(in: written))
        let says = try JPEGCoder().info(of: written).hasGainMap
        #expect(mp.entries.count == 2 && says)
        #expect(mp.entries[0].offset == 0 && mp.base + mp.entries[1].offset == mp.entries[0].size)
        #expect(mp.entries[0].size + mp.entries[1].size == written.count)
        let back = try #require(try UltraHDR.gainMap(in: written))
        #expect(back.pixels.size == source.pixels.size && back.pixels.format == .gray8)
        #expect(back.xmp == source.xmp)
        // The map's pixels survive the JPEG round trip closely.
        let a = source.pixels.bytes, b = back.pixels.bytes
        let error = zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(error) / Double(a.count) < 2, "mean error \(Double(error) / Double(a.count))")
        let primaryXMP = String(decoding: written.prefix(mp.entries[0].size), as: UTF8.self)
        #expect(primaryXMP.contains("hdrgm:Version=\"1.0\"") && primaryXMP.contains("Item:Length=\"\(mp.entries[1].size)\""))
        // An independent reader: exiftool's MPF and XMP (libimage-exiftool-perl, from scripts/bootstrap).
        let exiftool = URL(fileURLWithPath: "/usr/bin/exiftool")
        try #require(FileManager.default.isExecutableFile(atPath: exiftool.path), "exiftool is missing: run scripts/bootstrap")
        let dir = try TestFiles.temporaryDirectory("imago-ultrahdr")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("written.jpg")
        try written.write(to: file)
        let (_, report, _) = try await Subprocess.run(exiftool, ["-s", "-NumberOfImages", "-MPImageLength", "-XMP-hdrgm:Version", file.path])
        #expect(report.contains("NumberOfImages                  : 2"), "\(report)")
        #expect(report.contains(": \(mp.entries[1].size)") && report.contains("Version                         : 1.0"), "\(report)")
        let (status, _, err) = try await Subprocess.run(exiftool, ["-q", "-b", "-MPImage2", "-w!", "%d%f_map.jpg", file.path])
        #expect(status == 0, "\(err)")
        let mapFile = dir.appendingPathComponent("written_map.jpg")
        let (_, mapReport, _) = try await Subprocess.run(exiftool, ["-s", "-ImageSize", "-XMP-hdrgm:GainMapMax", mapFile.path])
        #expect(mapReport.contains("512x384") && mapReport.contains("GainMapMax"), "\(mapReport)")
    }

    @Test("ISO 21496-1 metadata is kept with the map, and the primary carries the standard's version block")
    func iso() throws {
        let photo = try Fixtures.gradient(width: 64, height: 48)
        let map = try PixelBuffer(width: 16, height: 12, format: .gray8, bytes: [UInt8]((0..<(16 * 12)).map { UInt8($0 % 256) }))
        let block = Data([0, 0, 0, 0, 0x40, 1, 2, 3, 4, 5])
        var image = Image(buffer: photo)
        image.metadata.gainMap = GainMap(pixels: map, iso21496: block)
        let written = try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.9))
        let back = try #require(try UltraHDR.gainMap(in: written))
        #expect(back.iso21496 == block && back.xmp == nil && back.pixels.size == map.size)
        let says = try JPEGCoder().info(of: written).hasGainMap
        #expect(says, "the primary's ISO block and MPF mark it")
        let primary = [UInt8](written.prefix(try #require(UltraHDR.multiPicture(in: written)).entries[0].size))
        let marker = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0, 0, 0, 0, 0]
        #expect(primary.indices.contains { primary[$0...].starts(with: marker) })
    }
}
