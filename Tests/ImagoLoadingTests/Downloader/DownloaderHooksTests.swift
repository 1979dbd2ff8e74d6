// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoLoading

@Suite("ImageDownloader hooks and edges, over the mock loader")
struct DownloaderHooksTests {
    struct Refusal: Error {}

    @Test("a request modifier or response modifier that throws refuses the download; a body transform changes the bytes")
    func hooks() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: Data([1, 2, 3]))
        let refusing = ImageDownloader(
            configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, requestModifier: { _ in throw Refusal() }),
            loaders: [loader])
        let e = await failure { _ = try await refusing.download(ImageDownloadRequest(url: loader.url("/a.png"))) }
        if case .rejected(let m)? = e { #expect(m.hasPrefix("request modifier")) } else { Issue.record("\(String(describing: e))") }
        #expect(loader.count("/a.png") == 0)
        let typed = ImageDownloader(
            configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, requestModifier: { _ in throw ImageLoadingError.notCached }),
            loaders: [loader])
        #expect(await failure { _ = try await typed.download(ImageDownloadRequest(url: loader.url("/a.png"))) } == .notCached)
        let heads = ImageDownloader(
            configuration: ImageDownloaderConfiguration(
                timeouts: patientTimeouts,
                responseModifier: { head in
                    guard head.statusCode == 200 else { return head }
                    throw Refusal()
                }), loaders: [loader])
        let r = await failure { _ = try await heads.download(ImageDownloadRequest(url: loader.url("/a.png"))) }
        if case .rejected(let m)? = r { #expect(m.hasPrefix("response modifier")) } else { Issue.record("\(String(describing: r))") }
        let decrypting = ImageDownloader(
            configuration: ImageDownloaderConfiguration(
                timeouts: patientTimeouts,
                bodyTransform: { data, head in
                    #expect(head?.statusCode == 200)
                    return Data(data.reversed())
                }), loaders: [loader])
        #expect(try await decrypting.download(ImageDownloadRequest(url: loader.url("/a.png"))).data == Data([3, 2, 1]))
        let broken = ImageDownloader(
            configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, bodyTransform: { _, _ in throw Refusal() }),
            loaders: [loader])
        let b = await failure { _ = try await broken.download(ImageDownloadRequest(url: loader.url("/a.png"))) }
        if case .rejected(let m)? = b { #expect(m.hasPrefix("body transform")) } else { Issue.record("\(String(describing: b))") }
    }

    @Test("custom acceptable statuses and content types; an empty body; a 304 with nothing cached")
    func validation() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: Data([1]))
        loader.register("/empty.png", data: Data())
        let strict = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, acceptableStatusCodes: [201]), loaders: [loader])
        #expect(await failure { _ = try await strict.download(ImageDownloadRequest(url: loader.url("/a.png"))) } == .unacceptableStatusCode(200))
        let typed = ImageDownloader(
            configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, acceptableContentTypes: ["image/webp"]), loaders: [loader])
        #expect(
            await failure { _ = try await typed.download(ImageDownloadRequest(url: loader.url("/a.png"))) }
                == .unacceptableContentType("image/png"))
        let plain = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
        #expect(await failure { _ = try await plain.download(ImageDownloadRequest(url: loader.url("/empty.png"))) } == .emptyBody)
        let small = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, maxBodyBytes: 0), loaders: [loader])
        #expect(
            await failure { _ = try await small.download(ImageDownloadRequest(url: loader.url("/a.png"))) }
                == .bodyTooLarge(limit: 0, declared: 1))
        #expect(
            await failure { _ = try await plain.download(ImageDownloadRequest(url: URL(string: "ftp://x.test/a")!)) }
                == .unsupportedScheme("ftp"))
    }

    @Test("callers that differ in headers, credentials or validators get transfers of their own")
    func separateTransfers() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: Data([1]))
        loader.hold("/a.png")
        let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
        let url = loader.url("/a.png")
        let tasks = [
            downloader.task(for: ImageDownloadRequest(url: url)),
            downloader.task(for: ImageDownloadRequest(url: url)),
            downloader.task(for: ImageDownloadRequest(url: url, headers: ["X": "1"])),
            downloader.task(for: ImageDownloadRequest(url: url, credentials: .init(user: "u", password: "p"))),
            downloader.task(for: ImageDownloadRequest(url: url, cachedResponse: CachedResponse(data: Data([9]), etag: "e", lastModified: nil)))
        ]
        try await waitUntil { loader.runningCount == 4 }
        loader.release("/a.png")
        for t in tasks { _ = try await t.value() }
        #expect(loader.count("/a.png") == 4)
    }

    @Test("an observer's stream ends when it stops listening; other observers keep theirs")
    func observers() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: Data([1]))
        let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
        let kept = downloader.events()
        do {
            let dropped = downloader.events()
            _ = dropped
        }
        _ = try await downloader.download(ImageDownloadRequest(url: loader.url("/a.png")))
        var names: [String] = []
        for await event in kept {
            switch event {
            case .started: names.append("started")
            case .receivedResponse(_, let code): names.append("response \(code)")
            case .progress: continue
            case .finished(_, let bytes): names.append("finished \(bytes)")
            case .failed: names.append("failed")
            case .retrying: names.append("retrying")
            case .resuming: names.append("resuming")
            }
            if names.count == 3 { break }
        }
        #expect(names == ["started", "response 200", "finished 1"])
    }
}

@Suite("HTTP redirects and credentials against the loopback server", .serialized)
struct RedirectCredentialTests {
    @Test("credentials follow a redirect on the same host and are dropped when it leaves for another host")
    func credentialsStayHome() async throws {
        try await withServer { server in
            // Patient: a loaded machine's slow connect is not what this tests.
            let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts))
            defer { Task { try? await downloader.shutdown() } }
            let credentials = DataLoadRequest.Credentials(user: "user", password: "pass")
            // Same host: /away → /auth/a.png keeps the credentials, so the guarded file is served.
            let same = server.url("/auth/a.png").absoluteString
            let home = try await downloader.download(
                ImageDownloadRequest(
                    url: URL(string: server.url("/away").absoluteString + "?to=" + same)!, credentials: credentials))
            #expect(home.data == LoadingFixtures.png && home.response?.url.absoluteString == same)
            // Another host name for the same loopback server: the credentials stay behind.
            let other = "http://localhost:\(server.port)/auth/a.png"
            let away = await failure {
                _ = try await downloader.download(
                    ImageDownloadRequest(
                        url: URL(string: server.url("/away").absoluteString + "?to=" + other + "&n=2")!, credentials: credentials))
            }
            #expect(away == .unacceptableStatusCode(401), "\(String(describing: away))")
            #expect(server.headers("/auth/a.png")?["authorization"] == nil)
        }
    }
}
