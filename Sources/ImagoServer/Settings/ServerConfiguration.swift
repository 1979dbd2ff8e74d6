// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoLoading
import ImagoServiceURL
public import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything the service can be told, each with its environment variable (imgproxy's names
/// with `IMAGO_` for `IMGPROXY_`) and its default. ``init(environment:)`` reads them through the
/// settings' descriptors (`Settings/Settings+*.swift`), which also list them for `--help`, the
/// start-up log and the documentation.
///
/// The settings are grouped by the component that uses them, imgproxy's packages' way: ``http``
/// (``HTTPSettings``: listening, timeouts, connections, caching headers), ``urls``
/// (``URLSettings``: signatures, presets, allowed options), ``security`` (``SecuritySettings``:
/// allowed sources and the limits), ``sources`` (``SourceSettings``: the web, a folder, object
/// stores, the fallback image, videos), ``cache`` (``CacheSettings``), ``output``
/// (``OutputSettings``: formats, qualities, metadata) and ``drawing`` (``DrawingSettings``:
/// the watermark and faces). Each component is handed its group, not the whole configuration:
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.security.allowedSources = ["https://uploads.example.com/"]
/// configuration.output.autoWebP = true
/// configuration.http.ttl = 86_400
/// ```
///
/// What concerns the whole process (glibc's malloc, the workers' CPUs, returning freed memory,
/// the open-file limit) is not here: the `imago-server` executable reads those settings
/// (`IMAGO_MALLOC_ARENAS`, `IMAGO_MALLOC_MMAP_THRESHOLD`, `IMAGO_WORKER_AFFINITY`,
/// `IMAGO_FREE_MEMORY_INTERVAL`) and applies them itself. A process that embeds the service
/// decides those for itself: it may cap glibc's arenas (`GLIBC_TUNABLES=glibc.malloc.arena_max=2`
/// before it starts), pin the workers through `ImageService`'s `laneHooks`, and call
/// `service.manager.removeExpiredResults()` (the ``ImageService/manager``'s) and `malloc_trim`
/// when idle.
public struct ServerConfiguration: Sendable {
    /// How the service meets HTTP: listening, timeouts, connections, caching headers.
    public var http = HTTPSettings()
    /// How image URLs are read: signatures, presets, allowed options, client hints.
    public var urls = URLSettings()
    /// Which sources may be fetched, and their limits.
    public var security = SecuritySettings()
    /// Where sources come from: the web, a folder, object stores, the fallback image, videos.
    public var sources = SourceSettings()
    /// What is kept, where and for how long.
    public var cache = CacheSettings()
    /// What results are written as.
    public var output = OutputSettings()
    /// The watermark and the face search.
    public var drawing = DrawingSettings()
    /// Which formats are decoded in sandboxed worker processes.
    public var isolation = IsolationSettings()

    /// `IMAGO_WORKERS`: decodes, transforms and encodes at once. Default: the cores.
    public var workers: Int = WorkQueue.defaultConcurrency
    /// `IMAGO_QUEUE_SIZE`: requests that may wait beyond the workers; past
    /// `IMAGO_WORKERS + IMAGO_QUEUE_SIZE` requests in progress the answer is 429 with
    /// `Retry-After`. Default 0: no limit (as imgproxy's).
    public var queueSize: Int = 0
    /// `IMAGO_LOG_LEVEL`: the level of the access log and the warnings (imgproxy's `warn` and
    /// `fatal` read as `warning` and `critical`). Default `info`.
    public var logLevel: Logger.Level = .info
    /// `IMAGO_LOG_FORMAT`: `text` (swift-log's lines) or `json` (one object per line, see
    /// ``JSONLogHandler``); imgproxy's `pretty` and `structured` read as `text`, `gcp` as `json`.
    /// Default `text`.
    public var logFormat = "text"
    /// `IMAGO_OTEL_ENABLE`: export spans of every request's stages over OTLP (the `imago-server`
    /// executable sets the exporter up; an app embedding the service bootstraps its own tracer).
    /// Default `false`.
    public var otelEnabled = false
    /// `IMAGO_OTEL_ENDPOINT`: the OTLP/HTTP collector's base URL. Default `http://127.0.0.1:4318`.
    public var otelEndpoint = "http://127.0.0.1:4318"
    /// `IMAGO_OTEL_PROTOCOL`: `http/protobuf` (default) or `http/json`.
    public var otelProtocol = "http/protobuf"
    /// `IMAGO_OTEL_SERVICE_NAME`: the `service.name` spans carry. Default `imago-server`.
    public var otelServiceName = "imago-server"
    /// The defaults.
    public init() {}
    /// What reading the environment found worth saying: imgproxy settings without an
    /// equivalent, unknown `IMAGO_` settings (see ``migrate(_:)``). The executable logs them.
    public var warnings: [String] = []
}
