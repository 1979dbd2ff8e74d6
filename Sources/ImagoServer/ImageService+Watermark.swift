// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCoders
import ImagoCore
import ImagoDiskIO
import ImagoLoading
import ImagoServiceURL
import Synchronization

/// The watermarks a service has decoded: the one given at start, and the last one fetched from
/// `IMAGO_WATERMARK_URL` (by the digest of its bytes, so a watermark changed at its origin is
/// decoded again once the source cache revalidates it).
final class WatermarkStore: Sendable {
    let configured: ServiceWatermark?
    private let fetched = Mutex<ServiceWatermark?>(nil)

    /// Decodes `IMAGO_WATERMARK_DATA`/`_PATH`, if given.
    ///
    /// - Throws: ``ConfigurationError`` when it is not an image this service decodes.
    init(configuration: ServerConfiguration, limits: DecodingLimits, coders: ImageCoderRegistry) throws(ConfigurationError) {
        guard let data = configuration.watermarkImageData else {
            configured = nil
            return
        }
        do {
            configured = try ServiceWatermark(
                data: data, digest: String(Checksum.fast64(data), radix: 36), opacity: configuration.watermarkOpacity, limits: limits,
                coders: coders)
        } catch {
            throw ConfigurationError(variable: "IMAGO_WATERMARK_PATH", reason: "the watermark cannot be decoded: \(error)")
        }
    }

    /// The fetched watermark if it is the one with `digest`.
    func fetched(digest: String) -> ServiceWatermark? {
        fetched.withLock { $0?.digest == digest ? $0 : nil }
    }

    func keep(_ watermark: ServiceWatermark) { fetched.withLock { $0 = watermark } }

}

extension ImageService {
    /// The watermark `options` ask for: `nil` when they ask for none or the service has none.
    /// A URL watermark is loaded as a source is (the policy, the cache and its freshness), and
    /// decoded once for each version of its bytes.
    ///
    /// - Throws: ``ServiceError`` 503 `watermark_unavailable` when the watermark cannot be
    ///   fetched or decoded: a result is never sent without the watermark it asks for.
    func watermark(for options: ProcessingOptions) async throws -> ServiceWatermark? {
        guard let asked = options.watermark, asked.opacity > 0 else { return nil }
        if let configured = watermarks.configured { return configured }
        guard let url = configuration.watermarkImageURL else { return nil }
        do {
            let source = try await loadSource(url, options: ProcessingOptions())
            let digest = String(source.digest, radix: 36)
            if let known = watermarks.fetched(digest: digest) { return known }
            let input = source.loaded.input
            let limits = manager.configuration.decodingLimits
            let opacity = configuration.watermarkOpacity
            let decoded = try await workers.run { [coders] in
                try ServiceWatermark(data: try input.contents(), digest: digest, opacity: opacity, limits: limits, coders: coders)
            }
            watermarks.keep(decoded)
            return decoded
        } catch {
            let reason = (error as? ServiceError)?.message ?? "\(error)"
            throw ServiceError(status: 503, code: "watermark_unavailable", message: "the watermark cannot be loaded: \(reason)", retryAfter: 5)
        }
    }
}
