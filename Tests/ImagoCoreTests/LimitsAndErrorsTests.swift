// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@Suite("DecodingLimits checks at their exact boundaries, and the errors' messages")
struct LimitsAndErrorsTests {
    static let small = DecodingLimits(maxPixels: 100, maxFrames: 4, maxTotalFramePixels: 250, maxBytes: 1000, maxSourcePixels: 400)

    @Test("a frame size passes at exactly maxPixels and fails one pixel over; an empty size is corrupt")
    func frameSize() throws {
        let limits = Self.small
        try limits.check(width: 10, height: 10, format: .gif)
        try limits.check(width: 100, height: 1, format: .gif)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 101, limit: 100)) {
            try limits.check(width: 101, height: 1, format: .gif)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: Int.max, limit: 100)) {
            try limits.check(width: 1 << 40, height: 1 << 40, format: .gif)
        }
        #expect(throws: ImageCodingError.corrupt(.webp, "image size 0x3 is empty")) { try limits.check(width: 0, height: 3, format: .webp) }
        #expect(throws: ImageCodingError.corrupt(.bmp, "image size 5x-2 is empty")) { try limits.check(width: 5, height: -2, format: .bmp) }
        try DecodingLimits.unlimited.check(width: Int.max, height: Int.max, format: .png)
    }

    @Test("a reduced decode checks the declared size against maxSourcePixels and the decoded size against maxPixels")
    func reducedDecode() throws {
        let limits = Self.small
        // 20×20 declared (400, the source ceiling) decoded at 10×10 (100, the frame limit): accepted.
        try limits.check(width: 20, height: 20, decoded: PixelSize(width: 10, height: 10), format: .jpeg)
        #expect(throws: ImageCodingError.exceedsLimit(.maxSourcePixels, found: 401, limit: 400)) {
            try limits.check(width: 401, height: 1, decoded: PixelSize(width: 10, height: 1), format: .jpeg)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 110, limit: 100)) {
            try limits.check(width: 20, height: 20, decoded: PixelSize(width: 11, height: 10), format: .jpeg)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxSourcePixels, found: Int.max, limit: 400)) {
            try limits.check(width: Int.max, height: 2, decoded: PixelSize(width: 1, height: 1), format: .jpeg)
        }
        #expect(throws: ImageCodingError.corrupt(.jpeg, "image size 0x20 is empty")) {
            try limits.check(width: 0, height: 20, decoded: PixelSize(width: 1, height: 1), format: .jpeg)
        }
        #expect(throws: ImageCodingError.corrupt(.jpeg, "image size 0x5 is empty")) {
            try limits.check(width: 20, height: 20, decoded: PixelSize(width: 0, height: 5), format: .jpeg)
        }
        // The decoded size equal to the declared one is the plain check: maxPixels, not the source ceiling.
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 400, limit: 100)) {
            try limits.check(width: 20, height: 20, decoded: PixelSize(width: 20, height: 20), format: .jpeg)
        }
        // A source ceiling under maxPixels counts as maxPixels.
        let low = DecodingLimits(maxPixels: 100, maxSourcePixels: 10)
        try low.check(width: 10, height: 10, decoded: PixelSize(width: 5, height: 5), format: .webp)
        #expect(throws: ImageCodingError.exceedsLimit(.maxSourcePixels, found: 101, limit: 100)) {
            try low.check(width: 101, height: 1, decoded: PixelSize(width: 5, height: 1), format: .webp)
        }
    }

    @Test("input bytes, frame counts and total frame pixels pass at their limits and fail one over, overflow included")
    func countsAndBytes() throws {
        let limits = Self.small
        try limits.check(inputBytes: 1000)
        #expect(throws: ImageCodingError.exceedsLimit(.maxBytes, found: 1001, limit: 1000)) { try limits.check(inputBytes: 1001) }
        try limits.check(frameCount: 4, framePixels: 62)
        try limits.check(frameCount: 2, framePixels: 125)
        #expect(throws: ImageCodingError.exceedsLimit(.maxFrames, found: 5, limit: 4)) { try limits.check(frameCount: 5, framePixels: 1) }
        #expect(throws: ImageCodingError.exceedsLimit(.maxTotalFramePixels, found: 252, limit: 250)) {
            try limits.check(frameCount: 4, framePixels: 63)
        }
        let manyFrames = DecodingLimits(maxFrames: .max, maxTotalFramePixels: 1 << 40)
        #expect(throws: ImageCodingError.exceedsLimit(.maxTotalFramePixels, found: Int.max, limit: 1 << 40)) {
            try manyFrames.check(frameCount: Int.max / 2, framePixels: 3)
        }
        try DecodingLimits.unlimited.check(inputBytes: Int.max)
        try DecodingLimits.unlimited.check(frameCount: Int.max, framePixels: Int.max)
    }

    @Test("the defaults are the documented ones; unlimited lifts every bound")
    func defaults() {
        let d = DecodingLimits.default
        #expect(d == DecodingLimits())
        #expect(d.maxSourcePixels == 1_000_000_000 && d.maxTotalFramePixels == 1_000_000_000 && d.maxPages == 10_000)
        #expect(d.maxElements == 1_000_000 && d.maxNestingDepth == 1_000 && d.maxRenderSeconds == 20)
        let u = DecodingLimits.unlimited
        #expect(u.maxPixels == .max && u.maxSourcePixels == .max && u.maxFrames == .max && u.maxTotalFramePixels == .max)
        #expect(u.maxBytes == .max && u.maxPages == .max && u.maxElements == .max && u.maxNestingDepth == .max)
        #expect(u.maxRenderSeconds == .infinity)
    }

    @Test("every error reads as one line naming the cause, the same through LocalizedError")
    func messages() {
        let cases: [(ImageCodingError, String)] = [
            (.emptyData, "no image data: the input is empty"),
            (.unsupportedFormat(.heic), "unsupported format: heic images cannot be decoded by the registered coders"),
            (.unsupportedFeature(.jpeg, "12-bit samples"), "unsupported jpeg feature: 12-bit samples"),
            (.truncated(.gif, "no trailer"), "truncated gif data: no trailer; the file is incomplete, fetch or copy it again"),
            (.corrupt(.png, "bad CRC"), "corrupt png data: bad CRC"),
            (.exceedsLimit(.maxFrames, found: 5, limit: 4), "frame count 5 exceeds the limit of 4; raise DecodingLimits.maxFrames to accept it"),
            (.exceedsLimit(.bytes, found: 9, limit: 8), "pixel buffer size in bytes 9 exceeds the limit of 8; raise DecodingLimits.bytes to accept it"),
            (
                .exceedsLimit(.maxRenderTime, found: 30_000, limit: 20_000),
                "render time in milliseconds 30000 exceeds the limit of 20000; raise DecodingLimits.maxRenderTime to accept it"
            ),
            (.encoderUnavailable(.avif), "no encoder for avif is available on this system"),
            (.encodingFailed(.webp, "out of memory"), "encoding webp failed: out of memory"),
            (.invalidArgument("quality 101"), "invalid argument: quality 101")
        ]
        for (error, message) in cases {
            #expect(error.description == message)
            #expect(error.errorDescription == message)
            #expect(error.localizedDescription == message)
        }
    }
}
