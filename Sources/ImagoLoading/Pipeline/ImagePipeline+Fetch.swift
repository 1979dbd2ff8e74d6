// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCache
import ImagoCoders
import ImagoCore
import Tracing

extension ImagePipeline {
    typealias FetchSubscription = SharedTasks<ImageRequestKeys.FetchKey, FetchedData, FetchEvent>.Subscription
    typealias FetchContext = SharedTasks<ImageRequestKeys.FetchKey, FetchedData, FetchEvent>.Context

    /// Joins (or starts) the fetch of `request`'s original bytes.
    func fetch(_ request: ImageRequest, keys: ImageRequestKeys, priority: any PrioritySource, events: Bool) -> FetchSubscription {
        let progressive = request.options.contains(.progressive)
        var accepts: (@Sendable (FetchEvent) -> Bool)?
        if events {
            accepts = { event in
                if case .partialData = event { return progressive }
                return true
            }
        }
        return fetches.subscribe(keys.fetch, priority: priority, accepts: accepts) { [self] (context: FetchContext) async throws -> FetchedData in
            try await withSpan("imago.fetch") { span in
                let fetched = try await self.runFetch(request, keys: keys, context: context)
                span.attributes["imago.source"] = fetched.source.rawValue
                span.attributes["imago.bytes"] = fetched.input.byteCount
                return fetched
            }
        }
    }

