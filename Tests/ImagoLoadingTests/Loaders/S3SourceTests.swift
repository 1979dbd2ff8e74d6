// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoLoading

@Suite("S3: object URLs and the AWS configuration")
struct S3SettingsTests {
    @Test("path-style and virtual-hosted URLs, Amazon's endpoint by region, keys and versions encoded once")
    func objectURLs() throws {
        let custom = S3Settings(region: "us-east-1", endpoint: URL(string: "http://127.0.0.1:9000/")!)
        #expect(custom.objectURL(bucket: "photos", key: "a/b c+d.jpg")?.absoluteString == "http://127.0.0.1:9000/photos/a/b%20c%2Bd.jpg")
        var virtual = custom
        virtual.endpoint = URL(string: "https://storage.example.net")
        virtual.usesPathStyle = false
        #expect(virtual.objectURL(bucket: "photos", key: "x.jpg")?.absoluteString == "https://photos.storage.example.net/x.jpg")
        #expect(
            virtual.objectURL(bucket: "my.photos", key: "x.jpg")?.absoluteString == "https://storage.example.net/my.photos/x.jpg",
            "a dotted bucket cannot be a TLS host label: path-style")
        let amazon = S3Settings(region: "eu-central-1")
        #expect(
            amazon.objectURL(bucket: "photos", key: "x.jpg", versionID: "3/L4kq+")?.absoluteString
                == "https://photos.s3.eu-central-1.amazonaws.com/x.jpg?versionId=3%2FL4kq%2B")
        #expect(amazon.objectURL(bucket: "Photos_1", key: "x.jpg")?.absoluteString == "https://s3.eu-central-1.amazonaws.com/Photos_1/x.jpg")
        #expect(amazon.objectURL(bucket: "", key: "x.jpg") == nil && amazon.objectURL(bucket: "b", key: "") == nil)
        #expect(S3Settings().region == "us-west-1", "imgproxy's region when none is configured")
    }

    @Test("s3:// URLs: bucket, key and imgproxy's raw-query version")
    func s3URLs() throws {
        let url = try #require(URL(string: "s3://photos/dir/a%20b.jpg?v%2B1"))
        let parts = try #require(S3DataLoader.object(of: url))
        #expect(parts.bucket == "photos" && parts.key == "dir/a b.jpg" && parts.version == "v+1")
        for empty in ["s3://photos/", "s3:///key"] {
            #expect(S3DataLoader.object(of: try #require(URL(string: empty))) == nil, "\(empty)")
        }
    }

    @Test("credentials and region as the AWS CLI reads them: environment, then the profile's files")
    func sharedConfiguration() throws {
        let dir = try TestFiles.temporaryDirectory()
        let credentials = dir.appendingPathComponent("credentials"), config = dir.appendingPathComponent("config")
        try """
        # a comment
        [default]
        aws_access_key_id = AKIDDEFAULT
        aws_secret_access_key = secret/default

        [media]
        aws_access_key_id=AKIDMEDIA
        aws_secret_access_key=secretmedia
        aws_session_token = token123
        """.write(to: credentials, atomically: true, encoding: .utf8)
        try """
        [default]
        region = eu-west-1
        [profile media]
        region = ap-south-1
        [profile static]
        aws_access_key_id = AKIDCONFIG
        aws_secret_access_key = secretconfig
        """.write(to: config, atomically: true, encoding: .utf8)
        let files = ["AWS_SHARED_CREDENTIALS_FILE": credentials.path, "AWS_CONFIG_FILE": config.path, "HOME": dir.path]

        let byDefault = AWSSharedConfiguration(environment: files)
        #expect(byDefault.credentials == .init(accessKeyID: "AKIDDEFAULT", secretAccessKey: "secret/default"))
        #expect(byDefault.region == "eu-west-1")
        let media = AWSSharedConfiguration(environment: files.merging(["AWS_PROFILE": "media"]) { $1 })
        #expect(media.credentials == .init(accessKeyID: "AKIDMEDIA", secretAccessKey: "secretmedia", sessionToken: "token123"))
        #expect(media.region == "ap-south-1")
        #expect(AWSSharedConfiguration(environment: files.merging(["AWS_PROFILE": "static"]) { $1 }).credentials?.accessKeyID == "AKIDCONFIG")
        let environment = AWSSharedConfiguration(
            environment: files.merging([
                "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secretenv", "AWS_REGION": "us-east-2", "AWS_DEFAULT_REGION": "x"
            ]) { $1 })
        #expect(environment.credentials == .init(accessKeyID: "AKIDENV", secretAccessKey: "secretenv") && environment.region == "us-east-2")
        let none = AWSSharedConfiguration(environment: ["HOME": dir.appendingPathComponent("nowhere").path])
        #expect(none.credentials == nil && none.region == nil)
    }
}

