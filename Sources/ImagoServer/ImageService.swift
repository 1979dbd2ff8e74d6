// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import Hummingbird
import ImagoCache
import ImagoCoders
public import ImagoCore
public import ImagoLoading
import ImagoServiceURL
public import Logging
import NIOCore
public import Prometheus
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The image service: answers imgproxy-style URLs with processed images, independent of the
/// HTTP server in front of it. ``respond(method:path:headers:)`` takes a request's method, raw
/// path and headers and returns the whole response; ``addRoutes(to:at:operations:middleware:)`` mounts it in a
/// Hummingbird router, and ``ImageServer`` runs it as `imago-server`.
///
/// ```swift
/// var configuration = try ServerConfiguration(environment: ProcessInfo.processInfo.environment)
/// configuration.security.allowedSources = ["https://images.example.com/*"]
/// let service = try ImageService(configuration: configuration)
/// let response = await service.respond(method: .get, path: "/_/rs:fit:300:300/plain/https://images.example.com/a.jpg@webp",
///                                      headers: [:])
/// ```
///
/// A request goes: authorization (`IMAGO_SECRET`), the path's shape, the signature, the
/// options, the source's bytes (the disk cache, else one download shared by every request for
/// that source), the header checks against the limits, the `If-None-Match` check, then one
/// decode, transform and encode shared by every identical request in flight. Each failure is a
/// ``ServiceError`` with its status; nothing a client or a source sends gives a 500.
public final class ImageService: Sendable {
    /// The settings, fixed at creation.
    public let configuration: ServerConfiguration
    /// The metrics `/metrics` serves.
    public let metrics: ServiceMetrics
    /// Loads sources: coalesced downloads into the disk cache of originals, and the decodes.
    public let manager: ImageManager
    let signer: URLSigner?
    let logger: Logger
    let coders: ImageCoderRegistry
    let workers: WorkQueue
    let httpLoader: HTTPDataLoader
    let fileReads: WorkQueue
    /// What render plans are decided with.
    let render: RenderPlan.Settings
    /// The watermark images (`IMAGO_WATERMARK_*`).
    let watermarks: WatermarkStore
    /// Requests past parsing, for `IMAGO_QUEUE_SIZE`.
    let admitted: ServiceAdmission
    /// AVIF made in the background (`IMAGO_AVIF_LATER`).
    let backgroundEncodes: BackgroundEncodes
    /// Requests received so far: the heap trimmer's sign of work since its last trim.
    let requestsReceived = Atomic<Int>(0)
    /// The open connections of ``ImageServer`` (or of a server given ``clientWatchHandlers()``).
    let connections = ClientConnections()
    /// The connections waiting for a request head, and their limits (``ConnectionLimits``), for
    /// ``clientWatchHandlers()``.
    let waitingConnections: WaitingConnections
    /// The routes ``respond(method:path:headers:)`` answers through, built on first use.
    let inProcessRoutes = Mutex<RouterResponder<InProcessRequestContext>?>(nil)
    /// Renders started (decodes, transforms and encodes in the pipeline's encode stage): what
    /// the coalescing tests count.
    package var renderCount: Int { manager.encodeCounts.started }
    /// Renders that streamed from decoder to encoder in rows (tests read it).
    package var streamedRenderCount: Int { manager.encodeCounts.streamed }

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - configuration: The settings; ``ServerConfiguration/init()`` holds the defaults.
    ///   - logger: Where access-log lines and warnings go. Default: label `imago.server`.
    ///   - resolver: Resolves source host names before the address check. Default
    ///     `SystemHostResolver`; tests give a table.
    ///   - metricsRegistry: Where ``metrics`` are kept. Default: a registry of its own; pass the
    ///     one swift-metrics was bootstrapped with to serve the library's metrics beside them.
    ///   - laneHooks: What each worker thread does around its work: pinning it to a CPU
    ///     (as `imago-server` does for `IMAGO_WORKER_AFFINITY`), say, which is the process's decision. Default `nil`:
    ///     the workers are left to the scheduler.
    /// - Throws: ``ConfigurationError`` for unusable keys or salts, or a cache directory that
    ///   cannot be opened.
    public convenience init(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "imago.server"),
        resolver: any HostResolving = SystemHostResolver(),
        metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        laneHooks: WorkQueue.LaneHooks? = nil
    ) throws(ConfigurationError) {
        try self.init(
            configuration: configuration, logger: logger, resolver: resolver, metricsRegistry: metricsRegistry, connector: nil,
            laneHooks: laneHooks)
    }

    /// Creates a service whose downloads connect through `connector` (tests count attempts).
    package init(
        configuration: ServerConfiguration, logger: Logger, resolver: any HostResolving,
        metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        connector: (any HTTPConnecting)?, laneHooks: WorkQueue.LaneHooks? = nil
    ) throws(ConfigurationError) {
        self.configuration = configuration
        self.logger = logger
        if let keys = configuration.urls.keys {
            do {
                signer = try URLSigner(keyList: keys, saltList: configuration.urls.salts ?? "", signatureSize: configuration.urls.signatureSize)
            } catch {
                throw ConfigurationError(variable: "IMAGO_KEY", reason: "\(error)")
            }
        } else {
            signer = nil
        }
        workers = WorkQueue(label: "imago.server.workers", maxConcurrentCount: configuration.workers, laneHooks: laneHooks)
        admitted = ServiceAdmission(limit: configuration.queueSize > 0 ? configuration.workers + configuration.queueSize : nil)
        fileReads = WorkQueue(label: "imago.server.files", maxConcurrentCount: 4)
        // One worker stays free for the requests waiting on it.
        backgroundEncodes = BackgroundEncodes(limit: configuration.workers - 1, logger: logger)
        waitingConnections = WaitingConnections(limits: configuration.http.connectionLimits(openFiles: ConnectionLimits.openFilesLimit))

        let pipeline = try ServicePipeline(
            settings: configuration.pipelineSettings, resolver: resolver, connector: connector, workers: workers,
            onDecoderEvent: Self.decoderEventLogger(logger))
        httpLoader = pipeline.httpLoader
        manager = pipeline.manager
        // Every decode the service makes, the pipeline's and its own (watermarks, info), goes
        // through the pipeline's registry, whose isolated formats run in the workers.
        coders = pipeline.manager.configuration.coders
        let counted = pipeline.manager
        metrics = ServiceMetrics(
            registry: metricsRegistry, queue: workers, rendersWaiting: { counted.renderCounts.waiting },
            isolation: { counted.configuration.coders.isolationStatistics }
        ) {
            (counted.sharedResultHits, counted.sharedSourceHits, counted.sharedUploadsInFlight, counted.reusedDecodeCount)
        }
        render = configuration.renderSettings
        watermarks = try WatermarkStore(drawing: configuration.drawing, limits: manager.configuration.decodingLimits, coders: coders)
        if !configuration.isolation.isAvailable {
            let note = "this program does not call DecoderWorker.runIfRequested() and names no IMAGO_ISOLATION_WORKER"
            logger.warning("IMAGO_ISOLATED_FORMATS: \(note); every format is decoded in its own process")
        }
        if signer == nil {
            logger.warning("no IMAGO_KEY: URLs are not signed, and any signature segment is accepted")
        }
    }

    /// Stops the background encodes, writes the caches' pending entries and closes the HTTP
    /// clients. Call it once,
    /// when the service will answer no more requests.
    public func shutdown() async {
        await backgroundEncodes.finish()
        await manager.finishPendingStores()
        try? await httpLoader.shutdown()
    }

    // MARK: Answering

    /// Answers one request, cancelling its work if `client` goes away first (the deadline
    /// middleware then answers 499, which only the log and metrics see).
    ///
    /// - Throws: ``ServiceError`` for every refusal and failure.
    func handle(
        method: HTTPRequest.Method, path: String, headers: HTTPFields, authority: String? = nil, client: ClientConnection?
    ) async throws -> ServiceResponse {
        guard let client else { return try await handle(method: method, path: path, headers: headers, authority: authority) }
        let work = Task { try await self.handle(method: method, path: path, headers: headers, authority: authority) }
        let token = client.onGone { work.cancel() }
        defer { client.remove(token) }
        do {
            return try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                work.cancel()
            }
        } catch  where client.isGone {
            // Whatever the cancelled work threw on its way out, the client left first.
            throw ServiceError.clientClosedRequest
        }
    }

    /// The service's own work for one request, past the middleware: the path's shape, the
    /// signature, the options, the source, then the answer. Records the source's host in
    /// ``ServiceRequestScope`` for the access log. `authority` is the host the client asked
    /// (what its cookies belong to, with `IMAGO_COOKIE_PASSTHROUGH`).
    ///
    /// - Throws: ``ServiceError`` for every refusal and failure.
    func handle(method: HTTPRequest.Method, path: String, headers: HTTPFields, authority: String? = nil) async throws -> ServiceResponse {
        requestsReceived.add(1, ordering: .relaxed)
        guard method == .get || method == .head else {
            throw ServiceError(.methodNotAllowed, "only GET and HEAD are served")
        }
        // Browsers and crawlers ask for these; they are not images (imgproxy answers 404 too).
        if path == "/favicon.ico" || path.hasPrefix("/.well-known/") { throw ServiceError.notFound }
        let (parsed, options) = try Self.parseRequest(path: path, headers: headers, urls: configuration.urls, signer: signer)
        try admitted.enter()
        defer { admitted.leave() }
        // The source first (a cached one is only opened); then, in turn, the render.
        let sourceURL = configuration.sources.resolveSource(parsed.source)
        let cookies = ClientCookies(headers: headers, authority: authority, settings: configuration.sources)
        var (source, failure) = try await sourceOrFallback(sourceURL, options: options, cookies: cookies)
        if failure == nil { ServiceRequestScope.current?.sourceHost = source.host }
        // A video's frame stands in for it (imgproxy Pro's video thumbnails).
        if !parsed.isInfo, let frame = try await videoFrameSource(source, options: options) { source = frame }
        // A render waits for one of the pipeline's render slots (workers + 1, so waiting
        // requests hold nothing but their path and an open source file); a stored result does not.
        let infoOptions: InfoOptions?
        do {
            infoOptions = parsed.isInfo ? try InfoOptions(parsing: parsed.options, argumentSeparator: configuration.urls.argumentsSeparator) : nil
        } catch {
            throw ServiceError(error)
        }
        var (response, answeredFrom) = try await answerOrFallback(
            source, failure: &failure, options: options, info: infoOptions, headers: headers)
        if let failure { markFallback(&response, failure: failure) }
        if !parsed.isInfo {
            if let link = canonicalLink(to: sourceURL, status: response.status) { response.headers[.link] = link }
            if !options.raw { addDebugHeaders(&response, origin: answeredFrom) }
        }
        if method == .head { response.body = .bytes(ByteBuffer()) }
        return response
    }

    /// `path` read as the service reads it, in its order: the path's shape, the signature (with
    /// `signer`; without one, any signature but one that looks like an option), the allowed
    /// options, the options (client hints first, then presets and the URL's), the extension's
    /// format and the expiry.
    ///
    /// - Throws: ``ServiceError`` for every refusal.
    static func parseRequest(
        path: String, headers: HTTPFields, urls: URLSettings, signer: URLSigner?
    ) throws -> (parsed: ServicePath, options: ProcessingOptions) {
        do {
            let separator = urls.argumentsSeparator
            let parsed = try ServicePath(
                parsing: path, onlyPresets: urls.onlyPresets, argumentSeparator: separator,
                base64URLIncludesFilename: urls.base64URLIncludesFilename)
            if let signer {
                if !signer.verify(parsed.signature, for: parsed.signedPath) { throw ServiceURLError.invalidSignature }
            } else if parsed.signature.contains(separator) {
                // Without keys any signature segment is accepted, but an option where it should
                // be means the client left it out: its first option would silently vanish.
                throw ServiceError(
                    .signatureMissing,
                    "the signature segment looks like a processing option; the path is /{signature}/{options}/{source}")
            }
            // `/info` has options of its own; those it shares with processing are read as such.
            let segments =
                parsed.isInfo ? try InfoOptions(parsing: parsed.options, argumentSeparator: separator).sharedSegments : parsed.options
            if !urls.allowedProcessingOptions.isEmpty, !urls.onlyPresets, !parsed.isInfo {
                for segment in parsed.options {
                    let name = ProcessingOptions.split(segment, separator: separator)[0]
                    if !urls.allowedProcessingOptions.contains(name) { throw ServiceURLError.forbiddenOption(name) }
                }
            }
            let hints = urls.enableClientHints ? ClientHints(headers).options : ProcessingOptions()
            var options = try ProcessingOptions(
                parsing: segments, presets: urls.presets,
                allowSecurityOptions: urls.allowSecurityOptions, startingFrom: hints, argumentSeparator: separator)
            if let ext = parsed.extensionName, !options.raw {
                guard let format = ImageFormat(serviceExtension: ext) else {
                    throw ServiceURLError.invalidArgument(option: "extension", reason: "'\(ext)' is not an image format")
                }
                options.format = format
            }
            if let expires = options.expires, expires < Int64(Date().timeIntervalSince1970) { throw ServiceURLError.expired(at: expires) }
            return (parsed, options)
        } catch let error as ServiceURLError {
            throw ServiceError(error)
        }
    }

    /// Requests received so far: a number that changed since it was last read means work
    /// happened (a heap trimmer's sign, say).
    public var activity: Int { requestsReceived.load(ordering: .relaxed) }

    /// Whether no request is past parsing and no worker is busy or awaited: the moment for a
    /// process to return freed memory to the system.
    public var isIdle: Bool {
        let counts = workers.counts
        return admitted.count == 0 && counts.waiting == 0 && counts.running == 0 && manager.renderCounts.holding == 0
    }
}
