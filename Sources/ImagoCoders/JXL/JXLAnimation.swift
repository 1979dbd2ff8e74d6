// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CJXL
import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An animated JPEG XL's frames, decoded on demand. libjxl composites each frame onto the canvas
/// itself (coalescing), so frame N needs no earlier canvas from Imago: played in order, one
/// decoder runs on from frame to frame; a jump rewinds it and skips to the frame, using the
/// frame positions libjxl has learnt. The file's bytes are copied once and kept while frames
/// may be asked for.
final class JXLAnimation: AnimatedImage {
    let frameCount: Int
    let loopCount: Int
    let canvasSize: PixelSize
    var pixelFormat: PixelFormat { .argb32Premultiplied }
    private let durations: [Double]
    private let header: JXLFrameScan
    private let reader: Mutex<Reader>

    init(data: Data, header: JXLFrameScan, options: DecodeOptions) throws {
        let size = header.info.pixelSize
        try options.limits.check(width: size.width, height: size.height, format: .jxl)
        try options.limits.check(frameCount: header.info.frameCount, framePixels: 0)
        self.header = header
        frameCount = header.info.frameCount
        loopCount = header.info.loopCount
        canvasSize = size
        durations = header.info.durations
        reader = Mutex(try Reader(data: data, manages: options.colorManagement, threads: CodecThreads.limit(options.maxThreads), header: header))
    }

    func duration(at index: Int) -> Double { durations.indices.contains(index) ? durations[index] : 0 }

    func canvas(at index: Int) throws -> PixelBuffer {
        guard (0..<frameCount).contains(index) else {
            throw ImageCodingError.invalidArgument("frame \(index) is out of range: the animation has \(frameCount) frame(s)")
        }
        return try reader.withLock { try $0.frame(at: index) }.converted(to: .argb32Premultiplied)
    }

    /// Every frame, frame 0 alone, or frame 0 and this source, as ``DecodeOptions`` asks.
    func image(options: DecodeOptions) throws -> Image {
        let first = try canvas(at: 0)
        let kept = reader.withLock { ImageMetadata(iccProfile: $0.color.keptProfile, exif: $0.exif) }
        var image: Image
        if options.decodesFramesLazily {
            image = try Image(
                animation: self, firstFrame: first, orientation: header.info.orientation, format: .jxl,
                metadata: kept, hasAlpha: header.hasAlpha)
        } else {
            try options.limits.check(frameCount: frameCount, framePixels: canvasSize.pixelCount ?? Int.max)
            var frames = [ImageFrame(buffer: first, duration: duration(at: 0))]
            for i in 1..<max(1, frameCount) {
                frames.append(ImageFrame(buffer: try canvas(at: i), duration: duration(at: i)))
            }
            image = try Image(
                frames: frames, loopCount: loopCount, orientation: header.info.orientation, format: .jxl,
                metadata: kept, hasAlpha: header.hasAlpha)
        }
        image.scale = options.scale
        return options.pixelFormat == .argb32Premultiplied ? image : image.converted(to: options.pixelFormat)
    }

    /// The decoder and the bytes it reads, which outlive it.
    final class Reader {
        private let bytes: UnsafeMutableRawBufferPointer
        private var session: JXLSession?
        private var nextIndex = 0
        private(set) var color: JXLColorPlan
        private(set) var exif: Data?
        private static let events =
            JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue
            | JXL_DEC_BOX.rawValue

        init(data: Data, manages: Bool, threads: Int, header: JXLFrameScan) throws {
            bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
            _ = data.copyBytes(to: bytes.bindMemory(to: UInt8.self))
            color = JXLColorPlan(manages: manages, gray: header.isGray, alpha: true, threads: threads)
        }

        deinit {
            session = nil  // the decoder goes before the bytes it reads
            bytes.deallocate()
        }

        func frame(at index: Int) throws -> PixelBuffer {
            let session: JXLSession
            if let current = self.session, index == nextIndex {
                session = current
            } else if let current = self.session {
                try current.rewind(events: Self.events)
                current.skipFrames(index)
                session = current
            } else {
                session = try JXLSession(
                    input: UnsafeRawBufferPointer(bytes), events: Self.events | JXL_DEC_BASIC_INFO.rawValue, mapsHDR: color.manages)
                _ = JxlDecoderSetDecompressBoxes(session.decoder, JXL_TRUE)
                session.skipFrames(index)
                self.session = session
            }
            nextIndex = index
            while true {
                switch try session.next(during: "reading frame \(index)") {
                case JXL_DEC_COLOR_ENCODING:
                    color.decide(session)
                case JXL_DEC_BOX:
                    session.beginBox()
                case JXL_DEC_BOX_NEED_MORE_OUTPUT:
                    session.continueBox()
                case JXL_DEC_FRAME:
                    session.finishBox()
                    if exif == nil { exif = session.exif }
                    let size = session.storedSize
                    var buffer = try PixelBuffer(uninitializedWidth: size.width, height: size.height, format: .rgba8) { out in
                        guard try session.decodeFrame(into: out, channels: 4, step: "decoding frame \(index)", hdr: color.hdr) else {
                            throw ImageCodingError.truncated(.jxl, "the file ends inside frame \(index)")
                        }
                    }
                    nextIndex = index + 1
                    color.convert(&buffer)
                    return buffer
                case JXL_DEC_SUCCESS:
                    throw ImageCodingError.corrupt(.jxl, "the file has no frame \(index)")
                default:
                    continue
                }
            }
        }
    }
}
