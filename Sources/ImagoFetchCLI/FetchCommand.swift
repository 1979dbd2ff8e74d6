// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import Imago
import ImagoCommandLine
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images from URLs through the cache (memory, then disk, then network) and save them.",
        discussion: """
            Every URL goes through Imago's ImageManager: the disk cache in --cache-dir (the default \
            cache folder otherwise), one download per URL however often it is named, at most \
            --concurrency transfers at once. Without processing options the original bytes are saved \
            as they came; with --thumbnail, --resize or --format the decoded image is processed and \
            encoded. A summary says where each image came from. URLs may be http, https, file or data.
            """
    )

    @Argument(help: "Image URLs (http, https, file or data). The same URL given twice is loaded once.")
    var urls: [String]

    @Option(help: "The disk cache folder.")
    var cacheDir: String?

    @Option(help: "Where to save: a folder (created if needed), or a file name for a single URL.")
    var output: String?

    @Option(help: "Make a thumbnail whose longest side is at most N pixels.")
    var thumbnail: Int?

    @OptionGroup var sizing: ResizeArguments

    @Option(
        help:
            "Output format (jpeg, png, webp, gif, ...). Default: an output file's extension, else the original bytes, or the image's own format when processed."
    )
    var format: String?

    @Option(help: "Lossy quality, 0-100, when encoding.")
    var quality: Int = 85

    @Flag(help: "Decode partial images while bytes arrive (counted in the summary).")
    var progressive = false

    @Option(help: "URLs in progress at once, each from its download to its file (so at most N transfers, and N sources held).")
    var concurrency: Int = 6

    @Option(help: "Seconds to wait for a response head, and between body bytes.")
    var timeout: Double = 15

    @Flag(help: "Revalidate cached copies with the server (ETag / Last-Modified).")
    var refresh = false

    @Flag(help: "Use the cache only; never go to the network.")
    var offline = false

    @Option(
        help: ArgumentHelp(
            "Send every request through this proxy: [http|socks5]://[user:password@]host[:port].",
            discussion: "Default: the http_proxy, https_proxy, all_proxy and no_proxy variables, as curl reads them."))
    var proxy: String?

    @Flag(help: "Connect directly, ignoring the proxy variables.")
    var noProxy = false

    /// The proxies: --proxy, else none with --no-proxy, else the environment's.
    func proxySettings() throws -> ProxySettings {
        if let proxy {
            guard let parsed = HTTPProxy(url: proxy) else {
                throw ValidationError("--proxy '\(proxy)' is not a usable proxy: http://[user:password@]host[:port] or socks5://host[:port]")
            }
            return ProxySettings(http: parsed, https: parsed, noProxy: ProxySettings.environment().noProxy)
        }
        return noProxy ? .none : .environment()
    }

    func validate() throws {
        guard !urls.isEmpty else { throw ValidationError("give at least one URL") }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard (0...100).contains(quality) else { throw ValidationError("--quality must be between 0 and 100") }
        if let thumbnail, thumbnail < 1 { throw ValidationError("--thumbnail must be at least 1") }
        if let format, ImageFormat(cliName: format) == nil { throw ValidationError("unknown --format '\(format)'") }
        if refresh && offline { throw ValidationError("--refresh and --offline exclude each other") }
        if proxy != nil && noProxy { throw ValidationError("--proxy and --no-proxy exclude each other") }
        _ = try proxySettings()
        if let output, urls.count > 1, Set(urls).count > 1, ImageFormat(fileExtension: PathName.pathExtension(output)) != nil,
            !Console.isDirectory(output)
        {
            throw ValidationError("--output names a file, but several URLs were given: name a folder")
        }
    }

    /// One URL's outcome: a summary line, never the image or its bytes, so memory does not grow
    /// with the number of URLs.
    struct Outcome: Sendable {
        var source: ImageLoadSource?
        var line = ""
        var error: String?
    }

    func run() async throws {
        let (unique, given) = uniqueURLs()
        let parsed = try Self.parseURLs(unique)
        let (manager, downloader) = try makeManager()
        let template = try makeRequest()
        let plan = SavePlan(
            output: output, format: format.flatMap(ImageFormat.init(cliName:)), quality: quality,
            processed: thumbnail != nil || sizing.resize != nil)

        if let output, !plan.isFile { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) }
        let showProgress = Console.errorIsTerminal
        let load = makeLoader(template: template, manager: manager, plan: plan, showProgress: showProgress)
        let outcomes = await loadAll(parsed, with: load)
        if showProgress { Console.error("\r\u{1B}[K") }
        await manager.finishPendingStores()
        try? await downloader.shutdown()

        let failed = Self.printSummary(outcomes, urls: unique, given: given)
        if failed > 0 { throw ExitCode(1) }
    }

    /// The URLs given, each once, in the order first given; and how often each was given.
    private func uniqueURLs() -> (unique: [String], given: [String: Int]) {
        // Each URL once, in the order first given; the manager would share the download anyway.
        var given: [String: Int] = [:]
        var unique: [String] = []
        for text in urls {
            if given[text] == nil { unique.append(text) }
            given[text, default: 0] += 1
        }
        return (unique, given)
    }

    /// Each of `texts` as a URL: a path starting with `/` as a file URL.
    ///
    /// - Throws: `ValidationError` for a text that is not a URL.
    private static func parseURLs(_ texts: [String]) throws -> [URL] {
        try texts.map { text -> URL in
            guard let url = (text.hasPrefix("/") ? URL(fileURLWithPath: text) : URL(string: text)), url.scheme != nil else {
                throw ValidationError("'\(text)' is not a URL")
            }
            return url
        }
    }

    /// The manager every URL loads through (the disk cache in --cache-dir, no memory cache), and
    /// its downloader (--concurrency, --timeout, the proxies), shut down once all are loaded.
    private func makeManager() throws -> (ImageManager, ImageDownloader) {
        let disk = try DiskCache(directory: cacheDir.map { URL(fileURLWithPath: $0) } ?? DiskCache.defaultDirectory)
        let seconds = Duration.milliseconds(Int64(timeout * 1000))
        var downloads = ImageDownloaderConfiguration(
            maxConcurrentDownloads: concurrency, timeouts: ImageDownloadTimeouts(connect: seconds, read: seconds, total: nil))
        downloads.proxies = try proxySettings()
        let downloader = ImageDownloader(configuration: downloads)
        // No memory cache: every image is used once, here, and dropped. The isolated formats
        // (IMAGO_ISOLATED_FORMATS) decode in sandboxed workers, one for each decode at once.
        var configuration = ImageManager.Configuration(memoryCache: nil, dataCache: disk, downloader: downloader)
        configuration.decoderIsolation = try CLIDecoders.isolation(workers: min(concurrency, WorkQueue.defaultConcurrency))
        let manager = ImageManager(configuration: configuration)
        return (manager, downloader)
    }

    /// What loads one URL (its index, and the URL) into its outcome: progressively, encoded, or
    /// the bytes alone, with the progress bar drawn when `showProgress`; a failure becomes the
    /// outcome's error.
    private func makeLoader(
        template: ImageRequest, manager: ImageManager, plan: SavePlan, showProgress: Bool
    ) -> @Sendable (Int, URL) async -> (Int, Outcome) {
        let progressive = self.progressive
        let received = ProgressTally()
        let written = WrittenFiles()
        // Files are written off the cooperative pool, two at a time.
        let writes = WorkQueue(label: "imago.fetch.writes", maxConcurrentCount: 2)
        let load: @Sendable (Int, URL) async -> (Int, Outcome) = { index, url in
            var request = template
            request.source = .url(url)
            let progress: @Sendable (ImageDownloadProgress) -> Void = { p in
                guard showProgress else { return }
                let total = received.update(index, p)
                Self.drawProgress(received: total.0, expected: total.1)
            }
            do {
                if progressive {
                    return (
                        index,
                        try await Self.loadImage(
                            request, manager: manager, plan: plan, index: index, written: written,
                            progress: progress)
                    )
                }
                if plan.needsPixels {
                    return (
                        index,
                        try await Self.loadEncoded(
                            request, manager: manager, plan: plan, index: index, written: written,
                            writes: writes)
                    )
                }
                return (
                    index,
                    try await Self.loadBytes(
                        request, manager: manager, plan: plan, index: index, written: written,
                        progress: progress)
                )
            } catch {
                return (index, Outcome(error: (error as? ImageLoadingError)?.description ?? CLIFailure.describe(error)))
            }
        }
        return load
    }

    /// Runs `load` for every URL of `parsed`; the outcomes by index.
    private func loadAll(_ parsed: [URL], with load: @escaping @Sendable (Int, URL) async -> (Int, Outcome)) async -> [Int: Outcome] {
        // At most --concurrency URLs in progress at once, each from its download to its file: a
        // download that finishes before a worker is free waits holding its bytes, so the window
        // bounds memory as well as transfers.
        await withTaskGroup(of: (Int, Outcome).self) { group -> [Int: Outcome] in
            var pending = parsed.enumerated().makeIterator()
            for _ in 0..<concurrency {
                guard let (index, url) = pending.next() else { break }
                group.addTask { await load(index, url) }
            }
            var all: [Int: Outcome] = [:]
            for await (i, o) in group {
                all[i] = o
                if let (index, url) = pending.next() { group.addTask { await load(index, url) } }
            }
            return all
        }
    }

    /// Prints each URL's summary line (a failure's to standard error) and the totals; returns how
    /// many URLs failed.
    private static func printSummary(_ outcomes: [Int: Outcome], urls unique: [String], given: [String: Int]) -> Int {
        var counts: [ImageLoadSource: Int] = [:]
        var failed = 0
        for index in unique.indices {
            let outcome = outcomes[index] ?? Outcome(error: "not loaded")
            guard let source = outcome.source, outcome.error == nil else {
                failed += 1
                Console.error("imago: \(unique[index]): \(outcome.error ?? "failed")\n")
                continue
            }
            counts[source, default: 0] += 1
            var line = outcome.line
            if let times = given[unique[index]], times > 1 { line += " (given \(times) times, loaded once)" }
            print("\(line)  \(unique[index])")
        }
        let parts = [ImageLoadSource.network, .disk, .memory].map { "\(counts[$0] ?? 0) \($0.rawValue)" }
        print("\(unique.count - failed) of \(unique.count) URLs loaded: \(parts.joined(separator: ", ")), \(failed) failed")
        return failed
    }

    /// The request every URL starts from: the processing options, cache options and priority.
    private func makeRequest() throws -> ImageRequest {
        var request = ImageRequest(url: URL(fileURLWithPath: "/"))
        if let thumbnail { request.thumbnail = .init(maxPixelSize: PixelSize(width: thumbnail, height: thumbnail)) }
        do {
            if let resize = try sizing.transformer() { request.transformers = [resize] }
        } catch {
            throw ValidationError(CLIFailure.describe(error))
        }
        // What the pipeline encodes: the format asked for (else the image's own), at --quality.
        request.output = ImageRequest.Output(
            format: SavePlan.wanted(format: format.flatMap(ImageFormat.init(cliName:)), output: output),
            quality: Double(quality) / 100)
        if progressive { request.options.insert(.progressive) }
        if refresh { request.options.insert(.refreshCached) }
        if offline { request.options.insert(.fromCacheOnly) }
        request.options.insert(.waitStoreCache)
        return request
    }

    /// Loads and decodes (with the request's processing), saves the encoded result when asked,
    /// and keeps only a summary line.
    private static func loadImage(
        _ request: ImageRequest, manager: ImageManager, plan: SavePlan, index: Int,
        written: WrittenFiles, progress: @escaping @Sendable (ImageDownloadProgress) -> Void
    ) async throws -> Outcome {
        var partials = 0
        var result: ImageLoadResult?
        for try await event in manager.imageEvents(with: request) {
            switch event {
            case .progress(let p): progress(p)
            case .partialImage: partials += 1
            case .completed(let r): result = r
            }
        }
        guard let result else { throw ImageLoadingError.cancelled }
        var line = "\(result.source.rawValue.padding(7)) \(result.image.pixelSize.width)x\(result.image.pixelSize.height)"
        if let data = result.data { line += " \(Console.byteCount(data.count))" }
        if result.revalidated { line += " (not modified)" }
        if partials > 0 { line += " \(partials) partial images" }
        if let url = request.url, let path = try plan.save(image: result.image, data: result.data, url: url, index: index, written: written) {
            line += " -> \(path)"
        }
        return Outcome(source: result.source, line: line)
    }

    /// Fetches the source, then processes and encodes it through the pipeline's encode stage
    /// (which admits at most workers + 1 renders at once, so the other loads wait with their
    /// downloaded bytes, and runs the encode right after the decode, so bitmaps do not pile up)
    /// and writes the result off the cooperative pool; keeps only a summary line. Bytes that need no change (no
    /// processing, the same format) are written as they came.
    private static func loadEncoded(
        _ request: ImageRequest, manager: ImageManager, plan: SavePlan, index: Int,
        written: WrittenFiles, writes: WorkQueue
    ) async throws -> Outcome {
        let source = try await manager.loadSource(with: request)
        let result = try await manager.loadEncodedImage(with: request, source: source)
        var line = "\(result.source.rawValue.padding(7)) \(result.pixelSize.width)x\(result.pixelSize.height) \(Console.byteCount(result.byteCount))"
        if result.revalidated { line += " (not modified)" }
        if let url = request.url, let path = try await plan.save(result, url: url, index: index, written: written, writes: writes) {
            line += " -> \(path)"
        }
        return Outcome(source: result.source, line: line)
    }

    /// Loads the original bytes only, reads the header for the summary line, and saves the bytes
    /// as they came when asked: no bitmap is made.
    private static func loadBytes(
        _ request: ImageRequest, manager: ImageManager, plan: SavePlan, index: Int,
        written: WrittenFiles, progress: @escaping @Sendable (ImageDownloadProgress) -> Void
    ) async throws -> Outcome {
        let result = try await manager.loadData(with: request, progress: progress)
        let size = (try? ImageCoderRegistry.shared.info(of: result.data)).map { "\($0.pixelSize.width)x\($0.pixelSize.height)" } ?? "?"
        var line = "\(result.source.rawValue.padding(7)) \(size) \(Console.byteCount(result.data.count))"
        if result.revalidated { line += " (not modified)" }
        if let url = request.url, let path = try plan.save(image: nil, data: result.data, url: url, index: index, written: written) {
            line += " -> \(path)"
        }
        return Outcome(source: result.source, line: line)
    }

    private static func drawProgress(received: Int, expected: Int) {
        let width = 30
        let filled = expected > 0 ? min(width, received * width / expected) : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        Console.error("\r[\(bar)] \(Console.byteCount(received)) of \(Console.byteCount(expected))")
    }
}

/// Bytes received and expected per URL, summed for the progress bar.
final class ProgressTally: Sendable {
    private let state = Mutex<[Int: (Int, Int?)]>([:])

    func update(_ index: Int, _ p: ImageDownloadProgress) -> (Int, Int) {
        state.withLock { r in
            r[index] = (p.receivedBytes, p.expectedBytes)
            return r.values.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + ($1.1 ?? $1.0)) }
        }
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