/// `s3://` sources from a real S3 API (OpenStack Swift's s3api on loopback, Signature V4
/// checked by the store): the conformance expectations of HTTP sources.
@Suite(
    "S3 sources on a real object store", .serialized, .enabled(if: ObjectStore.isInstalled, ObjectStore.missingReason),
    .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct S3SourceTests {
    static let photo = "exif-orientation/Landscape_1.jpg"

    func settings(_ store: ObjectStore, secret: String = "testing") -> S3Settings {
        S3Settings(
            region: "us-east-1", endpoint: store.url,
            credentials: .init(accessKeyID: "test:tester", secretAccessKey: secret))
    }

    func downloader(_ loader: S3DataLoader, maxBodyBytes: Int = 64 << 20) -> ImageDownloader {
        ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts, maxBodyBytes: maxBodyBytes), loaders: [loader])
    }

    /// A bucket of its own per test, with the photo in it.
    func bucket(_ store: ObjectStore, _ name: String, headers: [String: String] = ["Content-Type": "image/jpeg"]) async throws -> Data {
        try await store.photo(in: name, data: try Corpus.data(Self.photo), headers: headers)
    }

    @Test("a signed GET returns the object's bytes, type, ETag and Last-Modified; 304 for its validators")
    func fetchAndRevalidate() async throws {
        let store = try await ObjectStore.shared()
        let data = try await bucket(store, "s3-fetch")
        let downloader = downloader(S3DataLoader(settings: settings(store)))
        let url = try #require(URL(string: "s3://s3-fetch/dir/photo%20one.jpg"))
        let result = try await downloader.download(ImageDownloadRequest(url: url))
        #expect(result.data == data && result.response?.statusCode == 200)
        #expect(result.response?.mimeType == "image/jpeg" && result.response?.url == url)
        let etag = try #require(result.response?.etag)
        let lastModified = try #require(result.response?.lastModified)
        #expect(etag.contains(MD5.hex(Array(data))), "S3's ETag of a simple upload is the MD5 of the bytes")

        let byETag = try await downloader.download(
            ImageDownloadRequest(url: url, cachedResponse: CachedResponse(data: data, etag: etag, lastModified: nil)))
        #expect(byETag.notModified && byETag.data == data)
        let byDate = try await downloader.download(
            ImageDownloadRequest(url: url, cachedResponse: CachedResponse(data: data, etag: nil, lastModified: lastModified)))
        #expect(byDate.notModified)
        let stale = try await downloader.download(
            ImageDownloadRequest(url: url, cachedResponse: CachedResponse(data: Data([1]), etag: "\"0123\"", lastModified: nil)))
        #expect(!stale.notModified && stale.data == data, "a validator that no longer matches gets the bytes")
        #expect(try await store.gets("/s3-fetch/dir/photo%20one.jpg") == 4, "every request reached the store")
    }

    @Test("404 for a missing key or bucket, 403 for a wrong secret or no signature; typed, never a crash")
    func failures() async throws {
        let store = try await ObjectStore.shared()
        _ = try await bucket(store, "s3-failures")
        let good = downloader(S3DataLoader(settings: settings(store)))
        for missing in ["s3://s3-failures/nope.jpg", "s3://no-such-bucket/x.jpg"] {
            await #expect(throws: ImageLoadingError.unacceptableStatusCode(404), "\(missing)") {
                _ = try await good.download(ImageDownloadRequest(url: URL(string: missing)!))
            }
        }
        let wrong = downloader(S3DataLoader(settings: settings(store, secret: "wrong")))
        await #expect(throws: ImageLoadingError.unacceptableStatusCode(403)) {
            _ = try await wrong.download(ImageDownloadRequest(url: URL(string: "s3://s3-failures/dir/photo%20one.jpg")!))
        }
        // Unsigned: Amazon answers 403 for a private bucket; this store reads an unsigned request
        // as a malformed Swift one (400). Either way a refusal, not the bytes.
        var anonymous = settings(store)
        anonymous.credentials = nil
        let refusal = await #expect(throws: ImageLoadingError.self) {
            _ = try await downloader(S3DataLoader(settings: anonymous)).download(
                ImageDownloadRequest(url: URL(string: "s3://s3-failures/dir/photo%20one.jpg")!))
        }
        guard case .unacceptableStatusCode(let code) = refusal else {
            Issue.record("an unsigned request was not refused with a status: \(String(describing: refusal))")
            return
        }
        #expect([400, 403].contains(code))
        await #expect(throws: ImageLoadingError.invalidURL("s3://s3-failures/")) {
            _ = try await good.download(ImageDownloadRequest(url: URL(string: "s3://s3-failures/")!))
        }
    }

    @Test("the size limit stops the transfer; a refused s3:// URL never reaches the store")
    func limitsAndPolicy() async throws {
        let store = try await ObjectStore.shared()
        let data = try await bucket(store, "s3-limits")
        let url = URL(string: "s3://s3-limits/dir/photo%20one.jpg")!
        await #expect(throws: ImageLoadingError.bodyTooLarge(limit: 1000, declared: data.count)) {
            _ = try await downloader(S3DataLoader(settings: settings(store)), maxBodyBytes: 1000).download(ImageDownloadRequest(url: url))
        }
        let connector = CountingConnector()
        let refusing = S3DataLoader(settings: settings(store), permitsURL: { !$0.absoluteString.hasPrefix("s3://s3-limits/") }, connector: connector)
        await #expect(throws: ImageLoadingError.sourceNotAllowed(url.absoluteString)) {
            _ = try await downloader(refusing).download(ImageDownloadRequest(url: url))
        }
        #expect(connector.attempts.withLock { $0.isEmpty }, "refused before any request")
        #expect(refusing.permitsCached(url, route: nil) == false && refusing.permitsCached(URL(string: "s3://other/x")!, route: nil) == true)
    }

    @Test("twenty identical loads through the image manager: one GET; then the disk cache, fresh by the object's Cache-Control")
    func coalescingAndFreshness() async throws {
        let store = try await ObjectStore.shared()
        let data = try await bucket(store, "s3-shared", headers: ["Content-Type": "image/jpeg", "Cache-Control": "max-age=0"])
        let dir = try TestFiles.temporaryDirectory()
        let connector = CountingConnector()
        let loader = S3DataLoader(settings: settings(store), connector: connector)
        var configuration = ImageManager.Configuration(
            memoryCache: nil, dataCache: try DiskCache(directory: dir, maxAge: nil), downloader: downloader(loader))
        configuration.freshness = CacheFreshness(default: .seconds(3600), minimum: .zero, maximum: .seconds(86400), shared: true)
        let manager = ImageManager(configuration: configuration)
        let request = ImageRequest(url: URL(string: "s3://s3-shared/dir/photo%20one.jpg")!, options: [.waitStoreCache])
        let loads = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await manager.loadData(with: request).data.count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(loads == Array(repeating: data.count, count: 20))
        #expect(try await store.gets("/s3-shared/dir/photo%20one.jpg") == 1 && connector.attempts.withLock { $0.count } == 1)

        // max-age=0: the next load revalidates with the stored ETag and keeps the bytes on a 304.
        let again = try await manager.loadData(with: request)
        #expect(again.source == .network && again.revalidated && again.data == data)
        #expect(try await store.gets("/s3-shared/dir/photo%20one.jpg") == 2)
        // The object replaced: the revalidation gets the new bytes. (The store's Last-Modified has
        // whole seconds, and it answers If-Modified-Since too: replace it in a later second.)
        try await Task.sleep(for: .milliseconds(1100))
        let replaced = Data(try Corpus.data("exif-orientation/Portrait_1.jpg"))
        try await store.put("s3-shared", "dir/photo one.jpg", data: replaced, headers: ["Content-Type": "image/jpeg", "Cache-Control": "max-age=0"])
        let fresh = try await manager.loadData(with: request)
        #expect(!fresh.revalidated && fresh.data == replaced)
    }
}
