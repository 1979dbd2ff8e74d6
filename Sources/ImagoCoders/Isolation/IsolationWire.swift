// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The messages between a host and its decoder workers, one JSON object per datagram of a
/// `SOCK_SEQPACKET` socket pair, with a memory file attached where bytes travel.
///
/// - host → worker, once: ``Setup``; worker → host, once its sandbox is on: ``Ready``.
/// - host → worker: ``Request`` with the source in the worker's source file (a memory file the
///   host writes each source into, from offset 0, ``Request/sourceLength`` bytes); worker → host:
///   ``Reply``, the header and pixels in a memory file of its own (blobs from offset 0, then
///   the JSON header at ``Reply/headerOffset``): the same file for each reply, which the host
///   reads before it sends the next request. Where the host may read the worker's memory
///   (`process_vm_readv`, checked once with ``Setup/probe``), the pixels stay in the worker and
///   the reply names their addresses: one copy in all.
/// - A worker keeps what a reply needed until the next request, or a second without one
///   (`DecoderWorker.idleRelease`): an idle worker holds no decode.
///
/// Nothing the worker sends is trusted: ``IsolatedImageReader`` checks every size and offset
/// against the limits and the file before it allocates.
enum IsolationWire {
    /// Whether a kept memory file (a worker's source file, its reply file) of `capacity` bytes
    /// gives memory back when its latest use needed only `needed`: when it is more than twice
    /// that and more than 16 MiB beyond it, so that a large image's memory is not held for a
    /// worker's life while ordinary sizes keep their pages.
    static func keptFileShrinks(capacity: Int, needed: Int) -> Bool {
        capacity > 2 * needed && capacity - needed > 16 << 20
    }

