// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("Image, limits, errors and EXIF")
struct ImageModelTests {
    @Test("limits reject oversized headers with the found value and the limit")
    func limits() throws {
        let limits = DecodingLimits.default
        #expect(limits.maxPixels == 100_000_000 && limits.maxFrames == 10_000 && limits.maxBytes == 256 << 20)
        try limits.check(width: 10_000, height: 10_000, format: .png)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 524_288 * 2048, limit: 100_000_000)) {
            try limits.check(width: 524_288, height: 2048, format: .png)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: Int.max, limit: 100_000_000)) {
            try limits.check(width: Int.max, height: 3, format: .png)
        }
        #expect(throws: ImageCodingError.self) { try limits.check(width: 0, height: 3, format: .png) }
        #expect(throws: ImageCodingError.exceedsLimit(.maxBytes, found: (256 << 20) + 1, limit: 256 << 20)) {
            try limits.check(inputBytes: (256 << 20) + 1)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxFrames, found: 10_001, limit: 10_000)) {
            try limits.check(frameCount: 10_001, framePixels: 1)
        }
        #expect(throws: ImageCodingError.self) { try limits.check(frameCount: 10_000, framePixels: 1_000_000) }
        try DecodingLimits.unlimited.check(width: 1 << 20, height: 1 << 20, format: .png)
    }

    @Test("error messages name the cause and what to do")
    func messages() {
        #expect(ImageCodingError.exceedsLimit(.maxPixels, found: 5, limit: 4).description.contains("maxPixels"))
        #expect(ImageCodingError.truncated(.png, "x").description.contains("truncated png"))
        #expect(ImageCodingError.unsupportedFormat(nil).description.contains("signature"))
        #expect(ImageCodingError.encoderUnavailable(.heic).description.contains("heic"))
    }

    @Test("an image needs frames of one size")
    func frames() throws {
        let a = try Fixtures.gradient(width: 4, height: 3)
        let b = try Fixtures.gradient(width: 3, height: 4)
        #expect(throws: ImageCodingError.self) { try Image(frames: []) }
        #expect(throws: ImageCodingError.self) { try Image(frames: [ImageFrame(buffer: a), ImageFrame(buffer: b)]) }
        let anim = try Image(frames: [ImageFrame(buffer: a, duration: 0.1), ImageFrame(buffer: a, duration: 0.2)])
        #expect(anim.isAnimated && anim.loopCount == 0 && anim.byteCount == 96)
        let still = Image(buffer: a, orientation: .right)
        #expect(still.orientedSize == PixelSize(width: 3, height: 4))
        #expect(!still.isDecoded && still.converted(to: .argb32Premultiplied).isDecoded)
    }

    static func exif(orientation: UInt16, bigEndian: Bool, prefix: Bool) -> Data {
        var d = Data(prefix ? [0x45, 0x78, 0x69, 0x66, 0, 0] : [])
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? [0, 0, 0, UInt8(v)] : [UInt8(v), 0, 0, 0] }
        d.append(contentsOf: bigEndian ? [0x4D, 0x4D, 0, 0x2A] : [0x49, 0x49, 0x2A, 0])
        d.append(contentsOf: u32(8))
        d.append(contentsOf: u16(2))
        d.append(contentsOf: u16(0x010F) + u16(2) + u32(1) + [0x41, 0, 0, 0])  // Make = "A"
        d.append(contentsOf: u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0])
        d.append(contentsOf: [0, 0, 0, 0])
        return d
    }

    @Test("EXIF orientation is read and rewritten in both byte orders", arguments: [true, false])
    func exifOrientation(_ bigEndian: Bool) {
        for value in 1...8 {
            let block = Self.exif(orientation: UInt16(value), bigEndian: bigEndian, prefix: value % 2 == 0)
            #expect(EXIF.orientation(in: block)?.rawValue == value)
            let patched = EXIF.settingOrientation(.up, in: block)
            #expect(EXIF.orientation(in: patched) == .up)
            #expect(patched.count == block.count)
        }
        #expect(EXIF.orientation(in: Self.exif(orientation: 0, bigEndian: bigEndian, prefix: false)) == nil)
        #expect(EXIF.orientation(in: Self.exif(orientation: 9, bigEndian: bigEndian, prefix: false)) == nil)
    }

    @Test("malformed EXIF never crashes")
    func exifMalformed() {
        let good = Self.exif(orientation: 6, bigEndian: false, prefix: false)
        for n in 0..<good.count { _ = EXIF.orientation(in: good.prefix(n)) }
        var hostile = good
        hostile[4] = 0xFF
        hostile[5] = 0xFF
        hostile[6] = 0xFF
        hostile[7] = 0x7F  // IFD offset far past the end
        #expect(EXIF.orientation(in: hostile) == nil)
        var manyEntries = good
        manyEntries[8] = 0xFF
        manyEntries[9] = 0xFF
        _ = EXIF.orientation(in: manyEntries)
    }

    @Test("applying orientation to an image resets it and patches EXIF")
    func imageOrientation() throws {
        var image = Image(buffer: try Fixtures.coordinates(width: 5, height: 2), orientation: .right)
        image.metadata.exif = Self.exif(orientation: 6, bigEndian: true, prefix: false)
        let upright = image.applyingOrientation()
        #expect(upright.orientation == .up && upright.pixelSize == PixelSize(width: 2, height: 5))
        #expect(EXIF.orientation(in: upright.metadata.exif ?? Data()) == .up)
    }
}

@Suite("Frame timing: uniform sequences and back")
struct FrameTimingTests {
    @Test("the GCD of the durations, expansion to equal frames, and collapsing back")
    func roundTrip() throws {
        let a = try PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [1, 2, 3, 255, 4, 5, 6, 255])
        let b = try PixelBuffer(width: 2, height: 1, format: .rgba8, bytes: [9, 9, 9, 255, 0, 0, 0, 255])
        let frames = [ImageFrame(buffer: a, duration: 0.1), ImageFrame(buffer: b, duration: 0.25), ImageFrame(buffer: a, duration: 0.05)]
        #expect(FrameTiming.commonDuration(frames.map(\.duration)) == 0.05)
        let (uniform, d) = FrameTiming.uniform(frames)
        #expect(d == 0.05 && uniform.count == 2 + 5 + 1 && uniform.allSatisfy { $0.duration == 0.05 })
        let back = FrameTiming.collapsingRepeats(uniform)
        #expect(back.count == 3 && back.map(\.buffer) == [a, b, a])
        #expect(zip(back.map(\.duration), [0.1, 0.25, 0.05]).allSatisfy { abs($0 - $1) < 1e-9 })
        // A hostile spread (1 ms and 1 hour) is capped instead of making millions of frames.
        let capped = FrameTiming.uniform([ImageFrame(buffer: a, duration: 0.001), ImageFrame(buffer: b, duration: 3600)], limit: 1000)
        #expect(capped.frames.count <= 1000)
        #expect(FrameTiming.uniform([]).frames.isEmpty)
    }
}
