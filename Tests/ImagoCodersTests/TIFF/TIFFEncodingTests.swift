// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// One entry of a TIFF directory, its values read whatever their type (bytes for BYTE, ASCII and
/// UNDEFINED; numbers for SHORT and LONG).
struct TIFFEntry {
    var type: Int
    var count: Int
    var values: [Int]
}

/// The directories of a classic TIFF in chain order, each as its entries by tag.
func tiffDirectories(_ data: Data) -> [[Int: TIFFEntry]] {
    let b = [UInt8](data)
    guard b.count >= 8 else { return [] }
    let big = b[0] == 0x4D
    func u16(_ o: Int) -> Int? {
        guard o >= 0, o + 2 <= b.count else { return nil }
        return big ? Int(b[o]) << 8 | Int(b[o + 1]) : Int(b[o + 1]) << 8 | Int(b[o])
    }
    func u32(_ o: Int) -> Int? {
        guard let a = u16(o), let c = u16(o + 2) else { return nil }
        return big ? a << 16 | c : c << 16 | a
    }
    var directories: [[Int: TIFFEntry]] = []
    var next = u32(4) ?? 0
    var seen = Set<Int>()
    while next != 0, !seen.contains(next), let count = u16(next) {
        seen.insert(next)
        var entries: [Int: TIFFEntry] = [:]
        for i in 0..<count {
            let e = next + 2 + i * 12
            guard let tag = u16(e), let type = u16(e + 2), let n = u32(e + 4) else { return directories }
            let size = [3: 2, 4: 4, 5: 8, 16: 8][type] ?? 1
            let at = size * n <= 4 ? e + 8 : (u32(e + 8) ?? -1)
            let values: [Int] = (0..<n).compactMap { k in
                switch type {
                case 3: return u16(at + k * 2)
                case 4: return u32(at + k * 4)
                default: return at + k < b.count && at + k >= 0 ? Int(b[at + k]) : nil
                }
            }
            entries[tag] = TIFFEntry(type: type, count: n, values: values)
        }
        directories.append(entries)
        next = u32(next + 2 + count * 12) ?? 0
    }
    return directories
}

