// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCore
import ImagoLoading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The loading pipeline a service runs on, made from its settings: the source guard (address
/// policy, allowed sources), the HTTP loader and downloader (timeouts, redirects, size limit),
/// the disk caches of sources and results, the decodes kept in memory, the limits, and the image manager over them with the service's
/// workers as its processing queue.
struct ServicePipeline {
    let httpLoader: HTTPDataLoader
    let manager: ImageManager

    /// - Throws: ``ConfigurationError`` when the cache directory cannot be opened.
    init(
        configuration: ServerConfiguration, resolver: any HostResolving, connector: (any HTTPConnecting)?,
        workers: WorkQueue
    ) throws(ConfigurationError) {
        let sourceGuard = Self.sourceGuard(configuration, resolver: resolver)
        let http = HTTPDataLoader(connectTimeout: configuration.downloadTimeout, sourceGuard: sourceGuard, connector: connector)
        httpLoader = http
        let downloader = Self.downloader(configuration, http: http, connector: connector)
        let managed = try Self.managerConfiguration(configuration, downloader: downloader, workers: workers, connector: connector)
        manager = ImageManager(configuration: managed)
    }

    /// The guard of HTTP sources: the address policy, and the allow-list of sources.
    private static func sourceGuard(_ configuration: ServerConfiguration, resolver: any HostResolving) -> SourceGuard {
        let allowed = configuration.allowedSources
        return SourceGuard(
            policy: AddressPolicy(
                allowsLoopback: configuration.allowLoopbackSources, allowsPrivate: configuration.allowPrivateSources,
                allowsLinkLocal: configuration.allowLinkLocalSources),
            resolver: resolver,
            permitsURL: { url in SourcePattern.permits(url.absoluteString, patterns: allowed) })
    }

    /// The downloader of sources over `http` and the object stores: timeouts, redirects, size limit.
    private static func downloader(
        _ configuration: ServerConfiguration, http: HTTPDataLoader, connector: (any HTTPConnecting)?
    ) -> ImageDownloader {
        let timeouts = ImageDownloadTimeouts(
            connect: configuration.downloadTimeout, read: configuration.downloadTimeout,
            total: configuration.downloadTimeout)
        let headers = ["Accept": ImageDownloaderConfiguration.defaultAccept, "User-Agent": "imago-server/0.1"]
        return ImageDownloader(
            configuration: ImageDownloaderConfiguration(
                maxConcurrentDownloads: max(8, configuration.workers * 4), timeouts: timeouts,
                headers: headers, maxRedirects: configuration.maxRedirects,
                maxBodyBytes: configuration.maxSourceFileSize),
            loaders: [http] + Self.objectStoreLoaders(configuration, connector: connector))
    }

    /// The image manager's settings: the disk caches of sources and results (and the object
    /// store's beside them), the decodes kept in memory, the limits, the sources' freshness.
    ///
    /// - Throws: ``ConfigurationError`` when the cache directory cannot be opened.
    private static func managerConfiguration(
        _ configuration: ServerConfiguration, downloader: ImageDownloader, workers: WorkQueue, connector: (any HTTPConnecting)?
    ) throws(ConfigurationError) -> ImageManager.Configuration {
        let directory = configuration.cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DiskCache.defaultDirectory
        // Sources are opened where they lie (or mapped), not copied: no page faults or copy per
        // request, and their pages are the page cache's, not the process's.
        let cache = try Self.diskCache(directory, namespace: "sources", size: configuration.cacheSize, what: "source")
        // Results beside them, sent from where they lie too.
        let results = try Self.diskCache(directory, namespace: "results", size: configuration.resultCacheSize, what: "result")
        var managed = ImageManager.Configuration(
            memoryCache: nil, dataCache: cache, downloader: downloader, coders: .shared, processingQueue: workers,
            decodingLimits: Self.decodingLimits(configuration))
        // Results made in the last moments, so requests that straggle in just after a render
        // finished (a client's next connection, a CDN's second miss) still share it.
        managed.resultRetention = .init(costLimit: 32 << 20, ageLimit: .seconds(2))
        managed.resultCache = results
        if let storage = configuration.resultStorage, results != nil {
            // Results and the http(s) sources they are made from, side by side in the store.
            let base = storage.prefix.isEmpty ? "" : storage.prefix + "/"
            managed.sharedResults = ObjectStoreResults(
                storage.store, prefix: base + "results", timeout: configuration.downloadTimeout, connector: connector)
            if cache != nil {
                managed.sharedSources = ObjectStoreResults(
                    storage.store, prefix: base + "sources", timeout: configuration.downloadTimeout, connector: connector)
            }
        }
        if configuration.decodeCacheSize > 0 {
            managed.decodedImageRetention = .init(costLimit: configuration.decodeCacheSize)
        }
        managed.streamsConversions = configuration.streamsConversions
        // Sources follow their origin's freshness: revalidated when stale, never kept under
        // no-store (imgproxy downloads on every miss; this keeps its freshness without the cost).
        managed.freshness = CacheFreshness(
            default: configuration.sourceTTL, minimum: configuration.sourceTTLMin, maximum: configuration.sourceTTLMax, shared: true)
        return managed
    }

    /// The service's decoding limits: source resolution, frames, animation pixels, file size.
    private static func decodingLimits(_ configuration: ServerConfiguration) -> DecodingLimits {
        DecodingLimits(
            maxPixels: Int(configuration.maxSourceResolution * 1_000_000),
            maxFrames: configuration.maxAnimationFrames,
            maxTotalFramePixels: Int(configuration.maxAnimationPixels * 1_000_000),
            maxBytes: configuration.maxSourceFileSize,
            // imgproxy's max_src_resolution bounds the source as declared,
            // however small the decode.
            maxSourcePixels: Int(configuration.maxSourceResolution * 1_000_000))
    }

    /// The loaders of the object stores the configuration enables, behind the same allow-list
    /// as HTTP sources (the stores themselves are the operator's: no address policy).
    static func objectStoreLoaders(_ configuration: ServerConfiguration, connector: (any HTTPConnecting)?) -> [any DataLoading] {
        let allowed = configuration.allowedSources
        let permits: @Sendable (URL) -> Bool = { url in SourcePattern.permits(url.absoluteString, patterns: allowed) }
        var loaders: [any DataLoading] = []
        if let s3 = configuration.s3 {
            loaders.append(S3DataLoader(settings: s3, connectTimeout: configuration.downloadTimeout, permitsURL: permits, connector: connector))
        }
        if let gcs = configuration.gcs {
            loaders.append(
                S3DataLoader(settings: gcs, scheme: "gs", connectTimeout: configuration.downloadTimeout, permitsURL: permits, connector: connector))
        }
        if let abs = configuration.abs,
            let loader = AzureBlobDataLoader(
                account: abs.account, key: abs.key, endpoint: abs.endpoint, connectTimeout: configuration.downloadTimeout, permitsURL: permits,
                connector: connector)
        {
            loaders.append(loader)
        }
        if let swift = configuration.swift {
            loaders.append(SwiftDataLoader(settings: swift, connectTimeout: configuration.swiftConnectTimeout, permitsURL: permits, connector: connector))
        }
        return loaders
    }

    /// The disk cache of `namespace` under `directory`, or `nil` when `size` is 0.
    ///
    /// - Throws: ``ConfigurationError`` (`IMAGO_CACHE_DIR`) when it cannot be opened.
    private static func diskCache(_ directory: URL, namespace: String, size: Int, what: String) throws(ConfigurationError) -> DiskCache? {
        guard size > 0 else { return nil }
        do {
            return try DiskCache(
                directory: directory,
                configuration: DiskCache.Configuration(namespace: namespace, maxAge: nil, maxSize: size, mappingThreshold: 64 << 10))
        } catch {
            throw ConfigurationError(variable: "IMAGO_CACHE_DIR", reason: "the \(what) cache cannot be opened: \(error)")
        }
    }
}
