// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoDiskIO
import ImagoLoading
import ImagoProcessing
import ImagoServiceURL
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The watermarks a service has decoded: the one given at start, and the last one fetched from
/// `IMAGO_WATERMARK_URL` (by the digest of its bytes, so a watermark changed at its origin is
/// decoded again once the source cache revalidates it).
final class WatermarkStore: Sendable {
    let configured: ServiceWatermark?
    private let fetched = Mutex<ServiceWatermark?>(nil)

    /// Decodes `IMAGO_WATERMARK_DATA`/`_PATH`, if given.
    ///
    /// - Throws: ``ConfigurationError`` when it is not an image this service decodes.
    init(drawing: DrawingSettings, limits: DecodingLimits, coders: ImageCoderRegistry) throws(ConfigurationError) {
        guard let data = drawing.watermarkImageData else {
            configured = nil
            return
        }
        do {
            configured = try ServiceWatermark(
                data: data, digest: String(Checksum.fast64(data), radix: 36), opacity: drawing.watermarkOpacity, limits: limits,
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

    /// Watermarks drawn from `watermark_text` or fetched from `watermark_url`, by text or digest;
    /// at most ``maxPerURL``, the oldest dropped first (imgproxy Pro's watermark cache).
    private let perURL = Mutex<(order: [String], byKey: [String: ServiceWatermark])>(([], [:]))
    static let maxPerURL = 256

    func perURL(_ key: String) -> ServiceWatermark? { perURL.withLock { $0.byKey[key] } }

    func keepPerURL(_ watermark: ServiceWatermark, as key: String) {
        perURL.withLock { p in
            if p.byKey.updateValue(watermark, forKey: key) == nil { p.order.append(key) }
            while p.order.count > Self.maxPerURL { p.byKey[p.order.removeFirst()] = nil }
        }
    }

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
        if let text = options.watermarkText { return try await textWatermark(text) }
        if let url = options.watermarkURL { return try await urlWatermark(url) }
        if let configured = watermarks.configured { return configured }
        guard let url = configuration.drawing.watermarkImageURL else { return nil }
        do {
            let source = try await loadSource(url, options: ProcessingOptions())
            let digest = String(source.digest, radix: 36)
            if let known = watermarks.fetched(digest: digest) { return known }
            let input = source.loaded.input
            let limits = manager.configuration.decodingLimits
            let opacity = configuration.drawing.watermarkOpacity
            let decoded = try await workers.run { [coders] in
                try ServiceWatermark(data: try input.contents(), digest: digest, opacity: opacity, limits: limits, coders: coders)
            }
            watermarks.keep(decoded)
            return decoded
        } catch {
            let reason = (error as? ServiceError)?.message ?? "\(error)"
            throw ServiceError(.watermarkUnavailable, "the watermark cannot be loaded: \(reason)", retryAfter: 5)
        }
    }

    /// `watermark_text`: the markup drawn with Pango (`sans 16`, black, as imgproxy Pro's), once
    /// per text.
    ///
    /// - Throws: ``ServiceError`` 404 `invalid_url` for markup Pango cannot draw (or too large).
    private func textWatermark(_ text: String) async throws -> ServiceWatermark {
        let key = "text:" + text
        if let kept = watermarks.perURL(key) { return kept }
        let opacity = configuration.drawing.watermarkOpacity
        let limit = ServiceTransformer.maxResultPixels
        let drawn: ServiceWatermark
        do {
            drawn = try await workers.run {
                let pixels = try TextRenderer.render(text, maxPixels: limit)
                return ServiceWatermark(image: pixels, digest: "t" + String(Checksum.fast64(Data(text.utf8)), radix: 36), opacity: opacity)
            }
        } catch let error as ImageCodingError {
            if case .unsupportedFeature = error {
                throw ServiceError(.unsupportedFormat, "\(error)")
            }
            throw ServiceError.badRequest("watermark_text: \(error)")
        }
        watermarks.keepPerURL(drawn, as: key)
        return drawn
    }

    /// `watermark_url`: the image fetched as a source is (the same allow-list, address policy,
    /// cache and freshness), decoded once per version of its bytes. Signed URLs only: without
    /// `IMAGO_KEY` anyone could make the service fetch any URL as a watermark.
    ///
    /// - Throws: ``ServiceError`` 403 `watermark_url_unsigned` without URL signing; the source's
    ///   own errors (404, 422, …) when it cannot be fetched or decoded.
    private func urlWatermark(_ url: String) async throws -> ServiceWatermark {
        guard signer != nil else {
            throw ServiceError(.watermarkURLUnsigned, "watermark_url needs signed URLs (IMAGO_KEY and IMAGO_SALT)")
        }
        let source = try await loadSource(configuration.sources.resolveSource(url), options: ProcessingOptions())
        let digest = "u" + String(source.digest, radix: 36)
        if let known = watermarks.perURL(digest) { return known }
        let input = source.loaded.input
        let limits = manager.configuration.decodingLimits
        let opacity = configuration.drawing.watermarkOpacity
        let decoded: ServiceWatermark
        do {
            decoded = try await workers.run { [coders] in
                try ServiceWatermark(data: try input.contents(), digest: digest, opacity: opacity, limits: limits, coders: coders)
            }
        } catch let error as ImageCodingError {
            throw ServiceError(error)
        }
        watermarks.keepPerURL(decoded, as: digest)
        return decoded
    }
}