    /// The largest message either side sends (the memory files carry everything large).
    static let maxMessage = 1 << 16

    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(type, from: data)
    }

    /// What a worker is told once, before it loads anything.
    struct Setup: Codable {
        var formats: [ImageFormat]
        var video: Bool
        var memoryLimit: Int
        var fileSizeLimit: Int
        var seccomp: Bool
        var landlock: Bool
        var namespaces: Bool
        var readablePaths: [String]
        /// Bytes the worker keeps in its memory and names in ``Ready/probe``: the host reads them
        /// there to learn whether it may read the worker's pixels where they lie.
        var probe: [UInt8]?
        /// The CPU time, every thread's, one request may take, in whole seconds
        /// (``DecoderIsolation/timeout`` and ``DecoderPool/cpuGrace``): the worker moves its
        /// RLIMIT_CPU this far past what it has used before each request. `nil`: no CPU-time limit.
        var cpuSeconds: Int?
    }

    /// A worker's first message: its sandbox is on (`applied`, the C glue's bit mask), and what
    /// it could not set up.
    struct Ready: Codable {
        var applied: Int32
        var report: String
        var pid: Int32
        /// Where the worker keeps ``Setup/probe``'s bytes.
        var probe: UInt64?
    }

    struct Request: Codable {
        /// A header read, a decode, a video frame, an SVG document sanitised
        /// (``SVGSanitizer/sanitize(_:limits:)``; the reply's header is the ``Blob`` of the result),
        /// or an EXIF block's or XMP packet's fields (``EXIFFields``, ``XMPFields``; the reply's
        /// header is ``MetadataFields``).
        enum Operation: String, Codable { case info, decode, videoFrame, sanitizeSVG, exifFields, xmpProperties }
        var operation: Operation
        var format: ImageFormat
        var options: Options?
        var video: VideoRequest?
        /// The source's length: the first bytes of the worker's source file.
        var sourceLength: Int?
        /// The host reads the pixels in the worker's memory (``Frame/address``): the worker
        /// names where they are and keeps them there until its next request (or a second
        /// without one).
        var direct: Bool?
        /// ``Operation/exifFields``: tag names rather than titles.
        var canonicalNames: Bool?
    }

    /// Metadata fields: EXIF's as one group with an empty prefix, XMP's by prefix; a field holds
    /// a text or a list.
    struct MetadataFields: Codable {
        struct Field: Codable {
            var name: String
            var text: String?
            var list: [String]?
        }
        struct Group: Codable {
            var prefix: String
            var fields: [Field]
        }
        var groups: [Group]
    }

    /// A video frame to read: the time, keyframes only or the exact frame.
    struct VideoRequest: Codable {
        var seconds: Double
        var keyframesOnly: Bool
    }

    /// A video frame's reply: the frame, and the stream's facts (``VideoFrames/Info``).
    struct VideoHeader: Codable {
        var image: ImageHeader
        var duration: Double?
        var width: Int
        var height: Int
        var codec: String
        var container: String
        var tags: [String: String]
    }

    /// ``DecodeOptions``, field by field.
    struct Options: Codable {
        var pixelFormat: PixelFormat
        var scale: Double
        var firstFrameOnly: Bool
        var thumbnailPixelSize: PixelSize?
        var preserveAspectRatio: Bool
        var colorManagement: Bool
        var limits: DecodingLimits
        var page: Int?
        var renderDPI: Double?
        var embeddedThumbnail: Bool
        var gainMap: Bool
        var maxThreads: Int?

        init(_ o: DecodeOptions) {
            pixelFormat = o.pixelFormat
            scale = o.scale
            firstFrameOnly = o.firstFrameOnly
            thumbnailPixelSize = o.thumbnailPixelSize
            preserveAspectRatio = o.preserveAspectRatio
            colorManagement = o.colorManagement
            limits = o.limits
            page = o.page
            renderDPI = o.renderDPI
            embeddedThumbnail = o.embeddedThumbnail
            gainMap = o.gainMap
            maxThreads = o.maxThreads
        }

        /// The options the worker decodes with: every frame now (a worker keeps nothing between
        /// requests).
        var decodeOptions: DecodeOptions {
            var o = DecodeOptions(
                pixelFormat: pixelFormat, scale: scale, firstFrameOnly: firstFrameOnly, decodesFramesLazily: false,
                thumbnailPixelSize: thumbnailPixelSize, preserveAspectRatio: preserveAspectRatio,
                colorManagement: colorManagement, limits: limits)
            o.page = page
            o.renderDPI = renderDPI
            o.embeddedThumbnail = embeddedThumbnail
            o.gainMap = gainMap
            o.maxThreads = maxThreads
            return o
        }
    }

    /// A worker's answer: an error, or a header (an ``ImageInfo`` or an ``ImageHeader``) at
    /// `headerOffset` in the attached memory file.
    struct Reply: Codable {
        var error: WireError?
        var headerOffset: Int?
        var headerLength: Int?
    }

    /// A byte range of the reply's memory file.
    struct Blob: Codable {
        var offset: Int
        var length: Int
    }

    struct Frame: Codable {
        var width: Int
        var height: Int
        var bytesPerRow: Int
        var format: PixelFormat
        var duration: Double
        /// The pixels: in the reply file, or, with ``address``, that many bytes at that address
        /// in the worker's memory.
        var bytes: Blob
        var address: UInt64?
    }

    struct ImageHeader: Codable {
        var frames: [Frame]
        var loopCount: Int
        var orientation: ImageOrientation
        var scale: Double
        var format: ImageFormat?
        var hasAlpha: Bool
        var iccProfile: Blob?
        var exif: Blob?
        var gainMap: Frame?
        var gainMapXMP: Blob?
        var gainMapISO: Blob?
    }

    /// ``ImageCodingError``, case by case.
    struct WireError: Codable {
        var kind: String
        var format: ImageFormat?
        var message: String
        var limit: DecodingLimits.Kind?
        var found: Int?
        var limitValue: Int?

        init(_ error: any Error, format: ImageFormat) {
            self.format = format
            message = String(describing: error)
            guard let e = error as? ImageCodingError else {
                kind = "corrupt"
                return
            }
            switch e {
            case .emptyData: kind = "emptyData"
            case .unsupportedFormat(let f):
                kind = "unsupportedFormat"
                self.format = f
            case .unsupportedFeature(_, let m): (kind, message) = ("unsupportedFeature", m)
            case .truncated(_, let m): (kind, message) = ("truncated", m)
            case .corrupt(_, let m): (kind, message) = ("corrupt", m)
            case .exceedsLimit(let k, let found, let limit): (kind, self.limit, self.found, limitValue) = ("exceedsLimit", k, found, limit)
            case .encoderUnavailable, .encodingFailed: kind = "corrupt"
            case .invalidArgument(let m): (kind, message) = ("invalidArgument", m)
            case .decoderFailed(_, let m): (kind, message) = ("decoderFailed", m)
            }
        }

        /// The error the worker threw; anything unrecognised is the format's corrupt data.
        func error(format expected: ImageFormat) -> ImageCodingError {
            let f = format ?? expected
            switch kind {
            case "emptyData": return .emptyData
            case "unsupportedFormat": return .unsupportedFormat(format)
            case "unsupportedFeature": return .unsupportedFeature(f, message)
            case "truncated": return .truncated(f, message)
            case "exceedsLimit":
                guard let limit, let found, let limitValue else { return .corrupt(f, message) }
                return .exceedsLimit(limit, found: found, limit: limitValue)
            case "invalidArgument": return .invalidArgument(message)
            case "decoderFailed": return .decoderFailed(f, message)
            default: return .corrupt(f, message)
            }
        }
    }
}

extension Duration {
    /// The duration in seconds.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
