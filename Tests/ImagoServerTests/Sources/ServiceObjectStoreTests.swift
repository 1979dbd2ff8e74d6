// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoLoading
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

@Suite("Object-store settings")
struct ObjectStoreSettingsTests {
    @Test("imgproxy's S3 settings and the AWS environment configure s3 sources; off by default; the secret is never shown")
    func s3Settings() throws {
        #expect(ServerConfiguration().sources.s3 == nil)
        let (env, warnings) = try ServerConfiguration.migrate([
            "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:9000", "IMGPROXY_S3_REGION": "eu-central-1",
            "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "false", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "very-secret",
            "HOME": "/nonexistent"
        ])
        #expect(warnings.isEmpty, "\(warnings)")
        var configuration = ServerConfiguration()
        try configuration.apply(env)
        let s3 = try #require(configuration.sources.s3)
        #expect(s3.endpoint?.absoluteString == "http://127.0.0.1:9000" && s3.region == "eu-central-1" && !s3.usesPathStyle)
        #expect(s3.credentials == .init(accessKeyID: "AKID", secretAccessKey: "very-secret"))
        #expect(!configuration.summary.contains { $0.1.contains("very-secret") || $0.1.contains("AKID") })

        var defaults = ServerConfiguration()
        try defaults.apply(["IMAGO_USE_S3": "1", "AWS_REGION": "ap-south-1", "HOME": "/nonexistent"])
        #expect(defaults.sources.s3?.region == "ap-south-1" && defaults.sources.s3?.endpoint == nil && defaults.sources.s3?.usesPathStyle == true)
        #expect(defaults.sources.s3?.credentials == nil, "no key anywhere: unsigned requests, for public buckets")
        var imgproxyRegion = ServerConfiguration()
        try imgproxyRegion.apply(["IMAGO_USE_S3": "1", "HOME": "/nonexistent"])
        #expect(imgproxyRegion.sources.s3?.region == "us-west-1")
        var bad = ServerConfiguration()
        #expect(throws: ConfigurationError.self) { try bad.apply(["IMAGO_USE_S3": "1", "IMAGO_S3_ENDPOINT": "ftp://x"]) }
    }

    @Test("GCS through its S3 API with an HMAC key, Azure with imgproxy's names; incomplete settings stop the start")
    func gcsAndAzureSettings() throws {
        var gcs = ServerConfiguration()
        try gcs.apply(["IMAGO_USE_GCS": "1", "IMAGO_GCS_HMAC_ACCESS_ID": "GOOG1EXAMPLE", "IMAGO_GCS_HMAC_SECRET": "hmac-secret"])
        #expect(gcs.sources.gcs?.endpoint?.absoluteString == "https://storage.googleapis.com" && gcs.sources.gcs?.region == "auto")
        #expect(gcs.sources.gcs?.credentials == .init(accessKeyID: "GOOG1EXAMPLE", secretAccessKey: "hmac-secret") && gcs.sources.gcs?.usesPathStyle == true)
        #expect(!gcs.summary.contains { $0.1.contains("hmac-secret") })
        var noKey = ServerConfiguration()
        #expect(throws: ConfigurationError.self) { try noKey.apply(["IMAGO_USE_GCS": "1"]) }
        // imgproxy's GCS takes a service-account JSON key, which Imago does not read: refused loudly.
        #expect(throws: ConfigurationError.self) { _ = try ServerConfiguration.migrate(["IMGPROXY_USE_GCS": "1", "IMGPROXY_GCS_KEY": "{}"]) }

        let (env, warnings) = try ServerConfiguration.migrate([
            "IMGPROXY_USE_ABS": "true", "IMGPROXY_ABS_NAME": "media", "IMGPROXY_ABS_KEY": "c2VjcmV0LWtleQ==",
            "IMGPROXY_ABS_ENDPOINT": "http://127.0.0.1:10000/media"
        ])
        #expect(warnings.isEmpty, "\(warnings)")
        var azure = ServerConfiguration()
        try azure.apply(env)
        #expect(azure.sources.abs == .init(account: "media", key: "c2VjcmV0LWtleQ==", endpoint: URL(string: "http://127.0.0.1:10000/media")))
        #expect(!azure.summary.contains { $0.1.contains("c2VjcmV0LWtleQ==") })
        var badKey = ServerConfiguration()
        #expect(throws: ConfigurationError.self) { try badKey.apply(["IMAGO_USE_ABS": "1", "IMAGO_ABS_NAME": "m", "IMAGO_ABS_KEY": "%%"]) }
        #expect(throws: ConfigurationError.self) { try badKey.apply(["IMAGO_USE_ABS": "1"]) }
    }

