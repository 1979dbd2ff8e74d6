// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoLoading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What is kept and for how long: sources, results and decoded pixels, locally and in a shared
/// store. ``ServerConfiguration/cache``; the pipeline's set-up takes it.
public struct CacheSettings: Sendable {
    /// `IMAGO_CACHE_DIR`: where source bytes are cached. Default: the user's cache folder
    /// (`$XDG_CACHE_HOME/imago`), namespace `sources`.
    public var cacheDirectory: String?
    /// `IMAGO_CACHE_SIZE`: bytes of sources kept on disk; past it the least recently used go
    /// until half remains. Default 1 GiB; 0 disables the source cache.
    public var cacheSize: Int = 1 << 30
    /// `IMAGO_RESULT_CACHE_SIZE`: bytes of encoded results kept on disk (namespace `results`
    /// beside the sources), so a URL asked for again is read, not rendered again. A result is
    /// keyed by its source's bytes (their digest), the options and the output, never the
    /// signature, and is as fresh as its source; it is answered with the same `ETag` and 304s,
    /// and purged with its source. Default 1 GiB; 0 disables it.
    public var resultCacheSize: Int = 1 << 30
    /// `IMAGO_DECODE_CACHE_SIZE`: bytes of decoded pixels kept in memory, so a new size of a
    /// hot source costs a resize, not a decode. Default 16 MiB (enough for the small decodes
    /// of the hottest sources; on a realistic trace more bought 1% of CPU for 40 MB of memory,
    /// docs/benchmarks.md); 0 disables it.
    public var decodeCacheSize: Int = 16 << 20
    /// Whether a conversion that leaves the pixels alone flows from decoder to encoder in rows
    /// (see ``ImageService``). Tests turn it off to compare with the whole-image path.
    var streamsConversions = true
    /// `IMAGO_SOURCE_TTL`: seconds a cached source is fresh when its origin sends no
    /// `Cache-Control` lifetime or `Expires`. Default 3600. Past its lifetime a source is
    /// revalidated (`If-None-Match`, `If-Modified-Since`) before use and kept on 304; `no-store`
    /// sources are not kept, `no-cache` ones are revalidated every time.
    public var sourceTTL: Duration = .seconds(3600)
    /// `IMAGO_SOURCE_TTL_MIN`: the shortest lifetime an origin's headers may give (not
    /// `no-cache`). Default 0.
    public var sourceTTLMin: Duration = .zero
    /// `IMAGO_SOURCE_TTL_MAX`: the longest lifetime any source gets. Default 30 days.
    public var sourceTTLMax: Duration = .seconds(30 * 86_400)
    /// `IMAGO_RESULT_STORAGE`: results (under `PREFIX/results`) and downloaded `http(s)` sources
    /// (under `PREFIX/sources`) shared by every instance, in an S3 bucket or a Swift container
    /// (`s3://BUCKET/PREFIX`, `swift://CONTAINER/PREFIX`), behind the local caches. Default
    /// `nil`: each instance keeps its own.
    public var resultStorage: ResultStorage?
    /// Where shared results live: the store and the prefix of their names.
    public struct ResultStorage: Sendable, Hashable {
        /// The bucket or container, with the store's settings.
        public var store: ObjectStoreResults.Store
        /// What the results' names start with.
        public var prefix: String

        /// A location from its parts.
        public init(store: ObjectStoreResults.Store, prefix: String) {
            self.store = store
            self.prefix = prefix
        }
    }

    /// The defaults.
    public init() {}
}
