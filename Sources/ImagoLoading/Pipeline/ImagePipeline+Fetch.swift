// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCoders
import ImagoCore
import Tracing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        case .image(let image, _):
            // Nothing to fetch: named by its key's digest, for the results made from it.
            var given = FetchedData(
                input: ImageInput(Data()), response: nil, source: .memory, revalidated: false,
                digest: CachedEntry.digest(of: Data(keys.dataKey.utf8)), write: nil)
            given.image = image
            return given
        case .url(let u): url = u
        }
        var stale = StaleCopy()
        if options.readsDisk, let hit = try await readDiskCache(url, options: options, keys: keys, context: context, stale: &stale) {
            return hit
        }
        // Not here: another instance may have downloaded it (the shared sources), or be downloading
        // it now (it holds the claim: wait for its upload rather than download it too).
        var claimed: (any SharedResultStoring)?
        if let hit = try await takeSharedSource(request, url: url, keys: keys, stale: &stale, claimed: &claimed) { return hit }
        if options.contains(.fromCacheOnly) { throw ImageLoadingError.notCached }

        let (result, downloading) = try await downloadSource(
            request, url: url, key: keys.dataKey, context: context, revalidating: stale.response, claimed: claimed)
        var timings = ImageLoadTimings()
        timings.download = downloading
        let (metadata, stores) = storedMetadata(of: result, kept: stale.kept)
        if result.notModified, let onDisk = stale.onDisk {
            return await keepDiskEntry(
                onDisk, result: result, request: request, key: keys.dataKey, metadata: metadata, stores: stores, timings: timings)
        }
        await shareDownload(
            result, url: url, key: keys.dataKey, metadata: metadata, stores: stores, revalidated: stale.response != nil,
            claimed: claimed)
        return await stageDownload(
            result, request: request, key: keys.dataKey, context: context, metadata: metadata, stores: stores, timings: timings)
    }

    /// A cached copy of the source that may be used only once the origin confirms it: what the
    /// fetch stage's cache steps hand its download.
    private struct StaleCopy {
        /// What the download revalidates (validators, and the bytes a 304 keeps), or `nil`
        /// when there is no copy.
        var response: CachedResponse?
        /// The copy's metadata, whose validators and freshness fields a 304 keeps.
        var kept: [String: String] = [:]
        /// A disk entry being revalidated: the input and digest a 304 keeps.
        var onDisk: (input: ImageInput, digest: UInt64)?
    }

    /// The disk step: a pending disk write of the source, else its disk-cache entry. Returns it
    /// when it may be used as it is; else, when it must be revalidated, describes it in `stale`.
    private func readDiskCache(
        _ url: URL, options: ImageRequest.Options, keys: ImageRequestKeys, context: FetchContext,
        stale: inout StaleCopy
    ) async throws -> FetchedData? {
        if let pending = writer?.pending(forKey: keys.dataKey) {
            let check = try cachedUse(url, metadata: pending.metadata)
            guard options.contains(.refreshCached) || (check == .stale && !options.contains(.fromCacheOnly)) else {
                return FetchedData(
                    input: ImageInput(pending.data), response: nil, source: .disk, revalidated: false,
                    validators: pending.metadata, digest: CachedEntry.digest(of: pending.data), write: nil)
            }
            stale.response = CachedResponse(data: pending.data, etag: pending.metadata["etag"], lastModified: pending.metadata["last-modified"])
            stale.kept = pending.metadata
            return nil
        }
        let (found, read) = try await timedSpan(
            "imago.cache.read",
            { _ in
                try await openDisk(keys.dataKey, in: configuration.dataCache, priority: context, strict: options.contains(.fromCacheOnly))
            })
        guard let entry = found else { return nil }
        return try useDiskEntry(entry, read: read, url: url, options: options, stale: &stale)
    }

    /// A disk-cache entry of `url`'s source, read in `read`: returned when it may be used as it
    /// is; else described in `stale`, to be revalidated where it lies.
    private func useDiskEntry(
        _ entry: CachedEntry, read: Duration, url: URL, options: ImageRequest.Options, stale: inout StaleCopy
    ) throws -> FetchedData? {
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
        stale.response = CachedResponse(data: Data(), etag: entry.metadata["etag"], lastModified: entry.metadata["last-modified"])
        stale.kept = entry.metadata
        stale.onDisk = (input, entry.digest)
        return nil
    }

    /// The shared-sources step, when the disk had no copy: the source another instance downloaded
    /// (waiting for one that holds the claim), returned when fresh (and staged for the disk); else,
    /// when stale, described in `stale`. Sets `claimed` when this instance holds the claim.
    private func takeSharedSource(
        _ request: ImageRequest, url: URL, keys: ImageRequestKeys,
        stale: inout StaleCopy, claimed: inout (any SharedResultStoring)?
    ) async throws -> FetchedData? {
        let options = request.options
        guard options.readsDisk, stale.response == nil, let shared = configuration.sharedSources, Self.isShareable(url),
            let found = await sharedSourceOrClaim(keys.dataKey, in: shared, claimed: &claimed)
        else { return nil }
        let check = try cachedUse(url, metadata: found.metadata)
        if !options.contains(.refreshCached), check == .fresh || options.contains(.fromCacheOnly) {
            sharedSourceHits.add(1, ordering: .relaxed)
            let write = options.writesDisk && storesOriginal(request) ? writer?.stage(found, forKey: keys.dataKey) : nil
            return FetchedData(
                input: ImageInput(found.data), response: nil, source: .disk, revalidated: false, validators: found.metadata,
                digest: CachedEntry.digest(of: found.data), write: write)
        }
        // Stale: the origin confirms it (a 304 keeps these bytes) or sends new ones.
        stale.response = CachedResponse(data: found.data, etag: found.metadata["etag"], lastModified: found.metadata["last-modified"])
        stale.kept = found.metadata
        return nil
    }

    /// The download step: `url`'s bytes from the network (revalidating `cached` when given), its
    /// progress and partial data sent to the stage's subscribers, and how long it took. A failed
    /// download releases `claimed`.
    private func downloadSource(
        _ request: ImageRequest, url: URL, key: String, context: FetchContext,
        revalidating cached: CachedResponse?, claimed: (any SharedResultStoring)?
    ) async throws -> (ImageDownloadResult, Duration) {
        let options = request.options
        var downloadRequest = ImageDownloadRequest(
            url: url, priority: request.priority, headers: request.headers,
            progressive: options.contains(.progressive), cachedResponse: cached)
        downloadRequest.alternativeURLs = request.alternativeURLs
        let download = configuration.downloader.subscribe(
            downloadRequest,
            priority: context, events: options.contains(.progressive) || context.hasEventSubscribers)
        do {
            return try await timedSpan("imago.download") { span in
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
            if let claimed { await claimed.release(key) }
            throw error
        }
    }

    /// What downloaded bytes are kept with (validators, lifetime, freshness fields, route; a 304
    /// keeps what it does not repeat of `kept`), and whether they may be kept at all (not
    /// `no-store`).
    private func storedMetadata(of result: ImageDownloadResult, kept: [String: String]) -> (metadata: [String: String], stores: Bool) {
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
        return (metadata, stores)
    }

    /// A 304 for the disk entry being revalidated (`onDisk`): the entry's bytes, with the new
    /// metadata written over its own (or the entry purged, when it may no longer be kept).
    private func keepDiskEntry(
        _ onDisk: (input: ImageInput, digest: UInt64), result: ImageDownloadResult, request: ImageRequest, key: String,
        metadata: [String: String], stores: Bool, timings: ImageLoadTimings
    ) async -> FetchedData {
        // The bytes are those on the disk: a new lifetime is new metadata, not a new entry.
        if !stores {
            await writer?.purge(forKey: key)
        } else if request.options.writesDisk, storesOriginal(request), let writer {
            writer.updateMetadata(metadata, forKey: key)
        }
        return FetchedData(
            input: onDisk.input, response: result.response, source: .network, revalidated: true,
            validators: metadata, digest: onDisk.digest, write: nil, timings: timings)
    }

    /// The shared-sources write-back: purges a `revalidated` copy that may no longer be kept,
    /// queues the downloaded bytes for upload to the shared sources, and releases `claimed` when
    /// they are not queued.
    private func shareDownload(
        _ result: ImageDownloadResult, url: URL, key: String, metadata: [String: String], stores: Bool,
        revalidated: Bool, claimed: (any SharedResultStoring)?
    ) async {
        // An entry revalidated into `no-store` goes, staged or written.
        if !stores, revalidated { await writer?.purge(forKey: key) }
        let queued =
            stores
            && configuration.sharedSources.map { shared in
                Self.isShareable(url)
                    && share(CachedData(data: result.data, metadata: metadata), forKey: key, in: shared, releasing: claimed != nil)
            } == true
        if !queued, let claimed { await claimed.release(key) }
    }

    /// The disk write-back: stages the downloaded bytes for the disk cache when it keeps them
    /// (large ones written ahead, and loaded from the mapped file), and returns the fetched data.
    private func stageDownload(
        _ result: ImageDownloadResult, request: ImageRequest, key: String, context: FetchContext,
        metadata: [String: String], stores: Bool, timings: ImageLoadTimings
    ) async -> FetchedData {
        // Staged now (a load of the same key reads it at once), written once the bytes have
        // decoded (or, for a bytes-only load, once they arrive).
        var write: PendingWrite?
        var input = ImageInput(result.data)
        var digest: UInt64?
        if request.options.writesDisk, stores, storesOriginal(request), let writer {
            let value = CachedData(data: result.data, metadata: metadata)
            if result.data.count < Self.writeAheadBytes {
                write = writer.stage(value, forKey: key)
            } else {
                // Large bytes go to the disk before they decode, and the load goes on from the
                // mapped file: a request waiting for a worker holds no copy in memory (they are
                // removed again if they do not decode).
                write = await writer.writeAhead(value, forKey: key)
                if let entry = try? await openDisk(key, in: configuration.dataCache, priority: context, strict: false),
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