    /// The fetch stage: bytes given in the request; else a pending or finished disk write; else
    /// the network (revalidating the disk copy when asked), staging what it downloads for the disk.
    private func runFetch(
        _ request: ImageRequest, keys: ImageRequestKeys,
        context: FetchContext
    ) async throws -> FetchedData {
        let options = request.options
        let url: URL
        switch request.source {
        case .data(let data, _):
            return FetchedData(input: ImageInput(data), response: nil, source: .network, revalidated: false, write: nil)
        case .file(let file, _):
            return FetchedData(input: ImageInput(file), response: nil, source: .disk, revalidated: false, write: nil)
        case .url(let u): url = u
        }
        var revalidate: CachedResponse?
        var kept: [String: String] = [:]
        // A disk entry being revalidated: the input and digest a 304 keeps.
        var onDisk: (input: ImageInput, digest: UInt64)?
        if options.readsDisk {
            if let pending = writer?.pending(forKey: keys.dataKey) {
                let check = try cachedUse(url, metadata: pending.metadata)
                guard options.contains(.refreshCached) || (check == .stale && !options.contains(.fromCacheOnly)) else {
                    return FetchedData(
                        input: ImageInput(pending.data), response: nil, source: .disk, revalidated: false,
                        validators: pending.metadata, digest: CachedEntry.digest(of: pending.data), write: nil)
                }
                revalidate = CachedResponse(data: pending.data, etag: pending.metadata["etag"], lastModified: pending.metadata["last-modified"])
                kept = pending.metadata
            } else if case let (entry?, read) = try await timedSpan(
                "imago.cache.read",
                { _ in
                    try await openDisk(keys.dataKey, in: configuration.dataCache, priority: context, strict: options.contains(.fromCacheOnly))
                })
            {
                let input: ImageInput
                switch entry.contents {
                case .data(let data): input = ImageInput(data)
                case .file(let file): input = ImageInput(file)
                }
                let check = try cachedUse(url, metadata: entry.metadata)
                guard options.contains(.refreshCached) || (check == .stale && !options.contains(.fromCacheOnly)) else {
                    var timings = ImageLoadTimings()
                    timings.diskRead = read
                    return FetchedData(
                        input: input, response: nil, source: .disk, revalidated: false, validators: entry.metadata,
                        digest: entry.digest, write: nil, timings: timings)
                }
                // Revalidating: on 304 the entry is used where it lies, and only its metadata
                // is written again.
                revalidate = CachedResponse(data: Data(), etag: entry.metadata["etag"], lastModified: entry.metadata["last-modified"])
                kept = entry.metadata
                onDisk = (input, entry.digest)
            }
        }
        // Not here: another instance may have downloaded it (the shared sources), or be downloading
        // it now (it holds the claim: wait for its upload rather than download it too).
        var claimed: (any SharedResultStoring)?
        if options.readsDisk, revalidate == nil, let shared = configuration.sharedSources, Self.isShareable(url),
            let found = await sharedSourceOrClaim(keys.dataKey, in: shared, claimed: &claimed)
        {
            let check = try cachedUse(url, metadata: found.metadata)
            if !options.contains(.refreshCached), check == .fresh || options.contains(.fromCacheOnly) {
                sharedSourceHits.add(1, ordering: .relaxed)
                let write = options.writesDisk && storesOriginal(request) ? writer?.stage(found, forKey: keys.dataKey) : nil
                return FetchedData(
                    input: ImageInput(found.data), response: nil, source: .disk, revalidated: false, validators: found.metadata,
                    digest: CachedEntry.digest(of: found.data), write: write)
            }
            // Stale: the origin confirms it (a 304 keeps these bytes) or sends new ones.
            revalidate = CachedResponse(data: found.data, etag: found.metadata["etag"], lastModified: found.metadata["last-modified"])
            kept = found.metadata
        }
        if options.contains(.fromCacheOnly) { throw ImageLoadingError.notCached }

        var downloadRequest = ImageDownloadRequest(
            url: url, priority: request.priority, headers: request.headers,
            progressive: options.contains(.progressive), cachedResponse: revalidate)
        downloadRequest.alternativeURLs = request.alternativeURLs
        let download = configuration.downloader.subscribe(
            downloadRequest,
            priority: context, events: options.contains(.progressive) || context.hasEventSubscribers)
        let result: ImageDownloadResult
        let downloading: Duration
        do {
            (result, downloading) = try await timedSpan("imago.download") { span in
                span.attributes["url.full"] = url.absoluteString
                return try await download.value { event in
                    switch event {
                    case .progress(let p): context.send(.progress(p))
                    case .partialData(let d): context.send(.partialData(d))
                    }
                }
            }
        } catch {
            // The others waiting for this download stop waiting.
            // One request, bounded by the store's timeout.
            if let claimed { await claimed.release(keys.dataKey) }
            throw error
        }
        var timings = ImageLoadTimings()
        timings.download = downloading
        // Staged now (a load of the same key reads it at once), written once the bytes have
        // decoded (or, for a bytes-only load, once they arrive).
        var write: PendingWrite?
        // A 304 keeps the validators it does not repeat.
        var metadata: [String: String] = result.notModified ? kept.filter { $0.key == "etag" || $0.key == "last-modified" } : [:]
        if let etag = result.response?.etag { metadata["etag"] = etag }
        if let modified = result.response?.lastModified { metadata["last-modified"] = modified }
        var stores = true
        if let response = result.response {
            // A 304 updates the stored freshness fields with its own (RFC 9111 4.3.4).
            var fields = response.headers
            if result.notModified {
                for (key, value) in kept where key.hasPrefix("http-") && fields[String(key.dropFirst(5))] == nil {
                    fields[String(key.dropFirst(5))] = value
                }
            }
            switch configuration.freshness.lifetime(headers: fields) {
            case .noStore: stores = false
            case .fresh(let until): if let until { metadata["expires"] = String(until.timeIntervalSince1970) }
            }
            for name in ["cache-control", "expires", "date"] { if let v = fields[name] { metadata["http-" + name] = v } }
            if !response.route.isEmpty { metadata["route"] = DataLoadResponse.Hop.encode(response.route) }
        }
        var input = ImageInput(result.data)
        var digest: UInt64?
        if result.notModified, let onDisk {
            // The bytes are those on the disk: a new lifetime is new metadata, not a new entry.
            if !stores {
                await writer?.purge(forKey: keys.dataKey)
            } else if options.writesDisk, storesOriginal(request), let writer {
                writer.updateMetadata(metadata, forKey: keys.dataKey)
            }
            return FetchedData(
                input: onDisk.input, response: result.response, source: .network, revalidated: true,
                validators: metadata, digest: onDisk.digest, write: nil, timings: timings)
        }
        // An entry revalidated into `no-store` goes, staged or written.
        if !stores, revalidate != nil { await writer?.purge(forKey: keys.dataKey) }
        let queued =
            stores
            && configuration.sharedSources.map { shared in
                Self.isShareable(url)
                    && share(CachedData(data: result.data, metadata: metadata), forKey: keys.dataKey, in: shared, releasing: claimed != nil)
            } == true
        if !queued, let claimed { await claimed.release(keys.dataKey) }
        if options.writesDisk, stores, storesOriginal(request), let writer {
            let value = CachedData(data: result.data, metadata: metadata)
            if result.data.count < Self.writeAheadBytes {
                write = writer.stage(value, forKey: keys.dataKey)
            } else {
                // Large bytes go to the disk before they decode, and the load goes on from the
                // mapped file: a request waiting for a worker holds no copy in memory (they are
                // removed again if they do not decode).
                write = await writer.writeAhead(value, forKey: keys.dataKey)
                if let entry = try? await openDisk(keys.dataKey, in: configuration.dataCache, priority: context, strict: false),
                    case .file(let file) = entry.contents
                {
                    input = ImageInput(file)
                    digest = entry.digest
                }
            }
        }
        return FetchedData(
            input: input, response: result.response, source: .network, revalidated: result.notModified,
            validators: metadata, digest: digest ?? CachedEntry.digest(of: result.data), write: write, timings: timings)
    }