    @Test("imgproxy's Swift settings configure swift sources; the key is never shown; a missing part stops the start")
    func swiftSettings() throws {
        #expect(ServerConfiguration().sources.swift == nil)
        let (env, warnings) = try ServerConfiguration.migrate([
            "IMGPROXY_USE_SWIFT": "true", "IMGPROXY_SWIFT_AUTH_URL": "https://keystone.example/v3", "IMGPROXY_SWIFT_USERNAME": "demo",
            "IMGPROXY_SWIFT_API_KEY": "secret-key", "IMGPROXY_SWIFT_AUTH_VERSION": "3", "IMGPROXY_SWIFT_DOMAIN": "corp",
            "IMGPROXY_SWIFT_TENANT": "media", "IMGPROXY_SWIFT_CONNECT_TIMEOUT_SECONDS": "4"
        ])
        #expect(warnings.isEmpty, "\(warnings)")
        var configuration = ServerConfiguration()
        try configuration.apply(env)
        #expect(
            configuration.sources.swift
                == SwiftStorageSettings(
                    authURL: URL(string: "https://keystone.example/v3")!, username: "demo", apiKey: "secret-key", authVersion: 3, domain: "corp",
                    tenant: "media"))
        #expect(configuration.sources.swiftConnectTimeout == .seconds(4))
        #expect(!configuration.summary.contains { $0.1.contains("secret-key") })
        var incomplete = ServerConfiguration()
        #expect(throws: ConfigurationError.self) { try incomplete.apply(["IMAGO_USE_SWIFT": "1", "IMAGO_SWIFT_AUTH_URL": "http://h/auth/v1.0"]) }
        #expect(throws: ConfigurationError.self) { try incomplete.apply(["IMAGO_USE_SWIFT": "1", "IMAGO_SWIFT_USERNAME": "u", "IMAGO_SWIFT_API_KEY": "k"]) }
    }
}

/// The service in front of a real S3 API (OpenStack Swift's s3api on loopback): the answers an
/// HTTP source gets, for `s3://` sources.
@Suite(
    "Service: s3 sources on a real object store", .serialized, .enabled(if: ObjectStore.isInstalled, ObjectStore.missingReason))
struct ServiceS3Tests {
    static func configure(_ store: ObjectStore, secret: String = "testing") -> (inout ServerConfiguration) -> Void {
        { configuration in
            configuration.sources.s3 = S3Settings(
                region: "us-east-1", endpoint: store.url, credentials: .init(accessKeyID: "test:tester", secretAccessKey: secret))
        }
    }

