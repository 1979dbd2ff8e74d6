// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CJXL
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JPEG XL's header and frame headers, read without decoding pixels: what ``JXLCoder``'s
/// `info(of:)` reports and what a decode checks against the limits before it allocates.
struct JXLFrameScan: Sendable {
    private(set) var info: ImageInfo
    /// Each displayed frame's duration in seconds, as stored.
    private(set) var durations: [Double] = []
    private(set) var isAnimated = false
    private(set) var isGray = false
    private(set) var hasAlpha = false

    /// - Parameters:
    ///   - limits: Checked against the size as soon as the header is read, and against the
    ///     frame count and total frame pixels as frames are counted.
    ///   - maxFrames: Frames counted at most; past it, `.exceedsLimit(.maxFrames)`.
    ///   - readsAllFrames: Whether to count every frame (otherwise only the first is read).
    init(input: UnsafeRawBufferPointer, limits: DecodingLimits, maxFrames: Int, readsAllFrames: Bool) throws {
        let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue
        let session = try JXLSession(input: input, events: events)
        info = ImageInfo(format: .jxl, width: 0, height: 0)
        var hasICC = false
        scanning: while true {
            switch try session.next(during: "reading the header") {
            case JXL_DEC_BASIC_INFO:
                let size = session.storedSize
                try limits.check(width: size.width, height: size.height, format: .jxl)
                isAnimated = session.isAnimated
                isGray = session.isGray
                hasAlpha = session.hasAlpha
            case JXL_DEC_COLOR_ENCODING:
                hasICC = session.originalEncoding() == nil
            case JXL_DEC_FRAME:
                durations.append(session.frameDuration())
                if !readsAllFrames || !isAnimated { break scanning }
                if durations.count > maxFrames {
                    throw ImageCodingError.exceedsLimit(.maxFrames, found: durations.count, limit: maxFrames)
                }
                try limits.check(frameCount: durations.count, framePixels: session.storedSize.pixelCount ?? Int.max)
            case JXL_DEC_SUCCESS:
                break scanning
            default:
                continue
            }
        }
        guard session.hasBasicInfo else { throw ImageCodingError.truncated(.jxl, "the file ends inside the header") }
        if durations.isEmpty { durations = [0] }
        let basic = session.basicInfo
        let frames = durations.count
        info = ImageInfo(
            format: .jxl, width: Int(basic.xsize), height: Int(basic.ysize), orientation: session.orientation,
            frameCount: frames, loopCount: isAnimated && frames > 1 ? session.loopCount : 1,
            // As the file gives them, 0 included (libjxl merges a 0-tick frame into the next, so
            // only a last frame can be 0), as djxl reports them; players clamp when they play.
            durations: isAnimated && frames > 1 ? durations : [0],
            hasAlpha: hasAlpha, bitDepth: Int(basic.bits_per_sample), hasICCProfile: hasICC,
            progressive: false, isGrayscale: isGray)
    }
}
