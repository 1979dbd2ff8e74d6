// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Crypto
public import ImagoCache
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Results (or sources) shared through an S3 bucket or an OpenStack Swift container
/// (``SharedResultStoring``): what `IMAGO_RESULT_STORAGE` (`s3://BUCKET/PREFIX`,
/// `swift://CONTAINER/PREFIX`) makes, one for results and one for sources.
///
/// A result is one object, `PREFIX/SOURCE/RESULT`, where `SOURCE` is the SHA-256 of the
/// source's part of the key and `RESULT` that of the whole key (hex): names of fixed length
/// whatever the URL, and a source's results side by side, so a purge lists `PREFIX/SOURCE/`
/// and deletes what it finds. The result's metadata (format, size) travels as the object's
/// (`x-amz-meta-*`, `X-Object-Meta-*`). Requests are signed as the sources' are (Signature V4,
/// a Swift token renewed when refused) and bounded by ``timeout``.
public final class ObjectStoreResults: SharedResultStoring {
    /// Where the results live.
    public enum Store: Sendable, Hashable {
        /// An S3 bucket.
        case s3(S3Settings, bucket: String)
        /// An OpenStack Swift container.
        case swift(SwiftStorageSettings, container: String)
    }

    /// The bucket or container.
    public let store: Store
    /// What object names start with (no leading or trailing `/`); may be empty.
    public let prefix: String
    /// Bounds each request. Default 15 s.
    public let timeout: Duration
    /// The largest result read back; larger objects count as absent. 64 MiB.
    package static let maxResultBytes = 64 << 20

    private let connector: any HTTPConnecting
    private let authenticator: SwiftAuthenticator?

    /// Results in `store` under `prefix`, each request bounded by `timeout` (default 15 s).
    public convenience init(_ store: Store, prefix: String = "", timeout: Duration = .seconds(15)) {
        self.init(store, prefix: prefix, timeout: timeout, connector: nil)
    }

    /// With its own connector (tests count the requests with one).
    package init(_ store: Store, prefix: String = "", timeout: Duration = .seconds(15), connector: (any HTTPConnecting)?) {
        let connector = connector ?? HTTPDataLoader.makeConnector(connectTimeout: timeout)
        self.store = store
        self.prefix = prefix.split(separator: "/").joined(separator: "/")
        self.timeout = timeout
        self.connector = connector
        if case .swift(let settings, _) = store {
            authenticator = SwiftAuthenticator(settings: settings, connector: connector, timeout: timeout)
        } else {
            authenticator = nil
        }
    }

    /// The object name of `key`.
    func objectName(forKey key: String) -> String {
        let group = key.firstRange(of: " => ").map { String(key[..<$0.upperBound]) } ?? key
        return groupName(group) + Self.sha256(key)
    }

    /// What the names of a source's results start with, for the key prefix a purge gives.
    func groupName(_ keyPrefix: String) -> String {
        (prefix.isEmpty ? "" : prefix + "/") + Self.sha256(keyPrefix) + "/"
    }

