// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoDiskIO
import ImagoLoading
import ImagoServiceURL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageService {
    /// Fetches `source` through the image manager: an `http(s)` or `s3` URL from the disk cache (opened
    /// where it lies, not read), else one download shared by every request for it, within the
    /// limits and the source guard, stored before the request goes on; or a `local:///path` file
    /// under `IMAGO_LOCAL_ROOT`. Counts the source-cache metrics. With the client's `cookies` that
    /// belong to it, the source is fetched for this request alone (``ClientCookies``).
    ///
    /// - Throws: ``ServiceError``: 404 for an unusable source URL or one that is not allowed (as imgproxy answers),
    ///   422 when it is larger than the limit, the download's statuses (see
    ///   ``ServiceError/init(_:)-(ImageLoadingError)``).
    func loadSource(_ source: String, options: ProcessingOptions, cookies: ClientCookies? = nil) async throws -> ServiceSource {
        // 0 or less in the URL: no limit of its own (imgproxy's reading); never above the service's.
        let asked = options.maxSourceFileSize.flatMap { $0 > 0 ? $0 : nil }
        let maxBytes = min(asked ?? configuration.security.maxSourceFileSize, configuration.security.maxSourceFileSize)
        let request: ImageRequest
        let host: String
        let baseName: String
        if source.lowercased().hasPrefix("local://") {
            let (data, name) = try await LocalSources(sources: configuration.sources, security: configuration.security, reads: fileReads).read(
                source, maxBytes: maxBytes)
            request = ImageRequest(data: data, key: source)
            host = "local"
            baseName = ServiceHeaders.baseName(name)
        } else {
            let url = try configuration.sources.remoteSourceURL(source)
            let h = url.host ?? ""
            var remote = ImageRequest(url: url, options: [.retryFailed, .waitStoreCache])
            if let header = cookies?.header(for: url) {
                remote.headers["Cookie"] = header
                remote.options.formUnion(ClientCookies.cacheBypass)
            }
            request = remote
            host = h
            // Known before the fetch, so a failed one is logged with it.
            ServiceRequestScope.current?.sourceHost = h
            baseName = ServiceHeaders.baseName(url.lastPathComponent)
        }
        let loaded: LoadedSource
        do {
            loaded = try await manager.loadSource(with: request)
        } catch {
            throw ServiceError(error)
        }
        guard loaded.byteCount <= maxBytes else {
            throw ServiceError(.sourceTooLarge, "the source is larger than \(maxBytes) bytes")
        }
        if host != "local" { metrics.sourceLoaded(bytes: loaded.byteCount, fromCache: loaded.source != .network) }
        return ServiceSource(
            loaded: loaded, request: request, name: source, contentType: loaded.response?.mimeType, lastModified: loaded.lastModified,
            host: host, baseName: baseName)
    }
}
