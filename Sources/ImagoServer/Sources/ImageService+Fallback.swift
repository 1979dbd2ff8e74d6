// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoLoading
import ImagoServiceURL

extension ImageService {
    /// The source failures a fallback image stands in for, as imgproxy's: the source could not
    /// be fetched (not found, refused by the origin, unreachable, too slow, cut short).
    static let fallbackCodes: Set<String> = ["source_not_found", "source_error", "source_timeout", "source_unreachable", "source_incomplete"]

    /// The fallback image as a source (`IMAGO_FALLBACK_IMAGE_DATA` or `_PATH`, read at start;
    /// or `IMAGO_FALLBACK_IMAGE_URL`, fetched and cached like any source), or `nil` without one.
    ///
    /// - Throws: ``ServiceError`` when the fallback itself cannot be loaded.
    func fallbackSource() async throws -> ServiceSource? {
        if let data = configuration.sources.fallbackImageData {
            let request = ImageRequest(data: data, key: "imago:fallback-image")
            do {
                let loaded = try await manager.loadSource(with: request)
                return ServiceSource(
                    loaded: loaded, request: request, name: "fallback", contentType: nil, lastModified: nil, host: "fallback",
                    baseName: "fallback")
            } catch {
                throw ServiceError(error)
            }
        }
        if let url = configuration.sources.fallbackImageURL { return try await loadSource(url, options: ProcessingOptions()) }
        return nil
    }

    /// Marks an answer made from the fallback image: its status (`IMAGO_FALLBACK_IMAGE_HTTP_CODE`,
    /// 0 for the failure's own), `Fallback-Image: 1` (so a front cache can tell), and
    /// `IMAGO_FALLBACK_IMAGE_TTL` as its lifetime when set.
    func markFallback(_ response: inout ServiceResponse, failure: ServiceError) {
        let code = configuration.sources.fallbackImageHTTPCode
        // A client revalidating the fallback it already holds keeps its 304.
        if response.status != .notModified { response.status = code > 0 ? HTTPResponse.Status(code: code) : failure.status }
        // The fallback's own dates say nothing about the source (imgproxy drops them too).
        response.headers[.lastModified] = nil
        response.headers[.expires] = nil
        response.headers[.fallbackImage] = "1"
        if let ttl = configuration.sources.fallbackImageTTL { response.headers[.cacheControl] = "max-age=\(ttl), public" }
    }
}