    @Test("resized from the bucket; 404 for a missing key or bucket; 403 with a wrong key; 404 when s3 is off or not allowed")
    func answers() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("svc-answers")
        try await store.put("svc-answers", "p/photo.jpg", data: try ServerFixtures.jpeg(width: 400, height: 300), headers: ["Content-Type": "image/jpeg"])
        try await ServiceHarness.with(Self.configure(store)) { h in
            let ok = try await h.get("/_/w:100/plain/s3://svc-answers/p/photo.jpg")
            #expect(ok.status == 200, "\(ok.errorFields)")
            #expect(try ok.image().pixelSize == PixelSize(width: 100, height: 75))
            #expect(ok["etag"] != nil)
            for missing in ["s3://svc-answers/p/none.jpg", "s3://svc-no-bucket/p/photo.jpg"] {
                let r = try await h.get("/_/w:100/plain/\(missing)")
                #expect(r.status == 404 && r.errorFields["error"] == "source_not_found", "\(missing): \(r.status) \(r.errorFields)")
            }
            #expect(try await h.get("/_/w:100/plain/s3://svc-answers/").status == 404)
        }
        try await ServiceHarness.with(Self.configure(store, secret: "wrong")) { h in
            let refused = try await h.get("/_/w:100/plain/s3://svc-answers/p/photo.jpg")
            #expect(refused.status == 403)
        }
        try await ServiceHarness.with { h in
            let off = try await h.get("/_/w:100/plain/s3://svc-answers/p/photo.jpg")
            #expect(off.status == 404 && off.errorFields["error"] == "invalid_source")
        }
        let before = try await store.gets("/svc-answers/p/photo.jpg")
        try await ServiceHarness.with({ c in
            Self.configure(store)(&c)
            c.security.allowedSources = ["s3://svc-other/"]
        }) { h in
            let refused = try await h.get("/_/w:100/plain/s3://svc-answers/p/photo.jpg")
            #expect(refused.status == 404 && refused.errorFields["error"] == "source_not_allowed")
        }
        #expect(try await store.gets("/svc-answers/p/photo.jpg") == before, "a refused source is never requested")
    }

    @Test("gs:// through the S3 API: the same answers under Google's scheme")
    func gsThroughS3() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("svc-gs")
        try await store.put("svc-gs", "photo.jpg", data: try ServerFixtures.jpeg(width: 200, height: 100), headers: ["Content-Type": "image/jpeg"])
        try await ServiceHarness.with({ c in
            // Google's region is "auto"; this store signs with its own location.
            c.sources.gcs = S3Settings(region: "us-east-1", endpoint: store.url, credentials: .init(accessKeyID: "test:tester", secretAccessKey: "testing"))
        }) { h in
            let ok = try await h.get("/_/w:50/plain/gs://svc-gs/photo.jpg")
            #expect(ok.status == 200, "\(ok.errorFields)")
            #expect(try ok.image().pixelSize == PixelSize(width: 50, height: 25))
            let s3 = try await h.get("/_/w:50/plain/s3://svc-gs/photo.jpg")
            #expect(s3.status == 404 && s3.errorFields["error"] == "invalid_source", "s3 itself is not enabled")
        }
    }

    @Test("IMAGO_RESULT_STORAGE: a result made by one instance is served by another without a render; a purge reaches it")
    func sharedResults() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("svc-results")
        try await store.createContainer("svc-shared-src")
        try await store.put("svc-shared-src", "photo.jpg", data: try ServerFixtures.jpeg(width: 640, height: 480), headers: ["Content-Type": "image/jpeg"])
        let configure: (inout ServerConfiguration) -> Void = { c in
            Self.configure(store)(&c)
            c.cache.resultStorage = .init(store: .s3(c.sources.s3!, bucket: "svc-results"), prefix: "cluster-a")
        }
        let path = "/_/rs:fit:160:160/f:webp/plain/s3://svc-shared-src/photo.jpg"
        let made = try await ServiceHarness.with(configure) { h in
            let r = try await h.get(path)
            #expect(r.status == 200, "\(r.errorFields)")
            try await eventually { h.service.manager.sharedUploadsInFlight == 0 }
            return r.body
        }
        try await ServiceHarness.with(configure) { h in
            let r = try await h.get(path)
            #expect(r.status == 200 && r.body == made, "the same bytes")
            #expect(h.service.manager.sharedResultHits == 1, "read from the shared results, not rendered")
            let scraped = String(decoding: try await h.get("/metrics").body, as: UTF8.self)
            #expect(scraped.contains("imago_shared_result_hits_total 1"), "\(scraped)")
            try await h.service.purge(source: "s3://svc-shared-src/photo.jpg")
        }
        try await ServiceHarness.with(configure) { h in
            let again = try await h.get(path)
            #expect(again.status == 200)
            #expect(h.service.manager.sharedResultHits == 0, "purged: made again")
        }
        for refused in [
            ["IMAGO_RESULT_STORAGE": "swift://results/x"], ["IMAGO_RESULT_STORAGE": "http://results/x"],
            ["IMAGO_RESULT_STORAGE": "s3://results/x", "IMAGO_RESULT_CACHE_SIZE": "0"]
        ] {
            var configuration = ServerConfiguration()
            #expect(throws: ConfigurationError.self, "\(refused)") { try configuration.apply(refused) }
        }
        var configuration = ServerConfiguration()
        try configuration.apply(["IMAGO_RESULT_STORAGE": "s3://results/a/b", "AWS_REGION": "eu-west-1", "HOME": "/nonexistent"])
        #expect(configuration.cache.resultStorage?.prefix == "a/b" && configuration.summary.contains { $0.1 == "s3://results/a/b" })
    }

    @Test("twenty identical requests: one GET from the bucket; other sizes from the source cache; a purge fetches again")
    func coalescingAndPurge() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("svc-shared")
        try await store.put("svc-shared", "photo.jpg", data: try ServerFixtures.jpeg(width: 640, height: 480), headers: ["Content-Type": "image/jpeg"])
        try await ServiceHarness.with(Self.configure(store)) { h in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await h.get("/_/w:120/plain/s3://svc-shared/photo.jpg").status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            #expect(try await store.gets("/svc-shared/photo.jpg") == 1)
            #expect(try await h.get("/_/w:300/plain/s3://svc-shared/photo.jpg").status == 200)
            #expect(try await store.gets("/svc-shared/photo.jpg") == 1, "a new size of a cached source: no fetch")
            try await h.service.purge(source: "s3://svc-shared/photo.jpg")
            #expect(try await h.get("/_/w:301/plain/s3://svc-shared/photo.jpg").status == 200)
            #expect(try await store.gets("/svc-shared/photo.jpg") == 2, "purged: fetched again")
        }
    }
}

