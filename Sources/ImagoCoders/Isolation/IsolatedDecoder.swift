// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoSandbox
public import ImagoCore

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The decoder an isolating registry asks first for its isolated formats: every header read and
/// decode goes to a worker of its ``DecoderPool``. It reads pages itself (the worker's
/// registry picks the page), and has no progressive mode.
struct IsolatedDecoder: ImageDecoding, PageDecoding {
    let formats: Set<ImageFormat>
    let pool: DecoderPool
    /// Video frames are read in the workers too.
    var video: Bool { pool.isolation.video }

    func canDecode(_ format: ImageFormat) -> Bool { formats.contains(format) }

    func info(of data: Data) throws -> ImageInfo {
        let format = try self.format(of: data)
        return try pool.run(IsolationWire.Request(operation: .info, format: format), source: data) { reply, origin in
            if let error = reply.error { throw error.error(format: format) }
            return try IsolatedImageReader(origin, format: format, limits: .default).header(ImageInfo.self, reply)
        }
    }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let format = try self.format(of: data)
        try options.limits.check(inputBytes: data.count)
        let request = IsolationWire.Request(operation: .decode, format: format, options: IsolationWire.Options(options))
        return try pool.run(request, source: data) { reply, origin in
            if let error = reply.error { throw error.error(format: format) }
            return try IsolatedImageReader(origin, format: format, limits: options.limits).image(reply)
        }
    }

    /// A video frame read by a worker (``VideoFrames/frame(of:at:keyframesOnly:limits:maxPackets:)``).
    func videoFrame(of data: Data, at seconds: Double, keyframesOnly: Bool, limits: DecodingLimits) throws -> (image: Image, info: VideoFrames.Info) {
        guard data.count <= limits.maxBytes else { throw ImageCodingError.exceedsLimit(.maxBytes, found: data.count, limit: limits.maxBytes) }
        var options = DecodeOptions()
        options.limits = limits
        let request = IsolationWire.Request(
            operation: .videoFrame, format: .png, options: IsolationWire.Options(options),
            video: IsolationWire.VideoRequest(seconds: seconds, keyframesOnly: keyframesOnly))
        return try pool.run(request, source: data) { reply, origin in
            if let error = reply.error { throw error.error(format: .png) }
            return try IsolatedImageReader(origin, format: .png, limits: limits).videoFrame(reply)
        }
    }

    /// An SVG document sanitised by a worker (``SVGSanitizer/sanitize(_:limits:)``).
    func sanitizedSVG(_ data: Data, limits: DecodingLimits) throws -> Data {
        var options = DecodeOptions()
        options.limits = limits
        let request = IsolationWire.Request(operation: .sanitizeSVG, format: .svg, options: IsolationWire.Options(options))
        return try pool.run(request, source: data) { reply, origin in
            if let error = reply.error { throw error.error(format: .svg) }
            return try IsolatedImageReader(origin, format: .svg, limits: limits).document(reply)
        }
    }

    /// The fields of an EXIF block (`xmp` false) or an XMP packet, read by a worker. Errors name
    /// TIFF for EXIF (a TIFF structure) and SVG for XMP (XML, libxml2's like SVG's).
    func metadataFields(_ data: Data, xmp: Bool, canonicalNames: Bool) throws -> IsolationWire.MetadataFields {
        let format: ImageFormat = xmp ? .svg : .tiff
        var request = IsolationWire.Request(operation: xmp ? .xmpProperties : .exifFields, format: format)
        request.canonicalNames = canonicalNames
        return try pool.run(request, source: data) { reply, origin in
            if let error = reply.error { throw error.error(format: format) }
            return try IsolatedImageReader(origin, format: format, limits: .default).metadataFields(reply)
        }
    }

    private func format(of data: Data) throws -> ImageFormat {
        guard !data.isEmpty else { throw ImageCodingError.emptyData }
        guard let format = ImageFormat(sniffing: data), formats.contains(format) else { throw ImageCodingError.unsupportedFormat(nil) }
        return format
    }
}

extension ImageCoderRegistry {
    /// A registry with this one's coders, whose decoders of `isolation`'s formats run in worker
    /// processes (``DecoderIsolation``), started at its first decode of one of them or by
    /// ``startIsolatedDecoders()``. The workers run this registry's coders
    /// as `DecoderWorker/runIfRequested(coders:)` was given them in the worker process.
    ///
    /// The formats this registry cannot decode stay out of the workers. The pool lives as long
    /// as the registry returned; its workers end with it.
    public func isolating(_ isolation: DecoderIsolation) -> ImageCoderRegistry {
        let formats = isolation.formats.filter { canDecode($0) }
        let registry = ImageCoderRegistry(decoders: decoders.reversed(), encoders: encoders.reversed())
        guard !formats.isEmpty || isolation.video else { return registry }
        var isolation = isolation
        isolation.formats = formats
        registry.add(IsolatedDecoder(formats: formats, pool: DecoderPool(isolation)))
        return registry
    }

