// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoLoading
import ImagoServiceURL

extension ImageService {
    /// The source failures a fallback image stands in for, as imgproxy's: the source could not
    /// be fetched (not found, refused by the origin, unreachable, too slow, cut short, larger
    /// than `IMAGO_MAX_SRC_FILE_SIZE`). A body that is not an image at all is one too, told when
    /// the render reads its type (``ServiceError/notAnImage``).
    static let fallbackCodes: Set<String> = [
        "source_not_found", "source_error", "source_timeout", "source_unreachable", "source_incomplete", "source_too_large"
    ]

    /// The source `source` (resolved: the base URL and replacements applied) names, asked with the
    /// client's `cookies` that belong to it, or the fallback image when it could not be fetched (a
    /// failure ``fallbackCodes`` lists, and a fallback image is set), with that failure.
    ///
    /// - Throws: ``ServiceError``: the source's failure when no fallback answers it; the
    ///   fallback's own when it cannot be loaded.
    func sourceOrFallback(
        _ source: String, options: ProcessingOptions, cookies: ClientCookies? = nil
    ) async throws -> (ServiceSource, failure: ServiceError?) {
        do {
            return (try await loadSource(source, options: options, cookies: cookies), nil)
        } catch let error as ServiceError where Self.fallbackCodes.contains(error.code) && configuration.sources.hasFallbackImage {
            // The fallback image stands in, processed with the same options (imgproxy's).
            guard let fallback = try await fallbackSource(standingInFor: error) else { throw error }
            return (fallback, error)
        }
    }

    /// The answer from `source`, or, when it is not an image at all and a fallback image is
    /// set, the answer from that (imgproxy tells the type as it downloads, so such a body is a
    /// failed download; a broken image of a known type is not), with `failure` set to why.
    ///
    /// - Returns: the answer and the source it was made from.
    /// - Throws: ``ServiceError`` as ``answer(source:options:info:headers:)`` throws it.
    func answerOrFallback(
        _ source: ServiceSource, failure: inout ServiceError?, options: ProcessingOptions, info: InfoOptions?, headers: HTTPFields
    ) async throws -> (ServiceResponse, from: ServiceSource) {
        do {
            return (try await answer(source: source, options: options, info: info, headers: headers), source)
        } catch let error as ServiceError where failure == nil && error == .notAnImage && configuration.sources.hasFallbackImage {
            guard let fallback = try await fallbackSource(standingInFor: error) else { throw error }
            failure = error
            return (try await answer(source: fallback, options: options, info: info, headers: headers), fallback)
        }
    }

    /// ``fallbackSource()``, logged as standing in for `failure`.
    func fallbackSource(standingInFor failure: ServiceError) async throws -> ServiceSource? {
        guard let fallback = try await fallbackSource() else { return nil }
        logger.warning("the source could not be used: the fallback image answers", metadata: ["error": "\(failure.code)"])
        return fallback
    }

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
    /// 0 for the failure's own), `Fallback-Image: 1` (so a front cache can tell), and its
    /// lifetime as imgproxy gives it: `IMAGO_FALLBACK_IMAGE_TTL` when set (no longer than the URL
    /// lives, `expires`); without it, none for an error status (a cache must not keep a 404 for
    /// the results' TTL: the source may come back), the results' TTL for a success.
    func markFallback(_ response: inout ServiceResponse, failure: ServiceError) {
        let code = configuration.sources.fallbackImageHTTPCode
        // A client revalidating the fallback it already holds keeps its 304.
        if response.status != .notModified { response.status = code > 0 ? HTTPResponse.Status(code: code) : failure.status }
        // The fallback's own dates say nothing about the source (imgproxy drops them too).
        response.headers[.lastModified] = nil
        response.headers[.expires] = nil
        response.headers[.fallbackImage] = "1"
        if let ttl = configuration.sources.fallbackImageTTL {
            // The answer's own max-age already holds the URL's `expires`.
            let age = min(ttl, Self.maxAge(response.headers[.cacheControl]) ?? ttl)
            response.headers[.cacheControl] = age > 0 ? "max-age=\(age), public" : "no-cache"
        } else if response.status.code >= 400 {
            response.headers[.cacheControl] = nil
        }
    }

    /// The `max-age` of a `Cache-Control` value, 0 for `no-cache`, `nil` without either.
    static func maxAge(_ cacheControl: String?) -> Int? {
        guard let cacheControl else { return nil }
        for part in cacheControl.split(separator: ",") {
            let directive = part.trimmingCharacters(in: .whitespaces)
            if directive == "no-cache" { return 0 }
            if directive.hasPrefix("max-age="), let age = Int(directive.dropFirst("max-age=".count)) { return age }
        }
        return nil
    }
}