/// The service in front of a real OpenStack Swift (tempauth on loopback): the answers an HTTP
/// source gets, for `swift://` sources.
@Suite(
    "Service: swift sources on a real object store", .serialized, .enabled(if: ObjectStore.isInstalled, ObjectStore.missingReason))
struct ServiceSwiftTests {
    @Test("resized from the container; 404 for a missing object; one GET for twenty identical requests; off by default")
    func answers() async throws {
        let store = try await ObjectStore.shared()
        try await store.createContainer("svc-swift")
        try await store.put("svc-swift", "a/photo.jpg", data: try ServerFixtures.jpeg(width: 400, height: 300), headers: ["Content-Type": "image/jpeg"])
        try await ServiceHarness.with({ c in
            c.sources.swift = SwiftStorageSettings(authURL: store.url.appendingPathComponent("auth/v1.0"), username: "test:tester", apiKey: "testing")
        }) { h in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await h.get("/_/w:100/plain/swift://svc-swift/a/photo.jpg").status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 20))
            #expect(try await store.gets("/v1/AUTH_test/svc-swift/a/photo.jpg") == 1)
            let ok = try await h.get("/_/w:200/plain/swift://svc-swift/a/photo.jpg")
            #expect(ok.status == 200)
            #expect(try ok.image().pixelSize == PixelSize(width: 200, height: 150))
            let missing = try await h.get("/_/w:100/plain/swift://svc-swift/a/none.jpg")
            #expect(missing.status == 404 && missing.errorFields["error"] == "source_not_found")
        }
        try await ServiceHarness.with { h in
            let off = try await h.get("/_/w:100/plain/swift://svc-swift/a/photo.jpg")
            #expect(off.status == 404 && off.errorFields["error"] == "invalid_source")
        }
    }
}

/// `abs://` sources through the service: the signed request as a loopback server receives it
/// (no Azure server runs here; the signature is checked against Microsoft's examples in
/// ImagoLoadingTests).
@Suite("Service: abs sources")
struct ServiceAzureTests {
    @Test("the blob is fetched from ENDPOINT/CONTAINER/BLOB with a Shared Key, resized, and cached like any source")
    func azure() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 80, height: 40))
            let key = Data("not a real key".utf8).base64EncodedString()
            try await ServiceHarness.with({ c in
                c.sources.abs = .init(account: "media", key: key, endpoint: URL(string: h.source("")))
            }) { azure in
                let ok = try await azure.get("/_/w:40/plain/abs://img/a.png")
                #expect(ok.status == 200, "\(ok.errorFields)")
                #expect(try ok.image().pixelSize == PixelSize(width: 40, height: 20))
                #expect(h.origin.headers("/img/a.png")?["authorization"]?.hasPrefix("SharedKey media:") == true)
                #expect(h.origin.headers("/img/a.png")?["x-ms-version"] == AzureSharedKey.version)
                let again = try await azure.get("/_/w:30/plain/abs://img/a.png")
                #expect(again.status == 200 && h.origin.count("/img/a.png") == 1, "cached like any source")
                let missing = try await azure.get("/_/w:30/plain/abs://img/none.png")
                #expect(missing.status == 404)
            }
        }
    }
}
