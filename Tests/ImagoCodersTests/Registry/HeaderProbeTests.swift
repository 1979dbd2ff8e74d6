// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("Header facts for formats without a decoder")
struct HeaderProbeTests {
    /// A registry without the TIFF and HEIF decoders, so the container probe answers for them.
    let coders = ImageCoderRegistry(decoders: [PNGCoder(), JPEGCoder()])

    /// A classic little-endian TIFF with one IFD of the given SHORT/LONG entries, chained to `next`.
    static func tiff(entries: [(tag: UInt16, type: UInt16, value: UInt32)], next: UInt32 = 0, bigEndian: Bool = false) -> Data {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let le = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
            return bigEndian ? le.reversed() : le
        }
        var d: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        d += u16(42) + u32(8) + u16(UInt16(entries.count))
        for e in entries {
            d += u16(e.tag) + u16(e.type) + u32(1)
            d += e.type == 3 ? u16(UInt16(e.value)) + [0, 0] : u32(e.value)
        }
        d += u32(next)
        return Data(d)
    }

    @Test("classic TIFF in both byte orders: size, depth, orientation, alpha, ICC")
    func classicTIFF() throws {
        for bigEndian in [false, true] {
            let data = Self.tiff(
                entries: [
                    (256, 4, 3000), (257, 3, 2000), (258, 3, 16), (274, 3, 6), (277, 3, 4),
                    (338, 3, 2), (34675, 7, 0)
                ], bigEndian: bigEndian)
            let info = try coders.info(of: data)
            #expect(info.format == .tiff && info.width == 3000 && info.height == 2000)
            #expect(info.bitDepth == 16 && info.orientation == .right && info.hasAlpha && info.hasICCProfile && info.frameCount == 1)
        }
    }

    @Test("BigTIFF is read; a directory chain that loops ends instead of hanging")
    func bigTIFFAndLoops() throws {
        // BigTIFF: II, 43, 8, 0, IFD at 16; one entry count (u64), entries of 20 bytes, next (u64).
        var big: [UInt8] = [0x49, 0x49, 43, 0, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]
        big += [2, 0, 0, 0, 0, 0, 0, 0]
        big += [0, 1, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0] + [0x10, 0x27, 0, 0, 0, 0, 0, 0]  // width 10000
        big += [1, 1, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0] + [0x88, 0x13, 0, 0, 0, 0, 0, 0]  // height 5000
        big += [0, 0, 0, 0, 0, 0, 0, 0]
        let info = try coders.info(of: Data(big))
        #expect(info.width == 10_000 && info.height == 5000)
        let looping = Self.tiff(entries: [(256, 3, 10), (257, 3, 10)], next: 8)  // next IFD is itself
        #expect(try coders.info(of: looping).frameCount == 1)
    }

    @Test("truncated and garbled headers give typed errors, never a crash", arguments: [ImageFormat.tiff, .jp2])
    func truncation(_ format: ImageFormat) throws {
        let data = format == .tiff ? Self.tiff(entries: [(256, 3, 10), (257, 3, 10)]) : Self.jp2(width: 640, height: 480)
        for n in 4..<data.count {
            do { _ = try coders.info(of: data.prefix(n)) } catch is ImageCodingError {} catch { Issue.record("\(error)") }
        }
        var rng = SplitMix(seed: 9)
        for _ in 0..<500 {
            var copy = [UInt8](data)
            let i = 4 + Int(rng.next() % UInt64(copy.count - 4))
            copy[i] = UInt8(truncatingIfNeeded: rng.next())
            do { _ = try coders.info(of: Data(copy)) } catch is ImageCodingError {} catch { Issue.record("\(error)") }
        }
    }

    static func jp2(width: UInt32, height: UInt32) -> Data {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var d: [UInt8] = [0, 0, 0, 12] + Array("jP  ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
        d += be32(20) + Array("ftyp".utf8) + Array("jp2 ".utf8) + [0, 0, 0, 0] + Array("jp2 ".utf8)
        let ihdr: [UInt8] = be32(22) + Array("ihdr".utf8) + be32(height) + be32(width) + [0, 4, 11, 7, 0, 0]
        let colr: [UInt8] = be32(15) + Array("colr".utf8) + [2, 0, 0] + [0, 0, 0, 0]
        d += be32(UInt32(8 + ihdr.count + colr.count)) + Array("jp2h".utf8) + ihdr + colr
        return Data(d)
    }

    @Test("JPEG 2000: the ihdr box of a JP2 file and the SIZ marker of a codestream")
    func jpeg2000() throws {
        let info = try coders.info(of: Self.jp2(width: 640, height: 480))
        #expect(info.format == .jp2 && info.width == 640 && info.height == 480)
        #expect(info.bitDepth == 12 && info.hasAlpha && info.hasICCProfile)
        // Codestream: SOC, SIZ with Xsiz 1000, Ysiz 700, offsets 100/50, 3 components of 8 bits.
        var cs: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51, 0, 47, 0, 0]
        cs += [0, 0, 0x03, 0xE8, 0, 0, 0x02, 0xBC, 0, 0, 0, 100, 0, 0, 0, 50]
        cs += [UInt8](repeating: 0, count: 16) + [0, 3] + [7, 1, 1, 7, 1, 1, 7, 1, 1]
        let code = try coders.info(of: Data(cs))
        #expect(code.width == 900 && code.height == 650 && code.bitDepth == 8 && !code.hasAlpha)
    }
}

@Suite("TIFF headers from the corpus", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct TIFFCorpusHeaderTests {
    let coders = ImageCoderRegistry.makeDefault()

    @Test("sizes, depths, page counts and orientations match the files")
    func facts() throws {
        func info(_ path: String) throws -> ImageInfo { try coders.info(of: Corpus.data(path)) }
        let cmyk = try info("image-tiff/images/cmyk-3c-8b.tiff")
        #expect(cmyk.width == 157 && cmyk.height == 151 && cmyk.bitDepth == 8)
        #expect(try info("image-tiff/images/big_g4.tif").pixelSize == PixelSize(width: 1, height: 65_537))
        #expect(try info("image-tiff/images/12bit.cropped.tiff").bitDepth == 12)
        for n in 1...8 {
            #expect(try info("pillow/tiff/g4_orientation_\(n).tif").orientation.rawValue == n)
        }
        // Pillow's tests: multipage.tiff has 3 frames, multipage-lastframe.tif has 1.
        #expect(try info("pillow/tiff/multipage.tiff").frameCount == 3)
        #expect(try info("pillow/tiff/multipage-lastframe.tif").frameCount == 1)
        #expect(try info("pillow/tiff/g4-multi.tiff").frameCount == 3)
    }

    @Test("every TIFF in the corpus gives header facts or a typed error")
    func everyTIFF() throws {
        var read = 0
        for url in Corpus.files(in: "image-tiff") + Corpus.files(in: "pillow/tiff") {
            let data = try Data(contentsOf: url)
            guard ImageFormat(sniffing: data) == .tiff else { continue }
            do {
                let i = try coders.info(of: data)
                #expect(i.width > 0 && i.height > 0, "\(url.lastPathComponent)")
                read += 1
            } catch is ImageCodingError {}
        }
        #expect(read > 100)
    }
}
