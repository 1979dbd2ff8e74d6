#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ImagoCore
import ImagoCoders
import Logging
import Metrics
import Synchronization

/// Downloads images, one transfer per URL however many callers ask (SDWebImage's
/// `SDWebImageDownloader`, on AsyncHTTPClient and Swift concurrency).
///
/// - **Sharing.** Concurrent requests for the same URL (and the same headers, credentials and
///   cached validators) share one transfer. Each caller gets its own progress, partial images
///   and result, decoded with its own ``ImageDownloadRequest/decodeOptions``; callers with equal
///   options share one decode. Cancelling one caller leaves the others running; the transfer
///   stops when the last one leaves.
/// - **Queue.** At most ``ImageDownloaderConfiguration/maxConcurrentDownloads`` transfers run;
///   the rest wait, highest priority first, then in FIFO or LIFO order. A transfer's priority is
///   its most urgent caller's, and changes while it waits (``ImageDownloadTask/setPriority(_:)``).
/// - **Validation.** Status codes and content types outside the acceptable sets fail; a 304
///   answers a conditional request with the cached bytes; a body over the size limit is refused
///   from its `Content-Length` before reading, or aborted while streaming past it; a body shorter
///   than its `Content-Length` fails.
/// - **Timeouts** (``ImageDownloadTimeouts``): to the response head, between body bytes, and for
///   the whole transfer, each failing with ``ImageLoadingError/timedOut(_:)``.
/// - **Progressive loading.** For progressive requests, partial images are decoded while bytes
///   arrive, at most one decode in flight per transfer (newer bytes replace older ones waiting),
///   delivered in order before the result. The final image is a one-shot decode of all the bytes.
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

    private let state = Mutex(State())
    private let observers = Mutex<[Int: AsyncStream<ImageDownloaderEvent>.Continuation]>([:])
    private let httpLoader: HTTPDataLoader?
    let logger = Logger(label: "imago.downloader")

    /// Creates a downloader.
    ///
    /// - Parameters:
    ///   - configuration: Default ``ImageDownloaderConfiguration/init(maxConcurrentDownloads:executionOrder:timeouts:headers:acceptableStatusCodes:acceptableContentTypes:maxRedirects:maxBodyBytes:progressInterval:requestModifier:responseModifier:bodyTransform:coders:)``'s defaults.
    ///   - loaders: Default: HTTP(S) through AsyncHTTPClient, `file` and `data` URLs.
    public init(configuration: ImageDownloaderConfiguration = ImageDownloaderConfiguration(), loaders: [any DataLoading]? = nil) {
        self.configuration = configuration
        if let loaders {
            self.loaders = loaders
            httpLoader = nil
        } else {
            let http = HTTPDataLoader(connectTimeout: configuration.timeouts.connect,
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
        let (stream, continuation) = AsyncThrowingStream<ImageDownloadEvent, any Error>.makeStream(bufferingPolicy: .unbounded)
        let ids = subscribe(request, continuation: continuation)
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(transfer: ids.transfer, subscriber: ids.subscriber) }
        return ImageDownloadTask(events: stream, downloader: self, transfer: ids.transfer, subscriber: ids.subscriber)
    }

    /// Downloads `request` and returns its result, calling `progress` as bytes arrive and
    /// `partialImage` with each partial image of a progressive request. Cancelling the calling
    /// task leaves the transfer to any other callers.
    ///
    /// - Throws: ``ImageLoadingError``.
    public func download(_ request: ImageDownloadRequest,
                         progress: (@Sendable (ImageDownloadProgress) -> Void)? = nil,
                         partialImage: (@Sendable (Image) -> Void)? = nil) async throws -> ImageDownloadResult {
        let task = task(for: request)
        return try await withTaskCancellationHandler {
            try await task.value(progress: progress, partialImage: partialImage)
        } onCancel: {
            task.cancel()
        }
    }

    /// A stream of every transfer's events, from now until the caller stops listening.
    public func events() -> AsyncStream<ImageDownloaderEvent> {
        let (stream, continuation) = AsyncStream<ImageDownloaderEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = state.withLock { s -> Int in s.nextID += 1; return s.nextID }
        observers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.observers.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    /// Transfers waiting and running now.
    public var activity: (queued: Int, running: Int) {
        state.withLock { s in (s.transfers.values.filter { !$0.started }.count, s.running) }
    }

    // MARK: State

    struct TransferKey: Hashable {
        var url: String
        var headers: [String: String]
        var credentials: DataLoadRequest.Credentials?
        var timeouts: ImageDownloadTimeouts?
        var allowsInvalidCertificates: Bool
        var cached: CachedResponse?
    }

    struct Subscriber {
        var priority: ImageDownloadPriority
        var decodeOptions: DecodeOptions?
        var resultOptions: DecodeOptions?
        var progressive: Bool
        var continuation: AsyncThrowingStream<ImageDownloadEvent, any Error>.Continuation
        var lastProgress: ContinuousClock.Instant?
    }

    /// One transfer; its fields are only touched under the downloader's lock.
    final class Transfer: @unchecked Sendable {
        let id: Int
        let key: TransferKey
        let request: ImageDownloadRequest
        var subscribers: [Int: Subscriber] = [:]
        var sequence: Int
        var started = false
        var task: Task<Void, Never>?
        var lastObserverProgress: ContinuousClock.Instant?

        init(id: Int, key: TransferKey, request: ImageDownloadRequest, sequence: Int) {
            self.id = id
            self.key = key
            self.request = request
            self.sequence = sequence
        }

        var priority: ImageDownloadPriority { subscribers.values.map(\.priority).max() ?? .low }
    }

    struct State {
        var nextID = 0
        var sequence = 0
        var transfers: [Int: Transfer] = [:]
        var byKey: [TransferKey: Int] = [:]
        var running = 0
    }

    private func subscribe(_ request: ImageDownloadRequest,
                           continuation: AsyncThrowingStream<ImageDownloadEvent, any Error>.Continuation) -> (transfer: Int, subscriber: Int) {
        let key = TransferKey(url: request.url.absoluteString, headers: request.headers, credentials: request.credentials,
                              timeouts: request.timeouts, allowsInvalidCertificates: request.allowsInvalidCertificates,
                              cached: request.cachedResponse)
        let subscriber = Subscriber(priority: request.priority, decodeOptions: request.decodeOptions,
                                    resultOptions: request.decodesResult ? request.decodeOptions : nil,
                                    progressive: request.progressive && request.decodeOptions != nil,
                                    continuation: continuation, lastProgress: nil)
        return state.withLock { s in
            s.nextID += 1
            let subscriberID = s.nextID
            let transfer: Transfer
            if let id = s.byKey[key], let existing = s.transfers[id] {
                transfer = existing
            } else {
                s.nextID += 1
                s.sequence += 1
                transfer = Transfer(id: s.nextID, key: key, request: request, sequence: s.sequence)
                s.transfers[transfer.id] = transfer
                s.byKey[key] = transfer.id
            }
            transfer.subscribers[subscriberID] = subscriber
            startQueued(&s)
            return (transfer.id, subscriberID)
        }
    }

    /// Removes a caller; the transfer stops (or leaves the queue) with its last caller.
    func unsubscribe(transfer id: Int, subscriber: Int, finishing: Bool = false) {
        let continuation = state.withLock { s -> AsyncThrowingStream<ImageDownloadEvent, any Error>.Continuation? in
            guard let transfer = s.transfers[id], let sub = transfer.subscribers.removeValue(forKey: subscriber) else { return nil }
            if transfer.subscribers.isEmpty {
                if transfer.started {
                    transfer.task?.cancel()
                } else {
                    s.transfers[id] = nil
                    s.byKey[transfer.key] = nil
                }
            }
            return sub.continuation
        }
        if finishing { continuation?.finish(throwing: ImageLoadingError.cancelled) }
    }

    func setPriority(_ priority: ImageDownloadPriority, transfer id: Int, subscriber: Int) {
        state.withLock { s in s.transfers[id]?.subscribers[subscriber]?.priority = priority }
    }

    /// Starts queued transfers while there is room: highest priority first, then by order.
    private func startQueued(_ s: inout State) {
        while s.running < configuration.maxConcurrentDownloads {
            let queued = s.transfers.values.filter { !$0.started && !$0.subscribers.isEmpty }
            let lifo = configuration.executionOrder == .lifo
            guard let next = queued.max(by: { a, b in
                a.priority != b.priority ? a.priority < b.priority : (lifo ? a.sequence < b.sequence : a.sequence > b.sequence)
            }) else { return }
            next.started = true
            s.running += 1
            next.task = Task(priority: next.priority == .high ? .high : next.priority == .low ? .low : .medium) { [self] in
                await self.run(next)
            }
        }
    }

    // MARK: Running a transfer

    private func run(_ transfer: Transfer) async {
        let url = transfer.request.url
        let start = ContinuousClock.now
        emit(.started(url))
        Counter(label: "imago_downloads_started").increment()
        logger.debug("download started", metadata: ["url": "\(url.absoluteString)"])
        let progressive = ProgressiveDecoding(coders: configuration.coders)
        let outcome: Result<ImageDownloadResult, ImageLoadingError>
        do {
            let (data, response, notModified) = try await perform(transfer, progressive: progressive)
            await progressive.close()
            outcome = .success(ImageDownloadResult(url: url, data: data, image: nil, response: response, notModified: notModified))
        } catch {
            await progressive.close()
            outcome = .failure(Self.loadingError(error))
        }
        // Detach the transfer: callers arriving from now on start a new one.
        let subscribers = state.withLock { s -> [Int: Subscriber] in
            s.transfers[transfer.id] = nil
            if s.byKey[transfer.key] == transfer.id { s.byKey[transfer.key] = nil }
            s.running -= 1
            startQueued(&s)
            let subs = transfer.subscribers
            transfer.subscribers = [:]
            return subs
        }
        switch outcome {
        case .success(let result):
            emit(.finished(url, bytes: result.data.count))
            Counter(label: "imago_downloads_finished").increment()
            Counter(label: "imago_download_bytes").increment(by: result.data.count)
            Metrics.Timer(label: "imago_download_duration").recordNanoseconds(Int64((ContinuousClock.now - start) / .nanoseconds(1)))
            logger.debug("download finished", metadata: ["url": "\(url.absoluteString)", "bytes": "\(result.data.count)"])
            await deliver(result, to: subscribers)
        case .failure(let error):
            emit(.failed(url, error))
            if error != .cancelled {
                Counter(label: "imago_downloads_failed", dimensions: [("transient", error.isTransient ? "yes" : "no")]).increment()
                logger.debug("download failed", metadata: ["url": "\(url.absoluteString)", "error": "\(error)"])
            }
            for sub in subscribers.values { sub.continuation.finish(throwing: error) }
        }
    }

    /// Decodes once per distinct decode options and hands each caller its result.
    private func deliver(_ result: ImageDownloadResult, to subscribers: [Int: Subscriber]) async {
        var groups: [DecodeOptions?: [Subscriber]] = [:]
        for sub in subscribers.values { groups[sub.resultOptions, default: []].append(sub) }
        let coders = configuration.coders
        for (options, subs) in groups {
            guard let options else {
                for sub in subs { sub.continuation.yield(.completed(result)); sub.continuation.finish() }
                continue
            }
            let decoded = await Task.detached(priority: .userInitiated) { () -> Result<Image, ImageLoadingError> in
                do { return .success(try coders.decode(result.data, options: options)) } catch let e as ImageCodingError {
                    return .failure(.decodingFailed(e))
                } catch { return .failure(.decodingFailed(.corrupt(.jpeg, "\(error)"))) }
            }.value
            for sub in subs {
                switch decoded {
                case .success(let image):
                    var r = result
                    r.image = image
                    sub.continuation.yield(.completed(r))
                    sub.continuation.finish()
                case .failure(let e):
                    sub.continuation.finish(throwing: e)
                }
            }
        }
    }

    /// The transfer itself: modifier, loader, validation, progress, timeouts.
    private func perform(_ transfer: Transfer, progressive: ProgressiveDecoding) async throws -> (Data, DataLoadResponse?, Bool) {
        let r = transfer.request
        var request = DataLoadRequest(url: r.url, headers: configuration.headers, credentials: r.credentials,
                                      timeouts: r.timeouts ?? configuration.timeouts, maxRedirects: configuration.maxRedirects,
                                      allowsInvalidCertificates: r.allowsInvalidCertificates)
        for (name, value) in r.headers { request.setHeader(name, value) }
        if let cached = r.cachedResponse {
            if let etag = cached.etag { request.setHeader("If-None-Match", etag) }
            if let modified = cached.lastModified { request.setHeader("If-Modified-Since", modified) }
        }
        if let modifier = configuration.requestModifier {
            do { request = try await modifier(request) } catch let e as ImageLoadingError { throw e } catch {
                throw ImageLoadingError.rejected("request modifier: \(error)")
            }
        }
        guard let loader = loaders.first(where: { $0.canLoad(request.url) }) else {
            throw ImageLoadingError.unsupportedScheme(request.url.scheme ?? "")
        }
        let timer = TransferTimer(request.timeouts)
        let sink = TransferSink()
        let outgoing = request
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [self] in
                    try await loader.load(outgoing, response: { head in
                        try self.accept(head, transfer: transfer, sink: sink, timer: timer)
                    }, chunk: { piece in
                        try self.receive(piece, transfer: transfer, sink: sink, timer: timer, progressive: progressive)
                    })
                }
                group.addTask { try await timer.watch() }
                try await group.next()
                group.cancelAll()
            }
        } catch ImageLoadingError.connectionFailed(_, transient: true) where
                    sink.response?.expectedContentLength.map { sink.data.count < $0 } == true {
            // The connection went away mid-body: say how much of the declared length arrived.
            throw ImageLoadingError.truncatedBody(received: sink.data.count, expected: sink.response?.expectedContentLength ?? 0)
        }
        if sink.notModified {
            guard let cached = r.cachedResponse else { throw ImageLoadingError.notModifiedWithoutCachedData }
            return (cached.data, sink.response, true)
        }
        if let expected = sink.response?.expectedContentLength, sink.data.count < expected {
            throw ImageLoadingError.truncatedBody(received: sink.data.count, expected: expected)
        }
        guard !sink.data.isEmpty else { throw ImageLoadingError.emptyBody }
        var data = sink.data
        if let transform = configuration.bodyTransform {
            do { data = try transform(data, sink.response) } catch {
                throw ImageLoadingError.rejected("body transform: \(error)")
            }
        }
        // The final progress event, whatever the throttle said.
        let final = ImageDownloadProgress(receivedBytes: sink.data.count, expectedBytes: sink.response?.expectedContentLength)
        state.withLock { _ in
            for sub in transfer.subscribers.values { sub.continuation.yield(.progress(final)) }
        }
        return (data, sink.response, false)
    }

    /// Validates the response head.
    private func accept(_ head: DataLoadResponse, transfer: Transfer, sink: TransferSink, timer: TransferTimer) throws {
        timer.headArrived()
        var head = head
        if let modifier = configuration.responseModifier {
            do { head = try modifier(head) } catch let e as ImageLoadingError { throw e } catch {
                throw ImageLoadingError.rejected("response modifier: \(error)")
            }
        }
        sink.response = head
        emit(.receivedResponse(transfer.request.url, statusCode: head.statusCode))
        if head.statusCode == 304, transfer.request.cachedResponse != nil {
            sink.notModified = true
            return
        }
        guard configuration.acceptableStatusCodes.contains(head.statusCode) else {
            throw ImageLoadingError.unacceptableStatusCode(head.statusCode)
        }
        if let types = configuration.acceptableContentTypes, !types.contains(head.mimeType ?? "") {
            throw ImageLoadingError.unacceptableContentType(head.mimeType)
        }
        if let declared = head.expectedContentLength, declared > configuration.maxBodyBytes {
            throw ImageLoadingError.bodyTooLarge(limit: configuration.maxBodyBytes, declared: declared)
        }
        if let declared = head.expectedContentLength, declared > 0 { sink.data.reserveCapacity(declared) }
    }

    /// Takes a piece of the body: limit, progress, partial images.
    private func receive(_ piece: Data, transfer: Transfer, sink: TransferSink, timer: TransferTimer,
                         progressive: ProgressiveDecoding) throws {
        timer.bytesArrived()
        if sink.notModified { return }
        guard sink.data.count + piece.count <= configuration.maxBodyBytes else {
            throw ImageLoadingError.bodyTooLarge(limit: configuration.maxBodyBytes, declared: nil)
        }
        sink.data.append(piece)
        let progress = ImageDownloadProgress(receivedBytes: sink.data.count, expectedBytes: sink.response?.expectedContentLength)
        let now = ContinuousClock.now
        let interval = configuration.progressInterval
        let (wantsPartial, observe) = state.withLock { _ -> ([DecodeOptions: [AsyncThrowingStream<ImageDownloadEvent, any Error>.Continuation]], Bool) in
            var partial: [DecodeOptions: [AsyncThrowingStream<ImageDownloadEvent, any Error>.Continuation]] = [:]
            for (id, sub) in transfer.subscribers {
                if sub.lastProgress.map({ now - $0 >= interval }) ?? true {
                    transfer.subscribers[id]?.lastProgress = now
                    sub.continuation.yield(.progress(progress))
                }
                if sub.progressive, let options = sub.decodeOptions { partial[options, default: []].append(sub.continuation) }
            }
            let observe = transfer.lastObserverProgress.map { now - $0 >= interval } ?? true
            if observe { transfer.lastObserverProgress = now }
            return (partial, observe)
        }
        if observe { emit(.progress(transfer.request.url, progress)) }
        if !wantsPartial.isEmpty { progressive.offer(sink.data, to: wantsPartial) }
    }

    private func emit(_ event: ImageDownloaderEvent) {
        let targets = observers.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(event) }
    }

    static func loadingError(_ error: any Error) -> ImageLoadingError {
        if let e = error as? ImageLoadingError { return e }
        if error is CancellationError { return .cancelled }
        if let e = HTTPDataLoader.map(error) as? ImageLoadingError { return e }
        return .connectionFailed(String(describing: error), transient: true)
    }
}

