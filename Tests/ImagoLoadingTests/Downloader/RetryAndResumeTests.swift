// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoLoading

/// Retries with backoff, alternative URLs and resumed downloads (`Range` with `If-Range`), against
/// a loopback server that cuts bodies short, answers 503 and serves ranges.
@Suite("Downloader: retries, alternative sources, resumed downloads")
struct RetryAndResumeTests {
    static func downloader(_ policy: ImageDownloadRetryPolicy, limit: Int = 32 << 20) -> ImageDownloader {
        var c = ImageDownloaderConfiguration(timeouts: patientTimeouts)
        c.retryPolicy = policy
        c.resumableDataLimit = limit
        return ImageDownloader(configuration: c)
    }

    static let quick = ImageDownloadRetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(10))

    /// Events of `downloader` gathered while `body` runs.
    static func events(_ downloader: ImageDownloader, _ body: () async throws -> Void) async throws -> [ImageDownloaderEvent] {
        let stream = downloader.events()
        let seen = Mutex<[ImageDownloaderEvent]>([])
        let reader = Task { for await e in stream { seen.withLock { $0.append(e) } } }
        try await body()
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        return seen.withLock { $0 }
    }

    @Test("a body cut short resumes from where it stopped: Range and If-Range, 206, the whole bytes")
    func resumes() async throws {
        try await withServer { server in
            let downloader = Self.downloader(Self.quick)
            let url = server.url("/flaky/noise.bin?cut=20000&fail=1")
            var result: ImageDownloadResult?
            let events = try await Self.events(downloader) { result = try await downloader.download(ImageDownloadRequest(url: url)) }
            #expect(result?.data == LoadingFixtures.noise)
            #expect(server.count("/flaky/noise.bin") == 2)
            let headers = try #require(server.headers("/flaky/noise.bin"))
            #expect(headers["range"] == "bytes=20000-")
            #expect(headers["if-range"] == "\"\(LoadingFixtures.noise.count)-v1\"")
            #expect(events.contains { if case .resuming(_, offset: 20000) = $0 { true } else { false } })
            #expect(events.contains { if case .retrying(_, attempt: 1, _, .truncatedBody) = $0 { true } else { false } })
            #expect(downloader.resumable.byteCount == 0, "used up")
        }
    }

    @Test("a resource changed since: If-Range fails, the whole new body is taken, never spliced")
    func changed() async throws {
        try await withServer { server in
            let downloader = Self.downloader(Self.quick)
            let result = try await downloader.download(ImageDownloadRequest(url: server.url("/flaky/noise.bin?cut=20000&fail=1&change=1")))
            #expect(result.data == Data(LoadingFixtures.noise.reversed()))
            #expect(server.headers("/flaky/noise.bin")?["range"] == "bytes=20000-")
        }
    }

    @Test("without retries, the next request for the URL resumes (Nuke's resumable data)")
    func nextRequestResumes() async throws {
        try await withServer { server in
            let downloader = Self.downloader(.none)
            let url = server.url("/flaky/noise.bin?cut=30000&fail=1&etag=none")
            let first = await failure { _ = try await downloader.download(ImageDownloadRequest(url: url)) }
            #expect(first == .truncatedBody(received: 30000, expected: LoadingFixtures.noise.count))
            #expect(downloader.resumable.byteCount == 30000)
            let second = try await downloader.download(ImageDownloadRequest(url: url))
            #expect(second.data == LoadingFixtures.noise)
            let headers = try #require(server.headers("/flaky/noise.bin"))
            #expect(headers["range"] == "bytes=30000-" && headers["if-range"] == "Sun, 22 Nov 2026 08:00:00 GMT")
        }
    }

    @Test("a weak ETag is no validator, Last-Modified beside it is; a zero budget keeps nothing")
    func notResumable() async throws {
        try await withServer { server in
            server.register("weak.bin", data: LoadingFixtures.noise, contentType: "application/octet-stream")
            let downloader = Self.downloader(Self.quick)
            // A weak ETag still has Last-Modified beside it: resumed by that.
            _ = try await downloader.download(ImageDownloadRequest(url: server.url("/flaky/weak.bin?cut=1000&fail=1&etag=weak")))
            #expect(server.headers("/flaky/weak.bin")?["if-range"] == "Sun, 22 Nov 2026 08:00:00 GMT")
            let none = Self.downloader(Self.quick, limit: 0)
            let result = try await none.download(ImageDownloadRequest(url: server.url("/flaky/noise.bin?cut=1000&fail=1")))
            #expect(result.data == LoadingFixtures.noise)
            #expect(server.headers("/flaky/noise.bin")?["range"] == nil, "nothing kept: the whole body again")
        }
    }

    @Test("503 with Retry-After: waited for, then served; 404 is not retried")
    func statuses() async throws {
        try await withServer { server in
            let downloader = Self.downloader(ImageDownloadRetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(1)))
            let start = ContinuousClock.now
            let result = try await downloader.download(ImageDownloadRequest(url: server.url("/busy/a.png?fail=1&after=1")))
            #expect(result.data == LoadingFixtures.png)
            #expect(ContinuousClock.now - start >= .milliseconds(900), "Retry-After: 1 was honoured")
            #expect(server.count("/busy/a.png") == 2)
            let missing = await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/img/nothing.png"))) }
            #expect(missing == .unacceptableStatusCode(404))
            #expect(server.count("/img/nothing.png") == 1)
            // Out of attempts: the last error.
            let busy = await failure { _ = try await downloader.download(ImageDownloadRequest(url: server.url("/busy/a.png?fail=9&after=0"))) }
            #expect(busy == .unacceptableStatusCode(503))
        }
    }

    @Test("alternative URLs: tried in order when the source fails, the result names the one that answered")
    func alternatives() async throws {
        try await withServer { server in
            let downloader = Self.downloader(.none)
            var request = ImageDownloadRequest(url: server.url("/img/missing.png"))
            request.alternativeURLs = [server.url("/status/500"), server.url("/img/a.png")]
            let result = try await downloader.download(request)
            #expect(result.data == LoadingFixtures.png && result.url == server.url("/img/a.png"))
            #expect(server.count("/img/missing.png") == 1 && server.count("/status/500") == 1)
            // Through the manager: the image loads from the alternative.
            let manager = ImageManager(
                configuration: {
                    var c = ImageManager.Configuration()
                    c.downloader = downloader
                    return c
                }())
            var imageRequest = ImageRequest(url: server.url("/img/gone.png"))
            imageRequest.alternativeURLs = [server.url("/img/a.png")]
            let image = try await manager.loadImage(with: imageRequest).image
            #expect(image.pixelSize == PixelSize(width: 64, height: 48))
        }
    }

    @Test("backoff: doubling from the first delay, jitter bounded, Retry-After respected, capped")
    func backoff() {
        let p = ImageDownloadRetryPolicy(maxAttempts: 5, initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .seconds(1), jitter: 0.2)
        #expect(p.delay(afterAttempt: 1, random: 0.5) == .milliseconds(100))
        #expect(p.delay(afterAttempt: 2, random: 0.5) == .milliseconds(200))
        #expect(p.delay(afterAttempt: 3, random: 0.5) == .milliseconds(400))
        #expect(p.delay(afterAttempt: 9, random: 0.5) == .seconds(1))
        #expect(p.delay(afterAttempt: 1, random: 0) == .milliseconds(80) && p.delay(afterAttempt: 1, random: 1) == .milliseconds(120))
        #expect(p.delay(afterAttempt: 1, retryAfter: .milliseconds(700), random: 0.5) == .milliseconds(700))
        #expect(p.delay(afterAttempt: 1, retryAfter: .seconds(60), random: 0.5) == .seconds(1))
        #expect(ImageDownloadRetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }

    @Test("Content-Range: read strictly; the resumable store keeps within its budget, oldest out first")
    func parts() {
        #expect(ImageDownloader.contentRange("bytes 100-199/200")! == (100, 199, 200))
        #expect(ImageDownloader.contentRange("bytes 0-9/*")! == (0, 9, nil))
        for bad in ["bytes 100-99/200", "bytes 100-199/150", "items 0-1/2", "bytes x-1/2", "bytes 0-9", nil] as [String?] {
            #expect(ImageDownloader.contentRange(bad) == nil)
        }
        let store = ResumableDownloads(limit: 100)
        store.keep(Data(count: 60), validator: "a", for: "1")
        store.keep(Data(count: 30), validator: "b", for: "2")
        store.keep(Data(count: 50), validator: "c", for: "3")
        #expect(store.take("1") == nil && store.take("2")?.validator == "b" && store.take("3")?.data.count == 50)
        store.keep(Data(count: 101), validator: "d", for: "4")
        #expect(store.byteCount == 0)
    }
}