    private static func sha256(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Reads the result's object; `nil` for a 404 or an object over `maxResultBytes`.
    ///
    /// - Throws: ``ImageLoadingError`` for a failed request or another status.
    public func result(forKey key: String) async throws -> CachedData? {
        let answer = try await send("GET", object: objectName(forKey: key), limit: Self.maxResultBytes + 1)
        if answer.status == 404 { return nil }
        guard answer.status == 200 else { throw ImageLoadingError.unacceptableStatusCode(answer.status) }
        guard answer.body.count <= Self.maxResultBytes else { return nil }
        var metadata: [String: String] = [:]
        let metaPrefix = metadataPrefix.lowercased()
        for field in answer.headers where field.name.lowercased().hasPrefix(metaPrefix) {
            metadata[String(field.name.lowercased().dropFirst(metaPrefix.count))] = field.value
        }
        return CachedData(data: answer.body, metadata: metadata)
    }

    /// Writes the result's object, its metadata as the object's.
    ///
    /// - Throws: ``ImageLoadingError`` for a failed request or a status other than 200/201.
    public func store(_ result: CachedData, forKey key: String) async throws {
        var headers = [("Content-Type", "application/octet-stream")]
        for (name, value) in result.metadata.sorted(by: { $0.key < $1.key }) { headers.append((metadataPrefix + name, value)) }
        let answer = try await send("PUT", object: objectName(forKey: key), headers: headers, body: result.data)
        guard answer.status == 200 || answer.status == 201 else { throw ImageLoadingError.unacceptableStatusCode(answer.status) }
    }

    /// Lists the objects under the prefix's group and deletes them.
    ///
    /// - Throws: ``ImageLoadingError`` for a failed listing or deletion.
    public func removeResults(withKeyPrefix keyPrefix: String) async throws {
        let group = groupName(keyPrefix)
        while true {
            let names = try await list(group)
            if names.isEmpty { return }
            for name in names {
                let answer = try await send("DELETE", object: name)
                guard [200, 204, 404].contains(answer.status) else { throw ImageLoadingError.unacceptableStatusCode(answer.status) }
            }
        }
    }

    /// Creates `NAME.lease` only if it is absent (`If-None-Match: *`), holding its expiry: the
    /// first instance to claim makes the value, the others wait for it. A claim older than its
    /// lease (its holder died) is taken over. A store that cannot create conditionally (an S3
    /// implementation answering 501) or that fails answers `true`: every instance makes it.
    public func claim(_ key: String, lease: Duration) async -> Bool {
        let name = objectName(forKey: key) + ".lease"
        let until = Date().timeIntervalSince1970 + Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        for _ in 1...2 {
            guard
                let created = try? await send(
                    "PUT", object: name, headers: [("If-None-Match", "*"), (metadataPrefix + "expires", String(until))], body: Data())
            else { return true }
            switch created.status {
            case 200, 201: return true
            case 412:
                // Held: by a live claim, or one whose holder is gone.
                guard let held = try? await send("HEAD", object: name), held.status == 200 else { continue }
                let expires = held.headers.first(name: metadataPrefix + "expires").flatMap(Double.init) ?? 0
                if expires > Date().timeIntervalSince1970 { return false }
                _ = try? await send("DELETE", object: name)
            default: return true
            }
        }
        return true
    }

    /// Deletes the claim's object.
    public func release(_ key: String) async {
        _ = try? await send("DELETE", object: objectName(forKey: key) + ".lease")
    }

    private var metadataPrefix: String {
        if case .swift = store { return "X-Object-Meta-" }
        return "x-amz-meta-"
    }

    /// Up to 1,000 names under `group`.
    private func list(_ group: String) async throws -> [String] {
        let encoded = AWSSignatureV4.encode(group, keepingSlash: false)
        switch store {
        case .s3:
            let answer = try await send("GET", object: nil, query: "list-type=2&max-keys=1000&prefix=\(encoded)")
            guard answer.status == 200 else { throw ImageLoadingError.unacceptableStatusCode(answer.status) }
            // <Key>NAME</Key>: the names are hex and slashes, nothing XML would escape.
            let text = String(decoding: answer.body, as: UTF8.self)
            return text.split(separator: "<Key>").dropFirst().compactMap { $0.split(separator: "</Key>").first.map(String.init) }
        case .swift:
            let answer = try await send("GET", object: nil, query: "limit=1000&prefix=\(encoded)")
            if answer.status == 204 { return [] }
            guard answer.status == 200 else { throw ImageLoadingError.unacceptableStatusCode(answer.status) }
            // The plain listing: one name per line.
            return String(decoding: answer.body, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    /// One signed request to the bucket (`object` `nil`) or an object.
    private func send(
        _ method: String, object: String?, query: String? = nil, headers: [(String, String)] = [], body: Data? = nil, limit: Int = 1 << 20
    ) async throws -> (status: Int, headers: HTTPHeaders, body: Data) {
        let path = object.map { "/" + AWSSignatureV4.encode($0, keepingSlash: true) } ?? ""
        switch store {
        case .s3(let settings, let bucket):
            guard let url = settings.url(bucket: bucket, path: path.isEmpty ? "/" : path, query: query) else {
                throw ImageLoadingError.invalidURL("s3://\(bucket)")
            }
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = HTTPMethod(rawValue: method)
            var signed = headers.map { (name: $0.0, value: $0.1) }
            if let credentials = settings.credentials {
                let hash = body.map { SHA256.hash(data: $0).map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
                signed = AWSSignatureV4(credentials: credentials, region: settings.region)
                    .sign(method: method, url: url, headers: signed, payloadHash: hash ?? AWSSignatureV4.emptyPayloadHash)
            }
            for (name, value) in signed { request.headers.replaceOrAdd(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            return try await ObjectStoreExchange.send(request, for: url, through: connector, timeout: timeout, limit: limit)
        case .swift(_, let container):
            guard let authenticator else { throw ImageLoadingError.invalidURL("swift://\(container)") }
            for attempt in 1...2 {
                let session = try await authenticator.session()
                var base = session.storageURL.absoluteString
                while base.hasSuffix("/") { base.removeLast() }
                let text = base + "/" + AWSSignatureV4.encode(container, keepingSlash: false) + path + (query.map { "?" + $0 } ?? "")
                guard let url = URL(string: text) else { throw ImageLoadingError.invalidURL(text) }
                var request = HTTPClientRequest(url: text)
                request.method = HTTPMethod(rawValue: method)
                request.headers.add(name: "X-Auth-Token", value: session.token)
                for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
                if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
                let answer = try await ObjectStoreExchange.send(request, for: url, through: connector, timeout: timeout, limit: limit)
                if answer.status == 401, attempt == 1 {
                    authenticator.invalidate(session)
                    continue
                }
                return answer
            }
            throw ImageLoadingError.unacceptableStatusCode(401)
        }
    }
}