/// The bytes and head of one transfer, written only by the task running the loader and read by
/// the transfer after that task has finished.
final class TransferSink: @unchecked Sendable {
    var data = Data()
    var response: DataLoadResponse?
    var notModified = false
}

/// The three deadlines of a transfer: to the head, between bytes, overall.
final class TransferTimer: Sendable {
    private struct State {
        var start = ContinuousClock.now
        var lastActivity = ContinuousClock.now
        var headArrived = false
    }

    private let timeouts: ImageDownloadTimeouts
    private let state = Mutex(State())

    init(_ timeouts: ImageDownloadTimeouts) {
        self.timeouts = timeouts
    }

    func headArrived() { state.withLock { $0.headArrived = true; $0.lastActivity = .now } }
    func bytesArrived() { state.withLock { $0.lastActivity = .now } }

    /// The earliest deadline, and which timeout it is.
    private func deadline() -> (ContinuousClock.Instant, ImageLoadingError.Timeout) {
        state.withLock { s in
            var next = s.headArrived ? (s.lastActivity + timeouts.read, ImageLoadingError.Timeout.read)
                                     : (s.start + timeouts.connect, .connect)
            if let total = timeouts.total, s.start + total < next.0 { next = (s.start + total, .total) }
            return next
        }
    }

    /// Returns never: throws ``ImageLoadingError/timedOut(_:)`` when a deadline passes, or
    /// `CancellationError` when the transfer ends first.
    func watch() async throws {
        while true {
            let (when, kind) = deadline()
            if ContinuousClock.now >= when { throw ImageLoadingError.timedOut(kind) }
            try await Task.sleep(until: when, clock: .continuous)
        }
    }
}
