// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import Logging
import Metrics
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Downloads image bytes, one transfer per URL however many callers ask (SDWebImage's
/// `SDWebImageDownloader`, on AsyncHTTPClient and Swift concurrency). It moves bytes only:
/// decoding is `ImageManager`'s job.
///
/// - **Sharing.** Concurrent requests for the same URL (and the same headers, credentials,
///   timeouts and cached validators) share one transfer. Each caller gets its own events and
///   result. Cancelling one caller leaves the others running; the transfer stops when the last
///   one leaves.
/// - **Queue.** At most ``ImageDownloaderConfiguration/maxConcurrentDownloads`` transfers run;
///   the rest wait, highest priority first, then in FIFO or LIFO order. A transfer's priority is
///   its most urgent caller's, and changes while it waits (``ImageDownloadTask/priority``).
/// - **Validation.** Status codes and content types outside the acceptable sets fail; a 304
///   answers a conditional request with the cached bytes; a body over the size limit is refused
///   from its `Content-Length` before reading, or aborted while streaming past it; a body shorter
///   than its `Content-Length` fails.
/// - **Timeouts** (``ImageDownloadTimeouts``): to the response head, between body bytes, and for
///   the whole transfer, each failing with ``ImageLoadingError/timedOut(_:)``.
/// - **Retries and alternatives** (``ImageDownloadRetryPolicy``, none by default): transient
///   failures are tried again after a backoff, then ``ImageDownloadRequest/alternativeURLs`` in
///   order. A body cut short is kept (``ImageDownloaderConfiguration/resumableDataLimit``) and
///   the next attempt, or the next request for the URL, asks for the rest only (`Range` with
///   `If-Range`), as Nuke resumes downloads.
/// - **Progressive loading.** Callers that ask for it get every byte so far as
///   ``ImageDownloadEvent/partialData(_:)`` as pieces arrive, for their progressive decoder.
///   The pipeline's decoders read the bytes only when they are ready for another decode.
///
/// Events for any observer come from ``events()``; logs go to swift-log (label
/// `imago.downloader`), counts and timings to swift-metrics (`imago_downloads_started`,
/// `imago_downloads_finished`, `imago_downloads_failed`, `imago_download_bytes`,
/// `imago_download_duration`). Cookies are not handled.
public final class ImageDownloader: Sendable {
    /// The shared downloader, with the default configuration.
    public static let shared = ImageDownloader()

    /// The configuration, fixed at creation.
    public let configuration: ImageDownloaderConfiguration
    /// The loaders, tried in order for each URL.
    public let loaders: [any DataLoading]

    /// What a running transfer reports on the way.
    enum TransferEvent: Sendable {
        case progress(ImageDownloadProgress)
        /// More bytes arrived; progressive callers read them when they are ready.
        case partialData(ReceivedBytes)
    }

    struct TransferKey: Hashable, Sendable {
        var url: String
        var headers: [String: String]
        var credentials: DataLoadRequest.Credentials?
        var timeouts: ImageDownloadTimeouts?
        var allowsInvalidCertificates: Bool
        var cached: CachedResponse?
        var alternatives: [URL] = []
        var retryPolicy: ImageDownloadRetryPolicy?
    }

    typealias Transfers = SharedTasks<TransferKey, ImageDownloadResult, TransferEvent>

    private let transfers = Transfers(name: "download")
    private let slots: PriorityGate
    private let observers = Mutex<(next: Int, all: [Int: AsyncStream<ImageDownloaderEvent>.Continuation])>((0, [:]))
    private let httpLoader: HTTPDataLoader?
    let resumable: ResumableDownloads
    let logger = Logger(label: "imago.downloader")

    /// Creates a downloader.
    ///
    /// - Parameters:
    ///   - configuration: Default: an ``ImageDownloaderConfiguration`` with every setting at its default.
    ///   - loaders: Default: HTTP(S) through AsyncHTTPClient, `file` and `data` URLs.
    public init(configuration: ImageDownloaderConfiguration = ImageDownloaderConfiguration(), loaders: [any DataLoading]? = nil) {
        self.configuration = configuration
        resumable = ResumableDownloads(limit: configuration.resumableDataLimit)
        slots = PriorityGate(limit: configuration.maxConcurrentDownloads, order: configuration.executionOrder)
        if let loaders {
            self.loaders = loaders
            httpLoader = nil
        } else {
            let http = HTTPDataLoader(
                connectTimeout: configuration.timeouts.connect,
                maxConnectionsPerHost: max(8, configuration.maxConcurrentDownloads),
                proxies: configuration.proxies)
            self.loaders = [http, FileDataLoader(), DataURLLoader()]
            httpLoader = http
        }
    }

    /// Closes the HTTP connections of the default loader. Downloads after this fail.
    ///
    /// - Throws: AsyncHTTPClient's error when it was already shut down.
    public func shutdown() async throws {
        try await httpLoader?.shutdown()
    }

    // MARK: Public API

    /// Starts (or joins) the transfer for `request` and returns the caller's handle.
    public func task(for request: ImageDownloadRequest) -> ImageDownloadTask {
        let cell = PriorityCell(request.priority)
        return ImageDownloadTask(subscription: subscribe(request, priority: cell), priority: cell)
    }

    /// Joins the transfer for `request` with a priority that follows `priority` (a pipeline stage's).
    func subscribe(_ request: ImageDownloadRequest, priority: any PrioritySource, events: Bool = true) -> Transfers.Subscription {
        let key = TransferKey(
            url: request.url.absoluteString, headers: request.headers, credentials: request.credentials,
            timeouts: request.timeouts, allowsInvalidCertificates: request.allowsInvalidCertificates,
            cached: request.cachedResponse, alternatives: request.alternativeURLs, retryPolicy: request.retryPolicy)
        let progressive = request.progressive
        // The place in the queue is taken now, in the order callers ask, not when the transfer's
        // task first runs.
        let place = slots.reservePlace()
        var accepts: (@Sendable (TransferEvent) -> Bool)?
        if events {
            accepts = { event in
                if case .partialData = event { return progressive }
                return true
            }
        }
        return transfers.subscribe(key, priority: priority, accepts: accepts) { [self] context in
            try await self.run(request, place: place, context: context)
        }
    }

    /// Downloads `request` and returns its result, calling `progress` as bytes arrive and
    /// `partialData` with the bytes so far of a progressive request. Cancelling the calling
    /// task leaves the transfer to any other callers.
    ///
    /// - Throws: ``ImageLoadingError``.
    public func download(
        _ request: ImageDownloadRequest,
        progress: (@Sendable (ImageDownloadProgress) -> Void)? = nil,
        partialData: (@Sendable (Data) -> Void)? = nil
    ) async throws(ImageLoadingError) -> ImageDownloadResult {
        try await task(for: request).value(progress: progress, partialData: partialData)
    }

    /// A stream of every transfer's events, from now until the caller stops listening.
    public func events() -> AsyncStream<ImageDownloaderEvent> {
        let (stream, continuation) = AsyncStream<ImageDownloaderEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = observers.withLock { o -> Int in
            o.next += 1
            o.all[o.next] = continuation
            return o.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.all.removeValue(forKey: id) } }
        return stream
    }

    /// Transfers waiting for a slot, and transfers running now.
    package var activity: (queued: Int, running: Int) {
        let c = slots.counts
        return (c.waiting, c.holding)
    }

    // MARK: Running a transfer

    private func run(_ request: ImageDownloadRequest, place: Int, context: Transfers.Context) async throws -> ImageDownloadResult {
        try await slots.enter(priority: context, place: place)
        defer { slots.leave() }
        let url = request.url
        let start = ContinuousClock.now
        emit(.started(url))
        Metric.started.increment()
        logger.debug("download started", metadata: ["url": "\(url.absoluteString)"])
        do {
            let (data, response, notModified, source) = try await attempts(request, context: context)
            emit(.finished(url, bytes: data.count))
            Metric.finished.increment()
            Metric.bytes.increment(by: data.count)
            Metric.duration.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
            logger.debug("download finished", metadata: ["url": "\(source.absoluteString)", "bytes": "\(data.count)"])
            return ImageDownloadResult(url: source, data: data, response: response, notModified: notModified)
        } catch {
            let e = ImageLoadingError(error)
            emit(.failed(url, e))
            if e != .cancelled {
                Counter(label: "imago_downloads_failed", dimensions: [("transient", e.isTransient ? "yes" : "no")]).increment()
                logger.debug("download failed", metadata: ["url": "\(url.absoluteString)", "error": "\(e)"])
            }
            throw e
        }
    }

    /// The request's URL, then its alternatives, each tried as the retry policy allows; the
    /// bytes of an attempt cut short are kept to resume from. Returns the URL that answered.
    private func attempts(_ r: ImageDownloadRequest, context: Transfers.Context) async throws -> (Data, DataLoadResponse?, Bool, URL) {
        let policy = r.retryPolicy ?? configuration.retryPolicy
        var last: ImageLoadingError = .cancelled
        for url in [r.url] + r.alternativeURLs {
            var attempt = 1
            while true {
                let sink = TransferSink()
                do {
                    let (data, response, notModified) = try await perform(r, url: url, sink: sink, context: context)
                    return (data, response, notModified, url)
                } catch {
                    let e = ImageLoadingError(error)
                    if e == .cancelled || Task.isCancelled { throw ImageLoadingError.cancelled }
                    last = e
                    keepPartial(sink, url: url, cached: r.cachedResponse != nil)
                    guard e.isTransient, attempt < policy.maxAttempts else { break }
                    let retryAfter = sink.response?.headers["retry-after"].flatMap { Int(PathName.trimmed($0)) }.map { Duration.seconds($0) }
                    let delay = policy.delay(afterAttempt: attempt, retryAfter: retryAfter)
                    emit(.retrying(url, attempt: attempt, delay: delay, e))
                    logger.debug("download retried", metadata: ["url": "\(url.absoluteString)", "attempt": "\(attempt)", "error": "\(e)"])
                    do { try await Task.sleep(for: delay) } catch { throw ImageLoadingError.cancelled }
                    attempt += 1
                }
            }
        }
        throw last
    }

    /// Keeps what an attempt received, when its response allows resuming it.
    private func keepPartial(_ sink: TransferSink, url: URL, cached: Bool) {
        guard !cached, !sink.notModified, let head = sink.response, let validator = ResumableDownloads.validator(of: head) else { return }
        let data = sink.received.snapshot
        if let expected = sink.expectedLength, data.count >= expected { return }
        resumable.keep(data, validator: validator, for: url.absoluteString)
    }

    /// One attempt: modifier, loader, validation, progress, timeouts; a kept partial body of
    /// `url` asked for the rest of.
    private func perform(
        _ r: ImageDownloadRequest, url: URL, sink: TransferSink, context: Transfers.Context
    ) async throws -> (Data, DataLoadResponse?, Bool) {
        let request = try await outgoingRequest(r, url: url, sink: sink)
        guard let loader = loaders.first(where: { $0.canLoad(request.url) }) else {
            throw ImageLoadingError.unsupportedScheme(request.url.scheme ?? "")
        }
        try await transfer(request, with: loader, for: r, sink: sink, context: context)
        if sink.notModified {
            guard let cached = r.cachedResponse else { throw ImageLoadingError.notModifiedWithoutCachedData }
            return (cached.data, sink.response, true)
        }
        return (try finishedBody(sink, context: context), sink.response, false)
    }

    /// The request an attempt sends: the configured and the request's headers, the validators of
    /// a cached copy (else a range for a kept partial body), then the request modifier.
    private func outgoingRequest(_ r: ImageDownloadRequest, url: URL, sink: TransferSink) async throws -> DataLoadRequest {
        var request = DataLoadRequest(
            url: url, headers: configuration.headers, credentials: r.credentials,
            timeouts: r.timeouts ?? configuration.timeouts, maxRedirects: configuration.maxRedirects,
            allowsInvalidCertificates: r.allowsInvalidCertificates)
        for (name, value) in r.headers { request.setHeader(name, value) }
        if let cached = r.cachedResponse {
            if let etag = cached.etag { request.setHeader("If-None-Match", etag) }
            if let modified = cached.lastModified { request.setHeader("If-Modified-Since", modified) }
        } else if let kept = resumable.take(url.absoluteString) {
            // The rest only, and only if the resource is still the one the bytes came from.
            request.setHeader("Range", "bytes=\(kept.data.count)-")
            request.setHeader("If-Range", kept.validator)
            sink.resuming = kept
            emit(.resuming(url, offset: kept.data.count))
        }
        if let modifier = configuration.requestModifier {
            do { request = try await modifier(request) } catch let e as ImageLoadingError { throw e } catch {
                throw ImageLoadingError.rejected("request modifier: \(error)")
            }
        }
        return request
    }

    /// Runs the loader for `request` into `sink`, raced against the attempt's timeouts; a
    /// connection lost mid-body says how much of the declared length arrived.
    private func transfer(
        _ request: DataLoadRequest, with loader: any DataLoading, for r: ImageDownloadRequest, sink: TransferSink,
        context: Transfers.Context
    ) async throws {
        let timer = TransferTimer(request.timeouts)
        let progress = ProgressThrottle(interval: configuration.progressInterval)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [self] in
                    try await loader.load(
                        request,
                        response: { head in
                            try self.accept(head, request: r, sink: sink, timer: timer)
                        },
                        chunk: { piece in
                            try self.receive(piece, url: r.url, sink: sink, timer: timer, progress: progress, context: context)
                        })
                }
                group.addTask { try await timer.watch() }
                try await group.next()
                group.cancelAll()
            }
        } catch ImageLoadingError.connectionFailed(_, transient: true)
            where
            sink.expectedLength.map({ sink.received.count < $0 }) == true
        {
            throw ImageLoadingError.truncatedBody(received: sink.received.count, expected: sink.expectedLength ?? 0)
        }
    }

    /// The body received, checked whole and not empty, through the body transform; sends the
    /// final progress event, whatever the throttle said.
    private func finishedBody(_ sink: TransferSink, context: Transfers.Context) throws -> Data {
        var data = sink.received.snapshot
        if let expected = sink.expectedLength, data.count < expected {
            throw ImageLoadingError.truncatedBody(received: data.count, expected: expected)
        }
        guard !data.isEmpty else { throw ImageLoadingError.emptyBody }
        let receivedCount = data.count
        if let transform = configuration.bodyTransform {
            do { data = try transform(data, sink.response) } catch {
                throw ImageLoadingError.rejected("body transform: \(error)")
            }
        }
        context.send(.progress(ImageDownloadProgress(receivedBytes: receivedCount, expectedBytes: sink.expectedLength)))
        return data
    }

    /// Validates the response head.
    private func accept(_ head: DataLoadResponse, request: ImageDownloadRequest, sink: TransferSink, timer: TransferTimer) throws {
        timer.headArrived()
        var head = head
        if let modifier = configuration.responseModifier {
            do { head = try modifier(head) } catch let e as ImageLoadingError { throw e } catch {
                throw ImageLoadingError.rejected("response modifier: \(error)")
            }
        }
        sink.response = head
        emit(.receivedResponse(request.url, statusCode: head.statusCode))
        if head.statusCode == 304, request.cachedResponse != nil {
            sink.notModified = true
            return
        }
        if let kept = sink.resuming {
            if head.statusCode == 206 {
                // The rest of the same bytes: it must start where the kept part ends.
                guard let range = Self.contentRange(head.headers["content-range"]), range.start == kept.data.count,
                    head.headers["content-encoding"].map({ PathName.trimmed($0).lowercased() == "identity" }) ?? true
                else { throw ImageLoadingError.connectionFailed("the server answered another range than the rest asked for", transient: true) }
                sink.expectedTotal = range.total ?? head.expectedContentLength.map { kept.data.count + $0 }
                sink.received.append(kept.data)
            } else {
                // The resource changed (or ranges are not served): the whole body follows.
                sink.resuming = nil
            }
        }
        guard configuration.acceptableStatusCodes.contains(head.statusCode) else {
            throw ImageLoadingError.unacceptableStatusCode(head.statusCode)
        }
        if let types = configuration.acceptableContentTypes, !types.contains(head.mimeType ?? "") {
            throw ImageLoadingError.unacceptableContentType(head.mimeType)
        }
        if let declared = sink.expectedLength, declared > configuration.maxBodyBytes {
            throw ImageLoadingError.bodyTooLarge(limit: configuration.maxBodyBytes, declared: declared)
        }
        if let declared = sink.expectedLength, declared > 0 { sink.received.reserve(declared) }
    }

    /// Takes a piece of the body: limit, progress, partial bytes.
    private func receive(
        _ piece: Data, url: URL, sink: TransferSink, timer: TransferTimer, progress: ProgressThrottle,
        context: Transfers.Context
    ) throws {
        timer.bytesArrived()
        if sink.notModified { return }
        let count = sink.received.count + piece.count
        guard count <= configuration.maxBodyBytes else {
            throw ImageLoadingError.bodyTooLarge(limit: configuration.maxBodyBytes, declared: nil)
        }
        sink.received.append(piece)
        context.send(.partialData(sink.received))
        guard progress.due() else { return }
        let p = ImageDownloadProgress(receivedBytes: count, expectedBytes: sink.expectedLength)
        emit(.progress(url, p))
        context.send(.progress(p))
    }

    /// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
    static func contentRange(_ value: String?) -> (start: Int, end: Int, total: Int?)? {
        guard let value, let rest = PathName.trimmed(value).split(separator: " ", maxSplits: 1).last,
            PathName.trimmed(value).lowercased().hasPrefix("bytes ")
        else { return nil }
        let parts = rest.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int(bounds[0]), let end = Int(bounds[1]), start >= 0, end >= start else { return nil }
        if parts[1] == "*" { return (start, end, nil) }
        guard let total = Int(parts[1]), total > end else { return nil }
        return (start, end, total)
    }

    private func emit(_ event: ImageDownloaderEvent) {
        let targets = observers.withLock { Array($0.all.values) }
        for continuation in targets { continuation.yield(event) }
    }

    /// The download metrics, made once: swift-metrics hands out a new handle per call otherwise.
    private enum Metric {
        static let started = Counter(label: "imago_downloads_started")
        static let finished = Counter(label: "imago_downloads_finished")
        static let bytes = Counter(label: "imago_download_bytes")
        static let duration = Metrics.Timer(label: "imago_download_duration")
    }
}
