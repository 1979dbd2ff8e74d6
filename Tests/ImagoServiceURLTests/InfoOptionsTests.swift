// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoServiceURL
import Testing

/// `/info`'s options as imgproxy Pro documents them: names and aliases, defaults, arguments.
@Suite("/info options")
struct InfoOptionsTests {
    @Test("defaults: size, format, dimensions, exif, iptc, xmp and video_meta on; the rest off")
    func defaults() throws {
        let o = try InfoOptions(parsing: [])
        #expect(o.size && o.format && o.dimensions && o.exif && o.iptc && o.xmp && o.videoMeta)
        #expect(!o.colorspace && !o.bands && !o.sampleFormat && !o.pagesNumber && !o.alpha && o.palette == 0)
        #expect(!o.average && !o.dominantColors && o.blurHash == nil && !o.thumbHash && o.hashsums.isEmpty && o.expectedHashsum == nil)
        #expect(!o.needsPixels)
    }

    @Test("names and aliases set the same fields; later segments win")
    func aliases() throws {
        let long = try InfoOptions(parsing: [
            "size:0", "format:0", "dimensions:0", "exif:1:1", "video_meta:0", "colorspace:1", "bands:1", "sample_format:1",
            "pages_number:1", "alpha:1:1", "palette:16", "average:1:0", "dominant_colors:1:1", "blurhash:4:3", "thumb_hash:1",
            "calc_hashsums:md5:sha512:md5", "hashsum:sha1:ABCDEF"
        ])
        let short = try InfoOptions(parsing: [
            "s:0", "f:0", "d:0", "exif:1:1", "vm:0", "cs:1", "b:1", "sf:1", "pn:1", "a:1:1", "p:16", "avg:1:0", "dc:1:1", "bh:4:3",
            "th:1", "chs:md5:sha512:md5", "hs:sha1:ABCDEF"
        ])
        #expect(long == short)
        #expect(long.exifCanonicalNames && long.checkTransparency && !long.averageIgnoresTransparent && long.buildMissedColors)
        #expect(long.blurHash.map { [$0.x, $0.y] } == [4, 3] && long.hashsums == ["md5", "sha512"])
        #expect(long.expectedHashsum.map { [$0.type, $0.hex] } == ["sha1", "abcdef"])
        #expect(long.needsPixels)
        #expect(try InfoOptions(parsing: ["bh:4:3", "bh:0:0"]).blurHash == nil)
        #expect(try InfoOptions(parsing: ["avg:1"]).averageIgnoresTransparent)
    }

    @Test("shared options go to processing; unknown names and bad arguments are refused")
    func refusals() throws {
        let o = try InfoOptions(parsing: ["cb:7", "exp:0", "pg:2", "bh:3:3"])
        #expect(o.sharedSegments == ["cb:7", "exp:0", "pg:2"])
        for bad in [["w:100"], ["rs:fit:10:10"], ["bh:10:1"], ["bh:3"], ["p:1"], ["p:257"], ["chs:crc32"], ["hs:md5"], ["hs:md5:xyz"]] {
            #expect(throws: ServiceURLError.self, "\(bad)") { try InfoOptions(parsing: bad) }
        }
        #expect(o.canonical != (try InfoOptions(parsing: []).canonical))
    }
}
