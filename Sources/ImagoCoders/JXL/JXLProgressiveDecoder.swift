// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CJXL
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Incremental JPEG XL decoding: libjxl is fed the bytes as they arrive, and
/// ``currentImage()`` flushes what it has of the first frame (from the DC pass on, the whole
/// image at a coarse level, refined as passes and groups arrive). Once every byte is in, the
/// image is a one-shot ``JXLCoder`` decode of them, animation included.
final class JXLProgressiveDecoder: ProgressiveImageDecoding {
    private let options: DecodeOptions
    private var session: JXLSession?
    private var consumed = 0
    private var storage: ZeroedStorage?
    private var color: JXLColorPlan
    private var frameStarted = false
    private var header: JxlBasicInfo?
    private var finalImage: Image?
    private(set) var info: ImageInfo?
    private(set) var isComplete = false

    init(options: DecodeOptions) {
        self.options = options
        color = JXLColorPlan(manages: options.colorManagement, gray: false, alpha: true, threads: CodecThreads.limit(options.maxThreads))
    }

    func update(_ data: Data, isFinal: Bool) throws {
        try options.limits.check(inputBytes: data.count)
        if isComplete { return }
        if isFinal {
            // Everything is here: decode it whole (every frame, exact colour), as a one-shot decode would.
            finalImage = try JXLCoder().decode(data, options: options)
            info = try JXLCoder().info(of: data)
            isComplete = true
            session = nil
            storage = nil
            return
        }
        guard data.count > consumed, !frameStarted || storage != nil else { return }
        try data.withUnsafeBytes { raw in
            let rest = UnsafeRawBufferPointer(rebasing: raw[consumed...])
            let session: JXLSession
            if let current = self.session {
                session = current
                try session.feed(rest, isFinal: false)
            } else {
                let events =
                    JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue
                    | JXL_DEC_FULL_IMAGE.rawValue
                session = try JXLSession(input: rest, events: events, isComplete: false, mapsHDR: options.colorManagement)
                self.session = session
            }
            defer { consumed = data.count - session.releaseInput() }
            try run(session)
        }
    }

    /// Processes what has arrived, to the next pause for input.
    private func run(_ session: JXLSession) throws {
        while true {
            switch try session.next(during: "reading the partial image") {
            case JXL_DEC_BASIC_INFO:
                let size = session.storedSize
                try options.limits.check(width: size.width, height: size.height, format: .jxl)
                color = JXLColorPlan(
                    manages: options.colorManagement, gray: session.isGray, alpha: true,
                    threads: CodecThreads.limit(options.maxThreads))
                info = ImageInfo(
                    format: .jxl, width: size.width, height: size.height, orientation: session.orientation,
                    hasAlpha: session.hasAlpha, bitDepth: Int(session.basicInfo.bits_per_sample),
                    progressive: true, isGrayscale: session.isGray)
                header = session.basicInfo
            case JXL_DEC_COLOR_ENCODING:
                color.decide(session)
            case JXL_DEC_FRAME:
                guard !frameStarted else { return }
                frameStarted = true
                let size = session.storedSize
                let (_, total) = try PixelBuffer.layout(width: size.width, height: size.height, format: .rgba8)
                storage = ZeroedStorage(byteCount: total)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                guard let storage else { throw ImageCodingError.corrupt(.jxl, "pixels before a frame header") }
                var format = JXLSession.pixelFormat(channels: 4)
                guard
                    JxlDecoderSetImageOutBuffer(session.decoder, &format, storage.bytes.baseAddress, storage.bytes.count)
                        == JXL_DEC_SUCCESS
                else {
                    throw ImageCodingError.corrupt(.jxl, "the frame does not fit the image's size")
                }
            case JXL_DEC_FULL_IMAGE, JXL_DEC_SUCCESS:
                // The first frame is whole; what follows waits for the final update.
                return
            case JXL_DEC_NEED_MORE_INPUT:
                return
            default:
                continue
            }
        }
    }

    func currentImage() throws -> Image? {
        if let finalImage { return finalImage }
        guard let session, let storage, frameStarted, let info else { return nil }
        guard JxlDecoderFlushImage(session.decoder) == JXL_DEC_SUCCESS else { return nil }
        var buffer = try storage.snapshot(width: info.width, height: info.height, format: .rgba8, bytesPerRow: info.width * 4)
        color.convertPartial(&buffer)
        return Image(
            buffer: buffer.converted(to: options.pixelFormat), orientation: info.orientation, scale: options.scale,
            format: .jxl, metadata: ImageMetadata(iccProfile: color.keptProfile), hasAlpha: info.hasAlpha,
            isIncremental: true)
    }
}
