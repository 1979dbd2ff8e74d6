// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoLoading

/// Encoded fixtures made here: a PNG and a progressive JPEG of a gradient.
enum LoadingFixtures {
    static let png: Data = {
        (try? ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: 64, height: 48)), as: .png)) ?? Data()
    }()

    static func png(seed: Int) -> Data {
        (try? ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: 40 + seed % 17, height: 30 + seed % 13)), as: .png)) ?? Data()
    }

    /// 64 KiB that never compress, for transfers that must take a while.
    static let noise: Data = {
        var state: UInt32 = 2463534242
        return Data(
            (0..<(64 << 10)).map { _ in
                state ^= state << 13
                state ^= state >> 17
                state ^= state << 5
                return UInt8(truncatingIfNeeded: state)
            })
    }()

    static let progressiveJPEG: Data = {
        (try? ImageCoderRegistry.shared.encode(
            Image(buffer: Fixtures.gradient(width: 640, height: 480)), as: .jpeg,
            options: EncodeOptions(quality: 0.9, progressive: true))) ?? Data()
    }()
}

/// Runs `body` with a started test server, stopping it afterwards.
func withServer<T>(_ body: (TestHTTPServer) async throws -> T) async throws -> T {
    let server = try await TestHTTPServer.start()
    server.register("a.png", data: LoadingFixtures.png)
    server.register("p.jpg", data: LoadingFixtures.progressiveJPEG, contentType: "image/jpeg")
    server.register("noise.bin", data: LoadingFixtures.noise)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// The error a download fails with, or `nil` when it succeeds.
func failure(_ body: () async throws -> Void) async -> ImageLoadingError? {
    do {
        try await body()
        return nil
    } catch let e as ImageLoadingError {
        return e
    } catch {
        return .rejected("unexpected \(error)")
    }
}

@Suite("ImageDownloader against a scripted loopback server", .serialized)
struct ImageDownloaderTests {
    @Test("concurrent callers of one URL share one transfer; progressive and plain callers alike; bytes only")
    func sharing() async throws {
        try await withServer { server in
            // Patient: a loaded machine's slow connect is not what this tests.
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(maxConcurrentDownloads: 6, timeouts: patientTimeouts))
            defer { Task { try? await downloader.shutdown() } }
            for i in 0..<20 { server.register("f\(i).png", data: LoadingFixtures.png(seed: i)) }
            // 1000 callers over 20 URLs; each body's second half is held until every caller has
            // asked, so every caller joins a transfer still running (or still queued).
            var tasks: [(Int, ImageDownloadTask)] = []
            for n in 0..<1000 {
                let i = n % 20
                let request = ImageDownloadRequest(url: server.url("/gated/f\(i).png?parts=2"), progressive: n % 2 == 0)
                tasks.append((i, downloader.task(for: request)))
            }
            server.openGate()
            for (i, task) in tasks {
                let result = try await task.value()
                #expect(result.data == LoadingFixtures.png(seed: i) && !result.notModified)
            }
            #expect(server.totalCount == 20)
            for i in 0..<20 { #expect(server.count("/gated/f\(i).png") == 1) }
        }
    }

    @Test("one caller leaving keeps the transfer for the others; the last one leaving stops it")
    func cancellation() async throws {
        try await withServer { server in
            let downloader = ImageDownloader()
            defer { Task { try? await downloader.shutdown() } }
            let url = server.url("/slow/noise.bin?chunk=8192&delay=40")
            let a = downloader.task(for: ImageDownloadRequest(url: url))
            let b = downloader.task(for: ImageDownloadRequest(url: url))
            try await Task.sleep(for: .milliseconds(50))
            a.cancel()
            #expect(await failure { _ = try await a.value() } == .cancelled)
            #expect(try await b.value().data == LoadingFixtures.noise)
            #expect(server.count("/slow/noise.bin") == 1)

            // The last caller leaving an endless body frees the transfer at once.
            let endless = downloader.task(for: ImageDownloadRequest(url: server.url("/endless")))
            for _ in 0..<500 where server.count("/endless") == 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(downloader.activity.running == 1)
            endless.cancel()
            var waited = 0
            while downloader.activity.running > 0, waited < 200 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            #expect(downloader.activity.running == 0 && downloader.activity.queued == 0)

            // Cancelling the calling Swift task does the same.
            let caller = Task { try await downloader.download(ImageDownloadRequest(url: server.url("/endless"))) }
            try await Task.sleep(for: .milliseconds(100))
            caller.cancel()
            #expect(await failure { _ = try await caller.value } == .cancelled)
        }
    }

    @Test("each timeout fires: no response head, a stalled body, a transfer that takes too long")
    func timeouts() async throws {
        try await withServer { server in
            let downloader = ImageDownloader()
            defer { Task { try? await downloader.shutdown() } }
            let quick = ImageDownloadTimeouts(connect: .milliseconds(300), read: .milliseconds(300), total: .seconds(10))
            let clock = ContinuousClock()
            var elapsed = await clock.measure {
                #expect(
                    await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/nohead"), timeouts: quick)) }
                        == .timedOut(.connect))
            }
            #expect(elapsed < .seconds(3))
            // The head arrives at once, then the body stalls: the read timeout. (A head deadline
            // of its own keeps a loaded machine's slow first bytes from counting as the stall.)
            let stalling = ImageDownloadTimeouts(connect: .seconds(5), read: .milliseconds(300), total: .seconds(10))
            elapsed = await clock.measure {
                #expect(
                    await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/stall"), timeouts: stalling)) }
                        == .timedOut(.read))
            }
            #expect(elapsed < .seconds(6))
            let total = ImageDownloadTimeouts(connect: .seconds(5), read: .seconds(5), total: .milliseconds(400))
            #expect(
                await failure {
                    _ = try await downloader.download(ImageDownloadRequest(url: server.url("/slow/noise.bin?chunk=1000&delay=50"), timeouts: total))
                } == .timedOut(.total))
            #expect(ImageLoadingError.timedOut(.read).isTransient)
        }
    }

    @Test("statuses, content types, lying lengths, chunked bodies, redirects and size limits give typed results")
    func validation() async throws {
        try await withServer { server in
            let strict = ImageDownloader(
                configuration: ImageDownloaderConfiguration(
                    acceptableContentTypes: ["image/png"],
                    maxRedirects: 2, maxBodyBytes: 1 << 20))
            defer { Task { try? await strict.shutdown() } }
            func fetch(_ path: String) async throws -> ImageDownloadResult {
                try await strict.download(ImageDownloadRequest(url: server.url(path)))
            }
            let notFound = await failure { _ = try await fetch("/status/404") }
            #expect(notFound == .unacceptableStatusCode(404) && notFound?.isTransient == false)
            let serverError = await failure { _ = try await fetch("/status/500") }
            #expect(serverError == .unacceptableStatusCode(500) && serverError?.isTransient == true)
            #expect(await failure { _ = try await fetch("/wrongtype/a.png") } == .unacceptableContentType("text/html"))
            // Shorter than declared: a transient failure, never a decoded image.
            let short = await failure { _ = try await fetch("/short/a.png") }
            #expect(
                short == .truncatedBody(received: LoadingFixtures.png.count, expected: LoadingFixtures.png.count + 1000),
                "\(String(describing: short))")
            #expect(short?.isTransient == true)
            // Longer than declared: only the declared bytes are read.
            let long = try await fetch("/long/a.png")
            #expect(long.data.count == 10)
            // Chunked: the same bytes.
            #expect(try await fetch("/chunked/a.png").data == LoadingFixtures.png)
            // Redirects: two are followed, three are too many, a loop is a loop.
            #expect(try await fetch("/redirect/2/a.png").data == LoadingFixtures.png)
            #expect(await failure { _ = try await fetch("/redirect/3/a.png") } == .tooManyRedirects(limit: 2))
            let loop = await failure { _ = try await fetch("/loop/a") }
            #expect(loop == .redirectLoop(server.url("/loop/a").absoluteString), "\(String(describing: loop))")
            // Size: refused from the declared length, and aborted while streaming past the limit.
            #expect(await failure { _ = try await fetch("/huge") } == .bodyTooLarge(limit: 1 << 20, declared: 10_000_000_000))
            #expect(await failure { _ = try await fetch("/endless") } == .bodyTooLarge(limit: 1 << 20, declared: nil))
            #expect(await failure { _ = try await fetch("/status/200") } == .unacceptableContentType("text/plain"))
        }
    }

    @Test("a kept-alive connection the server dropped as a request went out is retried once on a fresh one")
    func staleConnection() async throws {
        try await withServer { server in
            let downloader = ImageDownloader()
            defer { Task { try? await downloader.shutdown() } }
            _ = try await downloader.download(ImageDownloadRequest(url: server.url("/img/a.png")))
            // The pool reuses the idle connection; the server drops it unanswered.
            let result = try await downloader.download(ImageDownloadRequest(url: server.url("/reused/a.png")))
            #expect(result.data == LoadingFixtures.png)
            #expect(server.count("/reused/a.png") == 2)
            // A server that drops every request gets one retry, then a transient failure.
            let lost = await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/drop"))) }
            if case .connectionFailed(_, transient: true) = lost {} else { Issue.record("dropped: \(String(describing: lost))") }
            #expect(server.count("/drop") == 2)
        }
    }

    @Test("hostile servers: endless headers, a reply that is not HTTP, a gzip bomb, and gzip that is not gzip end in typed errors")
    func hostileServers() async throws {
        // 64 MiB of zeros compress to about 64 KB: a 1000:1 bomb, made by gzip(1) at test time.
        let dir = try TestFiles.temporaryDirectory("imago-gzip")
        defer { try? FileManager.default.removeItem(at: dir) }
        let zeros = dir.appendingPathComponent("zeros")
        _ = FileManager.default.createFile(atPath: zeros.path, contents: nil)
        let handle = try FileHandle(forWritingTo: zeros)
        for _ in 0..<64 { handle.write(Data(count: 1 << 20)) }
        try handle.close()
        let (gzipped, _, _) = try await Subprocess.run(URL(fileURLWithPath: "/bin/gzip"), ["-9", zeros.path])
        try #require(gzipped == 0, "gzip could not compress the zeros")
        let bomb = try Data(contentsOf: dir.appendingPathComponent("zeros.gz"))
        #expect(bomb.count < 1 << 20)
        try await withServer { server in
            server.register("bomb.png", data: bomb)
            server.register("fake.png", data: LoadingFixtures.png)
            let downloader = ImageDownloader()
            defer { Task { try? await downloader.shutdown() } }
            func fetch(_ path: String) async -> ImageLoadingError? {
                await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url(path))) }
            }
            // Headers without end are cut off by the HTTP parser, not read into memory forever.
            let clock = ContinuousClock()
            var flood: ImageLoadingError?
            let elapsed = await clock.measure { flood = await fetch("/headerflood") }
            if case .invalidResponse = flood {} else { Issue.record("header flood: \(String(describing: flood))") }
            #expect(elapsed < .seconds(5))
            let garbage = await fetch("/garbage")
            if case .invalidResponse = garbage {} else { Issue.record("not HTTP: \(String(describing: garbage))") }
            #expect(garbage?.isTransient == false)
            // The bomb stops at the decompression ratio, long before 64 MiB.
            #expect(await fetch("/gzip/bomb.png") == .decompressionLimit(ratio: 50))
            let fake = await fetch("/gzip/fake.png")
            if case .invalidContentEncoding = fake {} else { Issue.record("fake gzip: \(String(describing: fake))") }
            #expect(fake?.isTransient == false)
        }
    }

    @Test("an HTTP proxy carries requests through its CONNECT tunnel with its credentials; no_proxy hosts go direct; SOCKS5 too")
    func proxies() async throws {
        try await withServer { origin in
            // A second server plays the proxy: it answers CONNECT, then serves the tunnel itself.
            let proxy = try await TestHTTPServer.start()
            proxy.register("a.png", data: LoadingFixtures.png)
            var configuration = ImageDownloaderConfiguration()
            configuration.proxies = ProxySettings(
                http: HTTPProxy(
                    host: "127.0.0.1", port: proxy.port,
                    credentials: DataLoadRequest.Credentials(user: "u", password: "p")))
            let proxied = ImageDownloader(configuration: configuration)
            let result = try await proxied.download(ImageDownloadRequest(url: origin.url("/img/a.png")))
            #expect(result.data == LoadingFixtures.png)
            #expect(proxy.count("CONNECT") == 1 && proxy.count("/img/a.png") == 1 && origin.count("/img/a.png") == 0)
            #expect(proxy.headers("CONNECT")?["proxy-authorization"] == "Basic dTpw")
            try await proxied.shutdown()

            configuration.proxies.noProxy = ["127.0.0.1"]
            let bypassing = ImageDownloader(configuration: configuration)
            #expect(try await bypassing.download(ImageDownloadRequest(url: origin.url("/img/a.png"))).data == LoadingFixtures.png)
            #expect(origin.count("/img/a.png") == 1 && proxy.count("CONNECT") == 1)
            try await bypassing.shutdown()

            // SOCKS5: the same server answers the SOCKS handshake.
            configuration.proxies = ProxySettings(http: HTTPProxy(kind: .socks5, host: "127.0.0.1", port: proxy.port))
            let socks = ImageDownloader(configuration: configuration)
            #expect(try await socks.download(ImageDownloadRequest(url: origin.url("/img/a.png"))).data == LoadingFixtures.png)
            #expect(proxy.count("SOCKS") == 1 && proxy.count("/img/a.png") == 2 && origin.count("/img/a.png") == 1)
            try await socks.shutdown()
            await proxy.stop()
        }
    }

    @Test("proxy settings read from the environment as curl reads them")
    func proxyEnvironment() {
        let settings = ProxySettings.environment([
            "HTTP_PROXY": "http://ignored:1",  // upper case: settable by a CGI header, so ignored
            "https_proxy": "http://user:p%40ss@proxy.internal:3128",
            "ALL_PROXY": "socks5h://[::1]:1081",
            "no_proxy": " .example.com, 10.0.0.7 ,*.bad"
        ])
        #expect(settings.http == HTTPProxy(kind: .socks5, host: "::1", port: 1081))
        #expect(
            settings.https
                == HTTPProxy(
                    host: "proxy.internal", port: 3128,
                    credentials: DataLoadRequest.Credentials(user: "user", password: "p@ss")))
        #expect(settings.noProxy == [".example.com", "10.0.0.7", "*.bad"])
        #expect(settings.proxy(for: URL(string: "https://img.example.com/a.png")!) == nil)
        #expect(settings.proxy(for: URL(string: "https://example.com/a.png")!) == nil)
        #expect(settings.proxy(for: URL(string: "https://notexample.com/a.png")!) == settings.https)
        #expect(settings.proxy(for: URL(string: "http://10.0.0.7/a.png")!) == nil)
        #expect(settings.proxy(for: URL(string: "http://10.0.0.70/a.png")!) == settings.http)
        #expect(settings.proxy(for: URL(string: "file:///tmp/a.png")!) == nil)
        #expect(ProxySettings(https: settings.https, noProxy: ["*"]).proxy(for: URL(string: "https://x.org/")!) == nil)
        #expect(HTTPProxy(url: "proxy:8080") == HTTPProxy(host: "proxy", port: 8080))
        #expect(HTTPProxy(url: "http://proxy/") == HTTPProxy(host: "proxy", port: 1080))
        #expect(HTTPProxy(url: "socks5://u:p@proxy:1080") == nil && HTTPProxy(url: "socks5://proxy")?.port == 1080)
        #expect(HTTPProxy(url: "https://proxy:443") == nil && HTTPProxy(url: "http://proxy:99999") == nil && HTTPProxy(url: "http://:80") == nil)
        #expect(HTTPProxy(url: "http://u:p@proxy:3128")?.description == "http://proxy:3128")
        #expect(ProxySettings.environment([:]) == .none)
    }

    @Test("304 answers a conditional request with the cached bytes; headers, credentials and modifiers are sent")
    func conditionalAndHeaders() async throws {
        try await withServer { server in
            let downloader = ImageDownloader(
                configuration: ImageDownloaderConfiguration(
                    requestModifier: { request in
                        try await Task.sleep(for: .milliseconds(5))  // an asynchronous token fetch
                        var r = request
                        r.setHeader("X-Token", "t0k3n")
                        return r
                    },
                    bodyTransform: { data, _ in data }))
            defer { Task { try? await downloader.shutdown() } }
            let first = try await downloader.download(ImageDownloadRequest(url: server.url("/img/a.png"), headers: ["X-Caller": "one"]))
            let sent = try #require(server.headers("/img/a.png"))
            #expect(sent["accept"]?.hasPrefix("image/avif,image/webp") == true)
            #expect(sent["user-agent"]?.hasPrefix("Imago/") == true)
            #expect(sent["x-caller"] == "one" && sent["x-token"] == "t0k3n")
            let etag = try #require(first.response?.etag)
            let cached = CachedResponse(data: first.data, etag: etag, lastModified: first.response?.lastModified)
            let again = try await downloader.download(ImageDownloadRequest(url: server.url("/img/a.png"), cachedResponse: cached))
            #expect(again.notModified && again.data == first.data && again.response?.statusCode == 304)
            #expect(server.headers("/img/a.png")?["if-none-match"] == etag)
            // Basic credentials.
            #expect(
                await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/auth/a.png"))) }
                    == .unacceptableStatusCode(401))
            let authed = try await downloader.download(
                ImageDownloadRequest(
                    url: server.url("/auth/a.png"),
                    credentials: .init(user: "user", password: "pass")))
            #expect(authed.data == LoadingFixtures.png)
        }
    }

    @Test("progress rises to the total; progressive requests get the bytes so far in order, then the result")
    func progressAndPartialData() async throws {
        try await withServer { server in
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(progressInterval: .zero))
            defer { Task { try? await downloader.shutdown() } }
            let jpeg = LoadingFixtures.progressiveJPEG
            // The body comes in three pieces; the next is sent only once the bytes so far have
            // been seen, so the count does not depend on how busy the machine is.
            let task = downloader.task(for: ImageDownloadRequest(url: server.url("/gated/p.jpg?parts=3"), progressive: true))
            var received: [Int] = []
            var partials: [Data] = []
            var final: ImageDownloadResult?
            for try await event in task.events {
                switch event {
                case .progress(let p):
                    #expect(final == nil)
                    received.append(p.receivedBytes)
                    #expect(p.expectedBytes == jpeg.count)
                case .partialData(let data):
                    #expect(final == nil, "partial bytes after the result")
                    partials.append(data)
                    server.openGate()
                case .completed(let r): final = r
                }
            }
            #expect(received == received.sorted() && received.last == jpeg.count)
            #expect(partials.count >= 2, "\(partials.count) partial deliveries")
            // Each delivery is a prefix of the body, never shorter than the one before.
            #expect(zip(partials, partials.dropFirst()).allSatisfy { $0.count <= $1.count })
            #expect(partials.allSatisfy { jpeg.starts(with: $0) })
            #expect(try #require(final).data == jpeg)
            // A plain caller of the same URL gets progress but no partial bytes.
            let plain = downloader.task(for: ImageDownloadRequest(url: server.url("/img/p.jpg")))
            for try await event in plain.events {
                if case .partialData = event { Issue.record("partial bytes for a plain request") }
            }
        }
    }

    @Test("HTTPS with a self-signed certificate fails verification (a lasting failure) unless the request accepts invalid certificates")
    func invalidCertificates() async throws {
        let dir = try TestFiles.temporaryDirectory("imago-tls")
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        let (made, _, _) = try await Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"])
        try #require(made == 0, "openssl could not make a certificate")
        let server = try await TestHTTPServer.start(tls: (cert, key))
        server.register("a.png", data: LoadingFixtures.png)
        let downloader = ImageDownloader()
        let url = server.url("/img/a.png")
        #expect(url.scheme == "https")
        let refused = await failure { _ = try await downloader.download(ImageDownloadRequest(url: url)) }
        if case .connectionFailed(_, let transient)? = refused { #expect(!transient) } else { Issue.record("\(String(describing: refused))") }
        #expect(server.count("/img/a.png") == 0)
        let accepted = try await downloader.download(ImageDownloadRequest(url: url, allowsInvalidCertificates: true))
        #expect(accepted.data == LoadingFixtures.png && server.count("/img/a.png") == 1)
        await server.stop()
        // Nothing listening: refused at once, and transient (worth retrying later).
        let start = ContinuousClock.now
        let gone = await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/img/b.png"))) }
        if case .connectionFailed(_, let transient)? = gone { #expect(transient) } else { Issue.record("\(String(describing: gone))") }
        #expect(ContinuousClock.now - start < .seconds(5))
        try await downloader.shutdown()
    }

    @Test("progress is throttled to the interval, and the last event always reports the whole body")
    func progressThrottle() async throws {
        try await withServer { server in
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(progressInterval: .milliseconds(200)))
            defer { Task { try? await downloader.shutdown() } }
            let events = Mutex<[ImageDownloadProgress]>([])
            let result = try await downloader.download(
                ImageDownloadRequest(url: server.url("/slow/noise.bin?chunk=4096&delay=25")),
                progress: { p in events.withLock { $0.append(p) } })
            let seen = events.withLock { $0 }
            #expect(result.data == LoadingFixtures.noise)
            // 16 pieces over about 400 ms: a few throttled events, then the final one.
            #expect(seen.count >= 2 && seen.count <= 5, "\(seen.count) progress events")
            #expect(seen.last == ImageDownloadProgress(receivedBytes: LoadingFixtures.noise.count, expectedBytes: LoadingFixtures.noise.count))
        }
    }

    @Test("file and data URLs are sources too; observers see every transfer's events")
    func otherSourcesAndEvents() async throws {
        let downloader = ImageDownloader()
        defer { Task { try? await downloader.shutdown() } }
        let events = downloader.events()
        let dir = try TestFiles.temporaryDirectory()
        let file = dir.appendingPathComponent("a.png")
        try LoadingFixtures.png.write(to: file)
        let fromFile = try await downloader.download(ImageDownloadRequest(url: file))
        #expect(fromFile.data == LoadingFixtures.png && fromFile.response?.statusCode == 200)
        let dataURL = URL(string: "data:image/png;base64," + LoadingFixtures.png.base64EncodedString())!
        #expect(try await downloader.download(ImageDownloadRequest(url: dataURL)).data == LoadingFixtures.png)
        #expect(try await downloader.download(ImageDownloadRequest(url: URL(string: "data:,a%20b")!)).data == Data("a b".utf8))
        #expect(
            await failure { _ = try await downloader.download(ImageDownloadRequest(url: dir.appendingPathComponent("none.png"))) }
                .map { if case .fileUnreadable = $0 { true } else { false } } == true)
        #expect(
            await failure { _ = try await downloader.download(ImageDownloadRequest(url: URL(string: "gopher://x/a.png")!)) }
                == .unsupportedScheme("gopher"))
        var seen: [String] = []
        for await event in events {
            switch event {
            case .started(let u): seen.append("started \(u.scheme ?? "")")
            case .finished(let u, _): seen.append("finished \(u.scheme ?? "")")
            case .failed(let u, _): seen.append("failed \(u.scheme ?? "")")
            default: continue
            }
            if seen.count == 8 { break }
        }
        #expect(
            seen == [
                "started file", "finished file", "started data", "finished data", "started data", "finished data",
                "started file", "failed file"
            ])
    }

    @Test("the queue starts high priority first, then FIFO or LIFO; priority changes while queued")
    func queueOrder() async throws {
        try await withServer { server in
            for order in [ImageDownloadExecutionOrder.fifo, .lifo] {
                let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(maxConcurrentDownloads: 1, executionOrder: order))
                var events = downloader.events().makeAsyncIterator()
                let blocker = downloader.task(for: ImageDownloadRequest(url: server.url("/slow/noise.bin?chunk=16384&delay=200&b=\(order)")))
                // The blocker holds the one slot before the others queue (on a loaded machine its
                // task may otherwise run after the first of theirs).
                while let event = await events.next() {
                    if case .started(let u) = event, u.query?.hasPrefix("chunk") == true { break }
                }
                var tasks: [ImageDownloadTask] = []
                for name in ["n1", "n2", "low", "n3", "high", "bumped"] {
                    let priority: ImagePriority = name == "low" || name == "bumped" ? .low : name == "high" ? .high : .normal
                    tasks.append(downloader.task(for: ImageDownloadRequest(url: server.url("/img/a.png?\(name)"), priority: priority)))
                }
                tasks[5].setPriority(.high)
                _ = try await blocker.value()
                for t in tasks { _ = try await t.value() }
                var started: [String] = []
                while started.count < 6, let event = await events.next() {
                    if case .started(let u) = event, let q = u.query, !q.hasPrefix("chunk") { started.append(q) }
                }
                let expected = order == .fifo ? ["high", "bumped", "n1", "n2", "n3", "low"] : ["bumped", "high", "n3", "n2", "n1", "low"]
                #expect(started == expected, "\(order)")
                try await downloader.shutdown()
            }
        }
    }
}
