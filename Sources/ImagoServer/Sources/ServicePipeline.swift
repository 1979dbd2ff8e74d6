// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCoders
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
    /// What the pipeline is made from: the source limits and policy, where sources come from,
    /// what is cached, and the service's workers (the downloads at once follow them).
    struct Settings: Sendable {
        var security = SecuritySettings()
        var sources = SourceSettings()
        var cache = CacheSettings()
        var workers = 1
        var isolation = IsolationSettings()
        var requestTimeout: Duration = .seconds(10)
    }

    let httpLoader: HTTPDataLoader
    let manager: ImageManager

    /// - Throws: ``ConfigurationError`` when the cache directory cannot be opened.
    init(
        settings: Settings, resolver: any HostResolving, connector: (any HTTPConnecting)?,
        workers: WorkQueue, onDecoderEvent: @escaping @Sendable (DecoderIsolation.Event) -> Void = { _ in }
    ) throws(ConfigurationError) {
        let sourceGuard = Self.sourceGuard(settings, resolver: resolver)
        let http = HTTPDataLoader(connectTimeout: settings.sources.downloadTimeout, sourceGuard: sourceGuard, connector: connector)
        httpLoader = http
        let downloader = Self.downloader(settings, http: http, connector: connector)
        var managed = try Self.managerConfiguration(settings, downloader: downloader, workers: workers, connector: connector)
        // The formats decoded out of process, by as many workers as decode at once.
        managed.decoderIsolation = settings.isolation.decoderIsolation(
            requestTimeout: settings.requestTimeout, workers: settings.workers, limits: managed.decodingLimits, onEvent: onDecoderEvent)
        manager = ImageManager(configuration: managed)
    }

    /// The guard of HTTP sources: the address policy, and the allow-list of sources (which the
    /// operator's own fallback image is not held to, as imgproxy fetches it apart).
    private static func sourceGuard(_ settings: Settings, resolver: any HostResolving) -> SourceGuard {
        let allowed = settings.security.allowedSources
        let fallback = settings.sources.fallbackImageURL.flatMap { URL(string: $0)?.absoluteString }
        return SourceGuard(
            policy: AddressPolicy(
                allowsLoopback: settings.security.allowLoopbackSources, allowsPrivate: settings.security.allowPrivateSources,
                allowsLinkLocal: settings.security.allowLinkLocalSources),
            resolver: resolver,
            permitsURL: { url in url.absoluteString == fallback || SourcePattern.permits(url.absoluteString, patterns: allowed) })
    }

    /// The downloader of sources over `http` and the object stores: timeouts, redirects, size limit.
    private static func downloader(
        _ settings: Settings, http: HTTPDataLoader, connector: (any HTTPConnecting)?
    ) -> ImageDownloader {
        let timeouts = ImageDownloadTimeouts(
            connect: settings.sources.downloadTimeout, read: settings.sources.downloadTimeout,
            total: settings.sources.downloadTimeout)
        let headers = ["Accept": ImageDownloaderConfiguration.defaultAccept, "User-Agent": settings.sources.userAgent]
        return ImageDownloader(
            configuration: ImageDownloaderConfiguration(
                maxConcurrentDownloads: max(8, settings.workers * 4), timeouts: timeouts,
                headers: headers, maxRedirects: settings.security.maxRedirects,
                maxBodyBytes: settings.security.maxSourceFileSize),
            loaders: [http] + Self.objectStoreLoaders(settings, connector: connector))
    }

    /// The image manager's settings: the disk caches of sources and results (and the object
    /// store's beside them), the decodes kept in memory, the limits, the sources' freshness.
    ///
    /// - Throws: ``ConfigurationError`` when the cache directory cannot be opened.
    private static func managerConfiguration(
        _ settings: Settings, downloader: ImageDownloader, workers: WorkQueue, connector: (any HTTPConnecting)?
    ) throws(ConfigurationError) -> ImageManager.Configuration {
        let directory = settings.cache.cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DiskCache.defaultDirectory
        // Sources are opened where they lie (or mapped), not copied: no page faults or copy per
        // request, and their pages are the page cache's, not the process's.
        let cache = try Self.diskCache(directory, namespace: "sources", size: settings.cache.cacheSize, what: "source")
        // Results beside them, sent from where they lie too.
        let results = try Self.diskCache(directory, namespace: "results", size: settings.cache.resultCacheSize, what: "result")
        var managed = ImageManager.Configuration(
            memoryCache: nil, dataCache: cache, downloader: downloader, coders: .shared, processingQueue: workers,
            decodingLimits: Self.decodingLimits(settings))
        // Results made in the last moments, so requests that straggle in just after a render
        // finished (a client's next connection, a CDN's second miss) still share it.
        managed.resultRetention = .init(costLimit: 32 << 20, ageLimit: .seconds(2))
        managed.resultCache = results
        if let storage = settings.cache.resultStorage, results != nil {
            // Results and the http(s) sources they are made from, side by side in the store.
            let base = storage.prefix.isEmpty ? "" : storage.prefix + "/"
            managed.sharedResults = ObjectStoreResults(
                storage.store, prefix: base + "results", timeout: settings.sources.downloadTimeout, connector: connector)
            if cache != nil {
                managed.sharedSources = ObjectStoreResults(
                    storage.store, prefix: base + "sources", timeout: settings.sources.downloadTimeout, connector: connector)
            }
        }
        if settings.cache.decodeCacheSize > 0 {
            managed.decodedImageRetention = .init(costLimit: settings.cache.decodeCacheSize)
        }
        managed.streamsConversions = settings.cache.streamsConversions
        // Sources follow their origin's freshness: revalidated when stale, never kept under
        // no-store (imgproxy downloads on every miss; this keeps its freshness without the cost).
        managed.freshness = CacheFreshness(
            default: settings.cache.sourceTTL, minimum: settings.cache.sourceTTLMin, maximum: settings.cache.sourceTTLMax, shared: true)
        return managed
    }

    /// The service's decoding limits: source resolution, frames, animation pixels, file size.
    private static func decodingLimits(_ settings: Settings) -> DecodingLimits {
        DecodingLimits(
            maxPixels: Int(settings.security.maxSourceResolution * 1_000_000),
            maxFrames: settings.security.maxAnimationFrames,
            maxTotalFramePixels: Int(settings.security.maxAnimationPixels * 1_000_000),
            maxBytes: settings.security.maxSourceFileSize,
            // imgproxy's max_src_resolution bounds the source as declared,
            // however small the decode.
            maxSourcePixels: Int(settings.security.maxSourceResolution * 1_000_000))
    }

    /// The loaders of the object stores the configuration enables, behind the same allow-list
    /// as HTTP sources (the stores themselves are the operator's: no address policy).
    static func objectStoreLoaders(_ settings: Settings, connector: (any HTTPConnecting)?) -> [any DataLoading] {
        let allowed = settings.security.allowedSources
        let permits: @Sendable (URL) -> Bool = { url in SourcePattern.permits(url.absoluteString, patterns: allowed) }
        var loaders: [any DataLoading] = []
        if let s3 = settings.sources.s3 {
            loaders.append(S3DataLoader(settings: s3, connectTimeout: settings.sources.downloadTimeout, permitsURL: permits, connector: connector))
        }
        if let gcs = settings.sources.gcs {
            loaders.append(
                S3DataLoader(settings: gcs, scheme: "gs", connectTimeout: settings.sources.downloadTimeout, permitsURL: permits, connector: connector))
        }
        if let abs = settings.sources.abs,
            let loader = AzureBlobDataLoader(
                account: abs.account, key: abs.key, endpoint: abs.endpoint, connectTimeout: settings.sources.downloadTimeout, permitsURL: permits,
                connector: connector)
        {
            loaders.append(loader)
        }
        if let swift = settings.sources.swift {
            loaders.append(SwiftDataLoader(settings: swift, connectTimeout: settings.sources.swiftConnectTimeout, permitsURL: permits, connector: connector))
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
