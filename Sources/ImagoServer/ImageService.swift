#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCache
import ImagoCoders
import ImagoCore
public import ImagoLoading
import ImagoServiceURL
public import HTTPTypes
import Synchronization
public import Logging
public import Prometheus

/// The image service: answers imgproxy-style URLs with processed images, independent of the
/// HTTP server in front of it. ``respond(method:path:headers:)`` takes a request's method, raw
/// path and headers and returns the whole response; ``addRoutes(to:at:operations:)`` mounts it in a
/// Hummingbird router, and ``ImageServer`` runs it as `imago-server`.
///
/// ```swift
/// var configuration = try ServerConfiguration(environment: ProcessInfo.processInfo.environment)
/// configuration.allowedSources = ["https://images.example.com/*"]
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
    /// The CPU of each worker, when they are pinned (`IMAGO_WORKER_AFFINITY`).
    let pinning: WorkerPinning?
    /// Requests holding a source's bytes and rendering: one more than the workers (one reads its
    /// source or writes its answer while the others keep the workers busy), so that waiting
    /// requests hold nothing but their path (the resident size does not grow with the queue).
    let renderSlots: PriorityGate
    let httpLoader: HTTPDataLoader
    let fileReads: WorkQueue
    /// Requests past parsing, for `IMAGO_QUEUE_SIZE`.
    let admitted = Mutex(0)
    /// Requests received so far: the heap trimmer's sign of work since its last trim.
    let requestsReceived = Atomic<Int>(0)
    /// The open connections of ``ImageServer`` (or of a server given ``clientWatchHandlers()``).
    let connections = ClientConnections()
    /// Renders started (decodes, transforms and encodes in the pipeline's encode stage): what
    /// the coalescing tests count.
    package var renderCount: Int { manager.encodeCounts.started }
    /// Renders that streamed from decoder to encoder in rows (tests read it).
    package var streamedRenderCount: Int { manager.encodeCounts.streamed }

    /// The version in every `ETag`: a new Imago may render differently.
    static let version = "imago-0.1"

    /// Creates a service.
    ///
    /// - Parameters:
    ///   - configuration: The settings; ``ServerConfiguration/init()`` holds the defaults.
    ///   - logger: Where access-log lines and warnings go. Default: label `imago.server`.
    ///   - resolver: Resolves source host names before the address check. Default
    ///     `SystemHostResolver`; tests give a table.
    ///   - metricsRegistry: Where ``metrics`` are kept. Default: a registry of its own; pass the
    ///     one swift-metrics was bootstrapped with to serve the library's metrics beside them.
    /// - Throws: ``ConfigurationError`` for unusable keys or salts, or a cache directory that
    ///   cannot be opened.
    public convenience init(configuration: ServerConfiguration, logger: Logger = Logger(label: "imago.server"),
                            resolver: any HostResolving = SystemHostResolver(),
                            metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) throws(ConfigurationError) {
        try self.init(configuration: configuration, logger: logger, resolver: resolver, metricsRegistry: metricsRegistry, connector: nil)
    }

    /// Creates a service whose downloads connect through `connector` (tests count attempts).
    package init(configuration: ServerConfiguration, logger: Logger, resolver: any HostResolving,
                 metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
                 connector: (any HTTPConnecting)?) throws(ConfigurationError) {
        self.configuration = configuration
        self.logger = logger
        if let keys = configuration.keys {
            do {
                signer = try URLSigner(keyList: keys, saltList: configuration.salts ?? "", signatureSize: configuration.signatureSize)
            } catch {
                throw ConfigurationError(variable: "IMAGO_KEY", reason: "\(error)")
            }
        } else {
            signer = nil
        }
        coders = .shared
        pinning = WorkerPinning.plan(configuration.workerAffinity, workers: configuration.workers, allowed: WorkerPinning.allowedCPUs)
        workers = WorkQueue(label: "imago.server.workers", maxConcurrentCount: configuration.workers, laneHooks: pinning?.laneHooks)
        renderSlots = PriorityGate(limit: configuration.workers + 1)
        fileReads = WorkQueue(label: "imago.server.files", maxConcurrentCount: 4)
        metrics = ServiceMetrics(registry: metricsRegistry, queue: workers, slots: renderSlots)

        let allowed = configuration.allowedSources
        let sourceGuard = SourceGuard(
            policy: AddressPolicy(allowsLoopback: configuration.allowLoopbackSources, allowsPrivate: configuration.allowPrivateSources,
                                  allowsLinkLocal: configuration.allowLinkLocalSources),
            resolver: resolver,
            permitsURL: { url in SourcePattern.permits(url.absoluteString, patterns: allowed) })
        let timeouts = ImageDownloadTimeouts(connect: configuration.downloadTimeout, read: configuration.downloadTimeout,
                                             total: configuration.downloadTimeout)
        let http = HTTPDataLoader(connectTimeout: configuration.downloadTimeout, sourceGuard: sourceGuard, connector: connector)
        httpLoader = http
        let headers = ["Accept": ImageDownloaderConfiguration.defaultAccept, "User-Agent": "imago-server/0.1"]
        let downloader = ImageDownloader(
            configuration: ImageDownloaderConfiguration(maxConcurrentDownloads: max(8, configuration.workers * 4), timeouts: timeouts,
                                                        headers: headers, maxRedirects: configuration.maxRedirects,
                                                        maxBodyBytes: configuration.maxSourceFileSize),
            loaders: [http])
        var cache: DiskCache?
        if configuration.cacheSize > 0 {
            let directory = configuration.cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DiskCache.defaultDirectory
            do {
                cache = try DiskCache(directory: directory,
                                      configuration: DiskCache.Configuration(namespace: "sources", maxAge: nil, maxSize: configuration.cacheSize,
                                                                             // Sources are mapped, not copied: no page faults
                                                                             // or copy per request, and their pages are
                                                                             // the page cache's, not the process's.
                                                                             mappingThreshold: 64 << 10))
            } catch {
                throw ConfigurationError(variable: "IMAGO_CACHE_DIR", reason: "the source cache cannot be opened: \(error)")
            }
        }
        var managed = ImageManager.Configuration(
            memoryCache: nil, dataCache: cache, downloader: downloader, coders: .shared, processingQueue: workers,
            decodingLimits: DecodingLimits(maxPixels: Int(configuration.maxSourceResolution * 1_000_000),
                                           maxFrames: configuration.maxAnimationFrames,
                                           maxTotalFramePixels: Int(configuration.maxAnimationPixels * 1_000_000),
                                           maxBytes: configuration.maxSourceFileSize,
                                           // imgproxy's max_src_resolution bounds the source as declared,
                                           // however small the decode.
                                           maxSourcePixels: Int(configuration.maxSourceResolution * 1_000_000)))
        // Results made in the last moments, so requests that straggle in just after a render
        // finished (a client's next connection, a CDN's second miss) still share it.
        managed.resultRetention = .init(costLimit: 32 << 20, ageLimit: .seconds(2))
        managed.streamsConversions = configuration.streamsConversions
        manager = ImageManager(configuration: managed)
        if signer == nil {
            logger.warning("no IMAGO_KEY: URLs are not signed, and any signature segment is accepted")
        }
    }

    /// Writes the source cache's pending entries and closes the HTTP clients. Call it once,
    /// when the service will answer no more requests.
    public func shutdown() async {
        await manager.finishPendingStores()
        try? await httpLoader.shutdown()
    }

    // MARK: Answering

    /// Answers one request.
    ///
    /// - Parameters:
    ///   - method: `GET` or `HEAD`; others get 405.
    ///   - path: The request target's path as it arrived (still percent-encoded), without the
    ///     prefix the service is mounted under. The signature covers it byte for byte.
    ///   - headers: The request's headers (`Accept`, `If-None-Match`, `Authorization`,
    ///     `X-Request-ID` are read).
    /// - Returns: The response; errors are responses too, with a JSON body
    ///   `{"error", "message", "requestId"}` and `Cache-Control: no-store`.
    public func respond(method: HTTPRequest.Method, path: String, headers: HTTPFields) async -> ServiceResponse {
        await respond(method: method, path: path, headers: headers, client: nil)
    }

    /// Answers one request, cancelling its work if `client` goes away first: its answer is
    /// then 499 (nginx's "client closed request"), which only the log and metrics see.
    func respond(method: HTTPRequest.Method, path: String, headers: HTTPFields, client: ClientConnection?) async -> ServiceResponse {
        guard let client else { return await respondNow(method: method, path: path, headers: headers) }
        let work = Task { await self.respondNow(method: method, path: path, headers: headers) }
        let token = client.onGone { work.cancel() }
        defer { client.remove(token) }
        return await withTaskCancellationHandler { await work.value } onCancel: { work.cancel() }
    }

    /// ``respond(method:path:headers:)``'s body: the deadline, the error responses, the
    /// common headers, the metrics and the access log.
    private func respondNow(method: HTTPRequest.Method, path: String, headers: HTTPFields) async -> ServiceResponse {
        let started = ContinuousClock.now
        let requestID = Self.requestID(from: headers[.xRequestID])
        requestsReceived.add(1, ordering: .relaxed)
        metrics.requestStarted()
        var sourceHost = "-"
        var response: ServiceResponse
        do {
            let (r, host) = try await withDeadline(configuration.requestTimeout) { [self] in
                try await self.handle(method: method, path: path, headers: headers)
            }
            response = r
            sourceHost = host ?? "-"
        } catch _ where Task.isCancelled {
            response = errorResponse(.clientClosedRequest, requestID: requestID)
        } catch let error as ServiceError {
            response = errorResponse(error, requestID: requestID)
        } catch {
            response = errorResponse(ServiceError(status: 500, code: "internal", message: "internal error"), requestID: requestID)
            logger.error("unexpected error", metadata: ["request_id": "\(requestID)", "error": "\(error)"])
        }
        response.headers[.xRequestID] = requestID
        response.headers[.xContentTypeOptions] = "nosniff"
        if method == .head { response.body = Data() }
        let elapsed = ContinuousClock.now - started
        metrics.requestFinished(status: response.status.code, duration: elapsed)
        logger.info("\(method.rawValue) \(response.status.code)", metadata: [
            "request_id": "\(requestID)", "status": "\(response.status.code)",
            "duration_ms": "\(Int((elapsed / .milliseconds(1)).rounded()))",
            "source_host": "\(sourceHost)", "path": "\(path.prefix(300))",
        ])
        return response
    }

    /// The whole pipeline of one request, without its deadline. Returns the response and the
    /// source's host, for the access log.
    private func handle(method: HTTPRequest.Method, path: String, headers: HTTPFields) async throws -> (ServiceResponse, String?) {
        guard method == .get || method == .head else {
            throw ServiceError(status: 405, code: "method_not_allowed", message: "only GET and HEAD are served")
        }
        try authorize(headers)
        let parsed: ServicePath
        let options: ProcessingOptions
        do {
            parsed = try ServicePath(parsing: path)
            if let signer, !signer.verify(parsed.signature, for: parsed.signedPath) { throw ServiceURLError.invalidSignature }
            var o = try ProcessingOptions(parsing: parsed.options, presets: configuration.presets,
                                          allowSecurityOptions: configuration.allowSecurityOptions)
            if let ext = parsed.extensionName {
                guard let format = ImageFormat(serviceExtension: ext) else {
                    throw ServiceURLError.invalidArgument(option: "extension", reason: "'\(ext)' is not an image format")
                }
                o.format = format
            }
            if let expires = o.expires, expires < Int64(Date().timeIntervalSince1970) { throw ServiceURLError.expired(at: expires) }
            options = o
        } catch let error as ServiceURLError {
            throw ServiceError(error)
        }
        try admit()
        defer { admitted.withLock { $0 -= 1 } }
        // The source first (a cached one is only opened); then, in turn, the render.
        let source = try await loadSource(parsed.source, options: options)
        try await renderSlots.enter(priority: PriorityCell(.normal))
        defer { renderSlots.leave() }
        let response = try await answer(source: source, options: options, info: parsed.isInfo, headers: headers)
        return (response, source.host)
    }

    /// Requests received so far (a changing number means work happened).
    var activity: Int { requestsReceived.load(ordering: .relaxed) }

    /// No request is past parsing and no worker is busy or awaited.
    var isIdle: Bool {
        let counts = workers.counts
        return admitted.withLock { $0 } == 0 && counts.waiting == 0 && counts.running == 0 && renderSlots.counts.holding == 0
    }

    /// Counts the request in, or refuses it with 429 when `IMAGO_WORKERS + IMAGO_QUEUE_SIZE`
    /// requests are already past parsing.
    private func admit() throws(ServiceError) {
        let limit = configuration.queueSize > 0 ? configuration.workers + configuration.queueSize : Int.max
        let accepted = admitted.withLock { n -> Bool in
            guard n < limit else { return false }
            n += 1
            return true
        }
        guard accepted else { throw .queueFull }
    }

    /// Checks `Authorization: Bearer` against `IMAGO_SECRET`, in constant time.
    private func authorize(_ headers: HTTPFields) throws(ServiceError) {
        guard let secret = configuration.secret else { return }
        let given = headers[.authorization] ?? ""
        let expected = "Bearer \(secret)"
        guard ConstantTime.equals(given, expected) else { throw .invalidSecret }
    }

    /// An incoming `X-Request-ID` when it is short printable ASCII, else a new random one.
    static func requestID(from header: String?) -> String {
        if let h = header, !h.isEmpty, h.utf8.count <= 128, h.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { return h }
        var g = SystemRandomNumberGenerator()
        return String(g.next() as UInt64, radix: 16, uppercase: false)
    }

    /// Runs `body`, failing with 503 ``ServiceError/requestTimeout`` after `limit`.
    private func withDeadline<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw ServiceError.requestTimeout
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw ServiceError.requestTimeout }
            return first
        }
    }
}

/// Constant-time comparison of secrets.
enum ConstantTime {
    static func equals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return diff == 0
    }
}