    /// The frame of a video at `seconds` (MP4, MOV, WebM, Matroska; FFmpeg), read by a worker
    /// process when this registry isolates video (``isolating(_:)``, ``DecoderIsolation/video``),
    /// in this process otherwise, as ``VideoFrames/frame(of:at:keyframesOnly:limits:maxPackets:)`` reads it.
    ///
    /// - Throws: as `VideoFrames.frame`; `ImageCodingError.decoderFailed` when the worker stopped
    ///   on the video or it is quarantined.
    public func videoFrame(
        of data: Data, at seconds: Double = 1, keyframesOnly: Bool = false, limits: DecodingLimits = .default
    ) throws -> (image: Image, info: VideoFrames.Info) {
        if let isolated = isolatedDecoder, isolated.video {
            guard seconds.isFinite, seconds >= 0 else { throw ImageCodingError.invalidArgument("a video time must be 0 or more, not \(seconds)") }
            return try isolated.videoFrame(of: data, at: seconds, keyframesOnly: keyframesOnly, limits: limits)
        }
        return try VideoFrames.frame(of: data, at: seconds, keyframesOnly: keyframesOnly, limits: limits)
    }

    /// The decoder that sends this registry's isolated formats to workers (``isolating(_:)``).
    var isolatedDecoder: IsolatedDecoder? {
        decoders.lazy.compactMap { $0 as? IsolatedDecoder }.first
    }

    /// `data`, an SVG document, sanitised as ``SVGSanitizer/sanitize(_:limits:)`` does it (scripts,
    /// event handlers and external references removed): in a worker process when this registry
    /// isolates SVG (``isolating(_:)``), since the sanitiser parses the document with libxml2; in
    /// this process otherwise.
    ///
    /// - Throws: as `SVGSanitizer.sanitize`; `ImageCodingError.decoderFailed` when the worker
    ///   stopped on the document or it is quarantined.
    public func sanitizedSVG(_ data: Data, limits: DecodingLimits = .default) throws -> Data {
        if let isolated = isolatedDecoder, isolated.formats.contains(.svg) {
            return try isolated.sanitizedSVG(data, limits: limits)
        }
        return try SVGSanitizer.sanitize(data, limits: limits)
    }

    /// The fields of an EXIF block as ``EXIFFields/fields(of:canonicalNames:)`` reads them with
    /// libexif: in a worker process when this registry isolates any format (``isolating(_:)``),
    /// in this process otherwise.
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when the worker stopped on the block or it is
    ///   quarantined; nothing in this process.
    public func exifFields(of block: Data, canonicalNames: Bool = false) throws -> [(name: String, value: String)] {
        guard let isolated = isolatedDecoder else {
            return EXIFFields.fields(of: block, canonicalNames: canonicalNames)
        }
        let fields = try isolated.metadataFields(block, xmp: false, canonicalNames: canonicalNames).groups.flatMap(\.fields)
        return fields.map { ($0.name, $0.text ?? "") }
    }

    /// The properties of an XMP packet as ``XMPFields/properties(of:)`` reads them with libxml2:
    /// in a worker process when this registry isolates any format (``isolating(_:)``), in this
    /// process otherwise.
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when the worker stopped on the packet or it is
    ///   quarantined; nothing in this process.
    public func xmpProperties(of packet: Data) throws -> [(prefix: String, properties: [(name: String, value: XMPFields.Value)])] {
        guard let isolated = isolatedDecoder else { return XMPFields.properties(of: packet) }
        return try isolated.metadataFields(packet, xmp: true, canonicalNames: false).groups.map { group in
            (group.prefix, group.fields.map { ($0.name, $0.list.map(XMPFields.Value.list) ?? .text($0.text ?? "")) })
        }
    }

    /// Starts this registry's worker processes now (``isolating(_:)``), rather than at its first
    /// decode of an isolated format; does nothing for a registry that isolates nothing.
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when a worker cannot be started.
    public func startIsolatedDecoders() throws {
        try isolatedDecoder?.pool.prestart()
    }

    /// The counts of this registry's worker processes (``isolating(_:)``); `nil` when it
    /// decodes nothing out of process.
    public var isolationStatistics: DecoderIsolation.Statistics? {
        isolatedDecoder?.pool.statistics
    }
}