    /// Whether `url`'s bytes go to the shared sources: `http(s)` only (an object-store source is
    /// in a store already).
    static func isShareable(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    /// How long an instance's claim on downloading a shared source lasts, and how long another
    /// waits for its upload before downloading the source itself.
    static let sourceClaim: Duration = .seconds(20)

    /// The source under `key` in `shared`; else, when another instance holds the claim on
    /// downloading it, the source once that instance has uploaded it (waited for at most
    /// ``sourceClaim``); else `nil`, with `claimed` set when this caller holds the claim (and
    /// must release it: the upload after the download does).
    private func sharedSourceOrClaim(
        _ key: String, in shared: any SharedResultStoring, claimed: inout (any SharedResultStoring)?
    ) async -> CachedData? {
        if let found = await sharedSource(key, in: shared) { return found }
        if await shared.claim(key, lease: Self.sourceClaim) {
            // Another instance may have uploaded it between the look and the claim.
            if let found = await sharedSource(key, in: shared) {
                await shared.release(key)
                return found
            }
            claimed = shared
            return nil
        }
        let deadline = ContinuousClock.now + Self.sourceClaim
        while ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
            if let found = await sharedSource(key, in: shared) { return found }
        }
        return nil
    }

    /// The source under `key` in `shared`, or `nil` (none, or the store failed: logged).
    private func sharedSource(_ key: String, in shared: any SharedResultStoring) async -> CachedData? {
        do {
            return try await shared.result(forKey: key)
        } catch {
            logger.warning("shared sources read failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// What a cached entry may be used for now.
    enum CachedUse: Equatable {
        /// As it is.
        case fresh
        /// Only after the origin confirms it (past its lifetime, or fetched under no known route).
        case stale
    }

    /// Whether an entry cached for `url` with `metadata` may be used: refused (thrown) when the
    /// loader's policy now refuses its route, stale past its `expires` time or when its route is
    /// unknown to a loader with a policy, else fresh.
    ///
    /// - Throws: ``ImageLoadingError/sourceNotAllowed(_:)`` when the policy refuses it.
    func cachedUse(_ url: URL, metadata: [String: String]) throws -> CachedUse {
        let route = metadata["route"].flatMap(DataLoadResponse.Hop.decode)
        var permitted: Bool? = true
        if let loader = configuration.downloader.loaders.first(where: { $0.canLoad(url) }) {
            permitted = loader.permitsCached(url, route: route)
        }
        if permitted == false { throw ImageLoadingError.sourceNotAllowed(url.absoluteString) }
        if permitted == nil { return .stale }
        if let expires = metadata["expires"].flatMap(Double.init), expires <= Date().timeIntervalSince1970 { return .stale }
        return .fresh
    }

    /// Downloaded bytes of at least this size are written to the disk cache before they decode
    /// and read back mapped, rather than held in memory until a worker decodes them.
    static let writeAheadBytes = 1 << 20

    /// All of a cached input's bytes (a disk-cache entry is mapped, not copied).
    ///
    /// - Throws: ``ImageLoadingError/cacheFailed(_:)`` when the file cannot be read.
    static func contents(of input: ImageInput) throws -> Data {
        do {
            return try input.contents()
        } catch {
            throw ImageLoadingError.cacheFailed(.io(path: input.file?.path ?? "", reason: "the cached file cannot be read: \(error)"))
        }
    }
}