@Suite("TIFF encoding and decoding: the written directory, pages, profiles, limits and damage")
struct TIFFEncodingTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// Frames of `width` x `height` that differ: the coordinates pattern with a per-frame blue.
    static func frames(_ count: Int, width: Int = 30, height: Int = 20) throws -> [ImageFrame] {
        try (0..<count).map { i in
            var buffer = try Fixtures.coordinates(width: width, height: height)
            buffer.withUnsafeMutableBytes { p in
                for o in stride(from: 2, to: p.count, by: 4) { p[o] = UInt8(i * 70) }
            }
            return ImageFrame(buffer: buffer)
        }
    }

    @Test("the encoder's directory: 8-bit RGB, Deflate, top-left, contiguous, strips of 64 KB; alpha adds unassociated ExtraSamples")
    func directory() throws {
        let opaque = try Fixtures.coordinates(width: 300, height: 200)
        let rgb = try #require(tiffDirectories(try coders.encode(Image(buffer: opaque), as: .tiff)).first)
        #expect(rgb[256]?.values == [300] && rgb[257]?.values == [200])
        #expect(rgb[258]?.values == [8, 8, 8] && rgb[277]?.values == [3])
        #expect(rgb[259]?.values == [8], "Adobe Deflate")
        #expect(rgb[262]?.values == [2] && rgb[274]?.values == [1] && rgb[284]?.values == [1])
        // 65,536 bytes a strip: 72 rows of 900 bytes, so 200 rows take 3 strips.
        #expect(rgb[278]?.values == [72] && rgb[273]?.count == 3 && rgb[279]?.count == 3)
        #expect(rgb[338] == nil && rgb[34675] == nil)

        let alpha = try Fixtures.gradient(width: 300, height: 200, alpha: true)
        let rgba = try #require(tiffDirectories(try coders.encode(Image(buffer: alpha), as: .tiff)).first)
        #expect(rgba[258]?.values == [8, 8, 8, 8] && rgba[277]?.values == [4])
        #expect(rgba[338]?.values == [2], "unassociated alpha")
        #expect(rgba[278]?.values == [54] && rgba[273]?.count == 4)
        #expect(try coders.info(of: try coders.encode(Image(buffer: alpha), as: .tiff)).hasAlpha)
        // An RGBA buffer whose every pixel is opaque is written as RGB.
        let rgbaOpaque = try #require(tiffDirectories(try coders.encode(Image(buffer: opaque, hasAlpha: true), as: .tiff)).first)
        #expect(rgbaOpaque[277]?.values == [3] && rgbaOpaque[338] == nil)
        #expect(throws: ImageCodingError.encoderUnavailable(.png)) { try TIFFCoder().encode(Image(buffer: alpha), as: .png, options: .default) }
    }

    @Test("pages: one directory per frame, each with its own alpha; firstFrameOnly and page read one")
    func pages() throws {
        var frames = try Self.frames(3)
        // One transparent pixel (cleared, as a premultiplied decoder gives it back) on page 1.
        frames[1].buffer.withUnsafeMutableBytes { p in for k in 0..<4 { p[k] = 0 } }
        let data = try coders.encode(try Image(frames: frames), as: .tiff)
        let directories = tiffDirectories(data)
        #expect(directories.map { $0[277]?.values ?? [] } == [[3], [4], [3]])
        #expect(directories.map { $0[338] != nil } == [false, true, false])
        #expect(try coders.info(of: data).frameCount == 3)

        let all = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(all.frames.map(\.buffer) == frames.map(\.buffer))
        let first = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, firstFrameOnly: true))
        #expect(first.frameCount == 1 && first.buffer == frames[0].buffer)
        var options = DecodeOptions(pixelFormat: .rgba8)
        options.page = 2
        #expect(try coders.decode(data, options: options).buffer == frames[2].buffer)
        options.page = -1
        #expect(throws: ImageCodingError.invalidArgument("page -1 is out of range: the image has 3 page(s)")) {
            try coders.decode(data, options: options)
        }
    }

    @Test("orientation is baked into the pixels even when EXIF orientation is asked for; no EXIF is written")
    func orientationBaked() throws {
        let source = try Fixtures.coordinates(width: 30, height: 20)
        for orientation in [ImageOrientation.right, .downMirrored, .leftMirrored] {
            let image = Image(buffer: source, orientation: orientation)
            let data = try coders.encode(image, as: .tiff, options: EncodeOptions(orientation: .writeEXIF))
            let decoded = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8))
            #expect(decoded.orientation == .up && decoded.buffer == source.applyingOrientation(orientation), "\(orientation)")
            let entries = try #require(tiffDirectories(data).first)
            #expect(entries[274]?.values == [1] && entries[34665] == nil)
        }
    }

    @Test("the ICC profile is tag 34675, byte for byte, when metadata is kept, and read back unconverted on request")
    func iccProfile() throws {
        var image = Image(buffer: try Fixtures.gradient(width: 16, height: 12))
        image.metadata = ImageMetadata(iccProfile: ColorProfiles.displayP3)
        let data = try coders.encode(image, as: .tiff)
        let entry = try #require(tiffDirectories(data).first?[34675])
        #expect(entry.type == 7 && entry.values == [UInt8](ColorProfiles.displayP3).map { Int($0) })
        #expect(try coders.info(of: data).hasICCProfile)
        let raw = try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
        #expect(raw.metadata.iccProfile == ColorProfiles.displayP3 && raw.buffer == image.buffer)
        #expect(try coders.decode(data).metadata.iccProfile == nil)
        let stripped = try coders.encode(image, as: .tiff, options: EncodeOptions(keepMetadata: false))
        #expect(tiffDirectories(stripped).first?[34675] == nil)
        #expect(try !coders.info(of: stripped).hasICCProfile)
    }

    @Test("a header claiming 100000x100000 pixels is read, and refused by the limits before anything is allocated")
    func bomb() throws {
        // Gray, Deflate, one strip of 16 bytes straight after the directory (which ends at 122).
        var data = HeaderProbeTests.tiff(entries: [
            (256, 4, 100_000), (257, 4, 100_000), (258, 3, 8), (259, 3, 8), (262, 3, 1), (273, 4, 122), (277, 3, 1),
            (278, 4, 100_000), (279, 4, 16)
        ])
        #expect(data.count == 122)
        data.append(Data([0x78, 0x9C] + [UInt8](repeating: 0, count: 14)))
        let info = try coders.info(of: data)
        #expect(info.format == .tiff && info.width == 100_000 && info.height == 100_000)
        let refusal = ImageCodingError.exceedsLimit(.maxPixels, found: 10_000_000_000, limit: 100_000_000)
        #expect(throws: refusal) { try coders.decode(data) }
        var page = DecodeOptions()
        page.page = 0
        #expect(throws: refusal) { try coders.decode(data, options: page) }
        #expect(throws: refusal) { try TIFFCoder().decode(data, options: DecodeOptions(firstFrameOnly: true)) }
    }

    @Test("limits on small files: pixels, bytes, the page count, and all pages' pixels together (a single page passes)")
    func limits() throws {
        let data = try coders.encode(try Image(frames: try Self.frames(3)), as: .tiff)
        func decode(_ limits: DecodingLimits, page: Int? = nil, first: Bool = false) throws -> Image {
            var options = DecodeOptions(firstFrameOnly: first, limits: limits)
            options.page = page
            return try coders.decode(data, options: options)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 600, limit: 599)) { try decode(DecodingLimits(maxPixels: 599)) }
        #expect(throws: ImageCodingError.exceedsLimit(.maxFrames, found: 3, limit: 2)) { try decode(DecodingLimits(maxFrames: 2)) }
        #expect(throws: ImageCodingError.exceedsLimit(.maxBytes, found: data.count, limit: 100)) { try decode(DecodingLimits(maxBytes: 100)) }
        let total = DecodingLimits(maxTotalFramePixels: 1500)
        #expect(throws: ImageCodingError.exceedsLimit(.maxTotalFramePixels, found: 1800, limit: 1500)) { try decode(total) }
        #expect(try decode(total, page: 2).frameCount == 1)
        #expect(try decode(total, first: true).frameCount == 1)
    }

    @Test("damage: every cut ends in a decode or a typed error; any cut before the first directory is refused")
    func cuts() throws {
        let single = try coders.encode(Image(buffer: try Fixtures.noisy(width: 90, height: 60, alpha: true)), as: .tiff)
        let pages = try coders.encode(try Image(frames: try Self.frames(3)), as: .tiff)
        for data in [single, pages] {
            let ifd = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
            #expect(data[0] == 0x49 && ifd > 8 && ifd < data.count)
            var refused = 0
            for n in stride(from: 0, to: data.count, by: max(1, data.count / 60)) {
                let failure = codingFailure { try coders.decode(data.prefix(n)) }
                #expect(!failure.hasPrefix("untyped"), "cut at \(n): \(failure)")
                if n <= ifd {
                    #expect(failure != "no error", "cut at \(n), before the directory at \(ifd)")
                    refused += 1
                }
            }
            #expect(refused > 10)
        }
    }
}
