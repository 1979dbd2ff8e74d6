// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoLoading
import ImagoServiceURL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageService {
    /// Forgets everything kept of `source` (an `http(s)` or `s3` URL, as in service URLs): its bytes in
    /// the disk cache, those waiting to be written, and the results kept in memory. The next
    /// request downloads it again. For an origin that replaced an image before its cache
    /// lifetime ran out; `POST /purge?url=…` (with `IMAGO_PURGE_SECRET`) and
    /// `imago-server cache purge URL` call it.
    ///
    /// - Throws: ``ServiceError``: 404 `invalid_source` for a URL that is not `http(s)` or an enabled object store's; the
    ///   disk cache's failure.
    public func purge(source named: String) async throws(ServiceError) {
        // The name a service URL uses, resolved as requests resolve it.
        let source = configuration.sources.resolveSource(named)
        let url: URL
        do {
            url = try configuration.sources.remoteSourceURL(source)
        } catch {
            throw ServiceError(.invalidSource, "a purge names an http, https or enabled object-store source URL")
        }
        do {
            try await manager.cache.purge(ImageRequest(url: url))
        } catch {
            throw ServiceError(error)
        }
        logger.info("purged a source", metadata: ["source_host": "\(url.host ?? "")"])
    }

    /// `POST /purge?url=ENCODED`: ``purge(source:)`` for a caller holding
    /// `Authorization: Bearer $IMAGO_PURGE_SECRET`; without the setting there is no such route
    /// (404), and with a wrong secret 403.
    func purgeRoute(query: String?, headers: HTTPFields) async throws(ServiceError) -> String {
        guard let secret = configuration.http.purgeSecret else { throw .notFound }
        guard ConstantTime.equals(headers[.authorization] ?? "", "Bearer \(secret)") else { throw .invalidSecret }
        let pairs = (query ?? "").split(separator: "&").map { $0.split(separator: "=", maxSplits: 1) }
        guard let encoded = pairs.first(where: { $0.first == "url" && $0.count == 2 })?[1],
            let source = PercentEncoding.decode(String(encoded.map { $0 == "+" ? " " : $0 }))
        else {
            throw ServiceError(.invalidSource, "give the source as ?url=ENCODED")
        }
        try await purge(source: source)
        return source
    }
}
