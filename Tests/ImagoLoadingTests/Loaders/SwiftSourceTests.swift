// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoLoading

@Suite("OpenStack Swift: sign-in settings")
struct SwiftSettingsTests {
    @Test("version 0 chooses by the URL, as imgproxy's library does")
    func versions() throws {
        func version(_ url: String, _ given: Int = 0) -> Int {
            SwiftStorageSettings(authURL: URL(string: url)!, username: "u", apiKey: "k", authVersion: given).effectiveAuthVersion
        }
        #expect(version("http://h:8080/auth/v1.0") == 1 && version("https://keystone/v3") == 3 && version("https://keystone/v2.0") == 2)
        #expect(version("https://keystone/v3", 1) == 1 && version("https://identity/", 0) == 1)
    }

    @Test("Keystone's password sign-in bodies: v3 with domain and project scope, v2 with tenantName")
    func bodies() throws {
        var settings = SwiftStorageSettings(authURL: URL(string: "https://k/v3")!, username: "tester", apiKey: "p\"w", tenant: "test")
        #expect(
            String(decoding: try SwiftAuthenticator.keystoneBody(settings, version: 3), as: UTF8.self)
                == #"{"auth":{"identity":{"methods":["password"],"password":{"user":{"domain":{"name":"Default"},"name":"tester","password":"p\"w"}}},"scope":{"project":{"domain":{"name":"Default"},"name":"test"}}}}"#
        )
        settings.tenant = nil
        settings.domain = "corp"
        #expect(
            String(decoding: try SwiftAuthenticator.keystoneBody(settings, version: 3), as: UTF8.self)
                == #"{"auth":{"identity":{"methods":["password"],"password":{"user":{"domain":{"name":"corp"},"name":"tester","password":"p\"w"}}}}}"#
        )
        settings.tenant = "t1"
        #expect(
            String(decoding: try SwiftAuthenticator.keystoneBody(settings, version: 2), as: UTF8.self)
                == #"{"auth":{"passwordCredentials":{"password":"p\"w","username":"tester"},"tenantName":"t1"}}"#)
    }
}

