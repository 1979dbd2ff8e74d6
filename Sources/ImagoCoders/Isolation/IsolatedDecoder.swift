// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoSandbox
import ImagoCore

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The decoder an isolating registry asks first for its isolated formats: every header read and
/// decode goes to a worker of its ``DecoderPool``. It reads pages itself (the worker's
/// registry picks the page), and has no progressive mode.
struct IsolatedDecoder: ImageDecoding, PageDecoding {
    let formats: Set<ImageFormat>
    let pool: DecoderPool

    func canDecode(_ format: ImageFormat) -> Bool { formats.contains(format) }

    func info(of data: Data) throws -> ImageInfo {
        let format = try self.format(of: data)
        let (reply, fd) = try pool.run(IsolationWire.Request(operation: .info, format: format), source: data)
        defer { if fd >= 0 { close(fd) } }
        if let error = reply.error { throw error.error(format: format) }
        return try IsolatedImageReader(fd: fd, format: format, limits: .default).header(ImageInfo.self, reply)
    }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let format = try self.format(of: data)
        try options.limits.check(inputBytes: data.count)
        let request = IsolationWire.Request(operation: .decode, format: format, options: IsolationWire.Options(options))
        let (reply, fd) = try pool.run(request, source: data)
        defer { if fd >= 0 { close(fd) } }
        if let error = reply.error { throw error.error(format: format) }
        return try IsolatedImageReader(fd: fd, format: format, limits: options.limits).image(reply)
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
        guard !formats.isEmpty else { return registry }
        var isolation = isolation
        isolation.formats = formats
        registry.add(IsolatedDecoder(formats: formats, pool: DecoderPool(isolation)))
        return registry
    }

    /// Starts this registry's worker processes now (``isolating(_:)``), rather than at its first
    /// decode of an isolated format; does nothing for a registry that isolates nothing.
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when a worker cannot be started.
    public func startIsolatedDecoders() throws {
        try decoders.lazy.compactMap { $0 as? IsolatedDecoder }.first?.pool.prestart()
    }

    /// The counts of this registry's worker processes (``isolating(_:)``); `nil` when it
    /// decodes nothing out of process.
    public var isolationStatistics: DecoderIsolation.Statistics? {
        decoders.lazy.compactMap { $0 as? IsolatedDecoder }.first?.pool.statistics
    }
}
