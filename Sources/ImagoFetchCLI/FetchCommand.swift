import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imago
import ImagoCommandLine
import Synchronization

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

    @Option(help: "Output format (jpeg, png, webp, gif, ...). Default: an output file's extension, else the original bytes, or the image's own format when processed.")
    var format: String?

    @Option(help: "Lossy quality, 0-100, when encoding.")
    var quality: Int = 85

    @Flag(help: "Decode partial images while bytes arrive (counted in the summary).")
    var progressive = false

    @Option(help: "Transfers at once.")
    var concurrency: Int = 6

    @Option(help: "Seconds to wait for a response head, and between body bytes.")
    var timeout: Double = 15

    @Flag(help: "Revalidate cached copies with the server (ETag / Last-Modified).")
    var refresh = false

    @Flag(help: "Use the cache only; never go to the network.")
    var offline = false

    @Option(help: ArgumentHelp("Send every request through this proxy: [http|socks5]://[user:password@]host[:port].",
                               discussion: "Default: the http_proxy, https_proxy, all_proxy and no_proxy variables, as curl reads them."))
    var proxy: String?

    @Flag(help: "Connect directly, ignoring the proxy variables.")
    var noProxy = false

    /// The proxies: --proxy, else none with --no-proxy, else the environment's.
    func proxySettings() throws -> ProxySettings {
        if let proxy {
            guard let parsed = HTTPProxy(url: proxy) else { throw ValidationError("--proxy '\(proxy)' is not a usable proxy: http://[user:password@]host[:port] or socks5://host[:port]") }
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
           !Console.isDirectory(output) {
            throw ValidationError("--output names a file, but several URLs were given: name a folder")
        }
    }

    /// One URL's outcome.
    struct Outcome: Sendable {
        var result: ImageLoadResult?
        var error: String?
        var partialImages = 0
    }

    func run() async throws {
        // Each URL once, in the order first given; the manager would share the download anyway.
        var given: [String: Int] = [:]
        var unique: [String] = []
        for text in urls {
            if given[text] == nil { unique.append(text) }
            given[text, default: 0] += 1
        }
        let parsed = try unique.map { text -> URL in
            guard let url = (text.hasPrefix("/") ? URL(fileURLWithPath: text) : URL(string: text)), url.scheme != nil else {
                throw ValidationError("'\(text)' is not a URL")
            }
            return url
        }
        let disk = try DiskCache(directory: cacheDir.map { URL(fileURLWithPath: $0) } ?? DiskCache.defaultDirectory)
        let seconds = Duration.milliseconds(Int64(timeout * 1000))
        var configuration = ImageDownloaderConfiguration(
            maxConcurrentDownloads: concurrency, timeouts: ImageDownloadTimeouts(connect: seconds, read: seconds, total: nil))
        configuration.proxies = try proxySettings()
        let downloader = ImageDownloader(configuration: configuration)
        let manager = ImageManager(cache: ImageCache(disk: disk), downloader: downloader)
        var options: ImageLoadOptions = [.waitStoreCache, .queryMemoryData]
        if progressive { options.insert(.progressiveLoad) }
        if refresh { options.insert(.refreshCached) }
        if offline { options.insert(.fromCacheOnly) }
        let context = try makeContext()
        let loadOptions = options

        let received = ProgressTally()
        let showProgress = Console.errorIsTerminal
        let outcomes = await withTaskGroup(of: (Int, Outcome).self) { group -> [Int: Outcome] in
            for (index, url) in parsed.enumerated() {
                group.addTask {
                    var outcome = Outcome()
                    do {
                        for try await event in manager.imageEvents(with: url, options: loadOptions, context: context) {
                            switch event {
                            case .progress(let p):
                                if showProgress {
                                    let total = received.update(index, p)
                                    Self.drawProgress(received: total.0, expected: total.1)
                                }
                            case .partialImage: outcome.partialImages += 1
                            case .completed(let r): outcome.result = r
                            }
                        }
                    } catch {
                        outcome.error = (error as? ImageLoadingError)?.description ?? CLIFailure.describe(error)
                    }
                    return (index, outcome)
                }
            }
            var all: [Int: Outcome] = [:]
            for await (i, o) in group { all[i] = o }
            return all
        }
        if showProgress { Console.error("\r\u{1B}[K") }
        try? await downloader.shutdown()

        var written: [String: String] = [:]
        var counts: [ImageLoadSource: Int] = [:]
        var failed = 0
        for (index, url) in parsed.enumerated() {
            let outcome = outcomes[index] ?? Outcome(error: "not loaded")
            guard let result = outcome.result else {
                failed += 1
                Console.error("imago: \(unique[index]): \(outcome.error ?? "failed")\n")
                continue
            }
            counts[result.source, default: 0] += 1
            var line = "\(result.source.rawValue.padding(7)) \(result.image.pixelSize.width)x\(result.image.pixelSize.height)"
            if let data = result.data { line += " \(Console.byteCount(data.count))" }
            if result.revalidated { line += " (not modified)" }
            if outcome.partialImages > 0 { line += " \(outcome.partialImages) partial images" }
            if let times = given[unique[index]], times > 1 { line += " (given \(times) times, loaded once)" }
            if let output {
                do {
                    let target = try save(result, url: url, index: index, output: output, written: &written)
                    line += " -> \(target)"
                } catch {
                    failed += 1
                    Console.error("imago: \(unique[index]): \(CLIFailure.describe(error))\n")
                }
            }
            print("\(line)  \(unique[index])")
        }
        let parts = ["network", "disk", "memory"].map { name in "\(counts[ImageLoadSource(rawValue: name)!] ?? 0) \(name)" }
        print("\(parsed.count - failed) of \(parsed.count) URLs loaded: \(parts.joined(separator: ", ")), \(failed) failed")
        if failed > 0 { throw ExitCode(1) }
    }

    private func makeContext() throws -> ImageLoadContext {
        var context = ImageLoadContext()
        if let thumbnail { context.thumbnailPixelSize = PixelSize(width: thumbnail, height: thumbnail) }
        do {
            context.transformer = try sizing.transformer()
        } catch {
            throw ValidationError(CLIFailure.describe(error))
        }
        return context
    }

    /// Writes the original bytes, or the processed image encoded; returns the path written.
    private func save(_ result: ImageLoadResult, url: URL, index: Int, output: String, written: inout [String: String]) throws -> String {
        let isFile = !Console.isDirectory(output) && ImageFormat(fileExtension: PathName.pathExtension(output)) != nil
        // --format, else a file name's extension, else the bytes as they came.
        let wanted = format.flatMap(ImageFormat.init(cliName:))
            ?? (isFile ? ImageFormat(fileExtension: PathName.pathExtension(output)) : nil)
        let original = result.data.flatMap { ImageFormat(sniffing: $0) }
        let bytes: Data
        let ext: String
        if thumbnail == nil, sizing.resize == nil, let data = result.data,
           wanted == nil || wanted == original || (wanted == .png && original == .apng) {
            bytes = data
            ext = (original ?? result.image.format ?? .png).preferredFileExtension
        } else {
            let target = wanted ?? ImageCoders.shared.preferredEncodingFormat(for: result.image)
            bytes = try ImageCoders.shared.encode(result.image, as: target, options: EncodeOptions(quality: Double(quality) / 100))
            ext = target.preferredFileExtension
        }
        let target: URL
        if isFile {
            target = URL(fileURLWithPath: output)
        } else {
            let dir = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            var stem = PathName.deletingPathExtension(url.lastPathComponent)
            if stem.isEmpty || url.scheme == "data" { stem = "image-\(index + 1)" }
            // The same URL twice writes one file; different URLs with one name get a numbered suffix.
            var candidate = dir.appendingPathComponent(stem).appendingPathExtension(ext)
            var n = 2
            while let owner = written[candidate.path], owner != url.absoluteString {
                candidate = dir.appendingPathComponent("\(stem)-\(n)").appendingPathExtension(ext)
                n += 1
            }
            if written[candidate.path] != nil { return candidate.path }
            target = candidate
        }
        written[target.path] = url.absoluteString
        try bytes.write(to: target, options: .atomic)
        return target.path
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