/// `swift://` sources from a real OpenStack Swift (one node on loopback): tempauth against the
/// store itself; Keystone v3 and v2 through a stand-in that answers Keystone's documented
/// responses with real tokens of the store (Keystone is not packaged here).
@Suite(
    "OpenStack Swift sources on a real store", .serialized, .enabled(if: ObjectStore.isInstalled, ObjectStore.missingReason),
    .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct SwiftSourceTests {
    static let photo = "exif-orientation/Landscape_1.jpg"

    static func tempauth(_ store: ObjectStore, key: String = "testing") -> SwiftStorageSettings {
        SwiftStorageSettings(authURL: store.url.appendingPathComponent("auth/v1.0"), username: "test:tester", apiKey: key)
    }

    func downloader(_ loader: SwiftDataLoader) -> ImageDownloader {
        ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])
    }

    /// A container of its own per test, with the photo in it.
    func container(_ store: ObjectStore, _ name: String, headers: [String: String] = ["Content-Type": "image/jpeg"]) async throws -> Data {
        try await store.photo(in: name, data: try Corpus.data(Self.photo), headers: headers)
    }

    @Test("tempauth: the object's bytes, type and validators; 304 when unchanged; 404 for a missing object or container")
    func tempauthFetch() async throws {
        let store = try await ObjectStore.shared()
        let data = try await container(store, "sw-fetch")
        let downloader = downloader(SwiftDataLoader(settings: Self.tempauth(store)))
        let url = URL(string: "swift://sw-fetch/dir/photo%20one.jpg")!
        let result = try await downloader.download(ImageDownloadRequest(url: url))
        #expect(result.data == data && result.response?.mimeType == "image/jpeg" && result.response?.url == url)
        let etag = try #require(result.response?.etag)
        #expect(etag.contains(MD5.hex(Array(data))))
        let again = try await downloader.download(
            ImageDownloadRequest(url: url, cachedResponse: CachedResponse(data: data, etag: etag, lastModified: nil)))
        #expect(again.notModified)
        for missing in ["swift://sw-fetch/none.jpg", "swift://sw-no-container/x.jpg"] {
            await #expect(throws: ImageLoadingError.unacceptableStatusCode(404), "\(missing)") {
                _ = try await downloader.download(ImageDownloadRequest(url: URL(string: missing)!))
            }
        }
        #expect(try await store.gets("/v1/AUTH_test/sw-fetch/dir/photo%20one.jpg") == 2)
    }

    @Test("a wrong key fails the sign-in, typed and lasting; a refused URL never signs in or fetches")
    func refusals() async throws {
        let store = try await ObjectStore.shared()
        _ = try await container(store, "sw-refusals")
        let url = URL(string: "swift://sw-refusals/dir/photo%20one.jpg")!
        let failure = await #expect(throws: ImageLoadingError.self) {
            _ = try await downloader(SwiftDataLoader(settings: Self.tempauth(store, key: "wrong"))).download(ImageDownloadRequest(url: url))
        }
        guard case .connectionFailed(let message, let transient) = failure else {
            Issue.record("not a sign-in failure: \(String(describing: failure))")
            return
        }
        #expect(message.contains("Swift authentication failed") && message.contains("401") && !transient)
        let connector = CountingConnector()
        let refusing = SwiftDataLoader(settings: Self.tempauth(store), permitsURL: { _ in false }, connector: connector)
        await #expect(throws: ImageLoadingError.sourceNotAllowed(url.absoluteString)) {
            _ = try await downloader(refusing).download(ImageDownloadRequest(url: url))
        }
        #expect(connector.attempts.withLock { $0.isEmpty })
    }

    @Test("403 for a user the container does not admit; the size limit stops the transfer; a stale object is revalidated, a replaced one fetched")
    func forbiddenLimitsFreshness() async throws {
        let store = try await ObjectStore.shared()
        let data = try await container(store, "sw-fresh", headers: ["Content-Type": "image/jpeg", "Cache-Control": "max-age=0"])
        let url = URL(string: "swift://sw-fresh/dir/photo%20one.jpg")!
        var reader = Self.tempauth(store, key: "reading")
        reader.username = "test:reader"
        await #expect(throws: ImageLoadingError.unacceptableStatusCode(403)) {
            _ = try await downloader(SwiftDataLoader(settings: reader)).download(ImageDownloadRequest(url: url))
        }
        let small = ImageDownloader(
            configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, maxBodyBytes: 1000),
            loaders: [SwiftDataLoader(settings: Self.tempauth(store))])
        await #expect(throws: ImageLoadingError.bodyTooLarge(limit: 1000, declared: data.count)) {
            _ = try await small.download(ImageDownloadRequest(url: url))
        }
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                memoryCache: nil, dataCache: try DiskCache(directory: try TestFiles.temporaryDirectory(), maxAge: nil),
                downloader: downloader(SwiftDataLoader(settings: Self.tempauth(store)))))
        let request = ImageRequest(url: url, options: [.waitStoreCache])
        #expect(try await manager.loadData(with: request).data == data)
        let again = try await manager.loadData(with: request)
        #expect(again.revalidated && again.data == data, "max-age=0: revalidated, 304, bytes kept")
        try await Task.sleep(for: .milliseconds(1100))
        let replaced = try Corpus.data("exif-orientation/Portrait_1.jpg")
        try await store.put("sw-fresh", "dir/photo one.jpg", data: replaced, headers: ["Content-Type": "image/jpeg", "Cache-Control": "max-age=0"])
        let fresh = try await manager.loadData(with: request)
        #expect(!fresh.revalidated && fresh.data == replaced)
    }

    @Test("Keystone v3 (project scope, the public endpoint of the region) and v2 sign in, then fetch from the store")
    func keystone() async throws {
        let store = try await ObjectStore.shared()
        let data = try await container(store, "sw-keystone")
        let url = URL(string: "swift://sw-keystone/dir/photo%20one.jpg")!
        let v3 = SwiftStorageSettings(
            authURL: store.keystone.appendingPathComponent("v3"), username: "tester", apiKey: "testing", tenant: "test", region: "RegionOne")
        #expect(try await downloader(SwiftDataLoader(settings: v3)).download(ImageDownloadRequest(url: url)).data == data)
        // Without a region, the catalog's first public object-store endpoint: the stand-in lists
        // RegionTwo's first, a loopback address where nothing listens.
        var unscoped = v3
        unscoped.tenant = nil
        unscoped.region = nil
        let refused = await #expect(throws: ImageLoadingError.self) {
            _ = try await downloader(SwiftDataLoader(settings: unscoped)).download(ImageDownloadRequest(url: url))
        }
        #expect("\(String(describing: refused))".contains("127.0.0.3:9"))
        let v2 = SwiftStorageSettings(authURL: store.keystone.appendingPathComponent("v2.0"), username: "tester", apiKey: "testing", tenant: "test")
        #expect(try await downloader(SwiftDataLoader(settings: v2)).download(ImageDownloadRequest(url: url)).data == data)
        var wrong = v3
        wrong.apiKey = "nope"
        await #expect(throws: ImageLoadingError.self) {
            _ = try await downloader(SwiftDataLoader(settings: wrong)).download(ImageDownloadRequest(url: url))
        }
    }

    @Test("twenty identical loads: one sign-in and one GET; an expired token is renewed once and the load goes on")
    func sharedSessionAndRenewal() async throws {
        let store = try await ObjectStore.shared()
        let data = try await container(store, "sw-shared")
        let connector = CountingConnector()
        func signIns() -> Int { connector.urls.withLock { $0.filter { $0.path == "/auth/v1.0" }.count } }
        let dir = try TestFiles.temporaryDirectory()
        let loader = SwiftDataLoader(settings: Self.tempauth(store), connector: connector)
        let manager = ImageManager(
            configuration: ImageManager.Configuration(memoryCache: nil, dataCache: try DiskCache(directory: dir, maxAge: nil), downloader: downloader(loader)))
        let request = ImageRequest(url: URL(string: "swift://sw-shared/dir/photo%20one.jpg")!, options: [.waitStoreCache])
        let loads = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await manager.loadData(with: request).data.count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(loads == Array(repeating: data.count, count: 20))
        #expect(try await store.gets("/v1/AUTH_test/sw-shared/dir/photo%20one.jpg") == 1)
        #expect(signIns() == 1)

        try await store.expireTokens()
        // The loader still holds the old token: the store answers 401, the loader signs in again.
        let result = try await downloader(loader).download(ImageDownloadRequest(url: try #require(request.url)))
        #expect(result.data == data)
        #expect(signIns() == 2, "signed in again after the 401")
    }
}
