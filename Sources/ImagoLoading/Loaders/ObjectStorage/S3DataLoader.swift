// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `s3://BUCKET/KEY` (imgproxy's form; `s3://BUCKET/KEY?VERSION` reads a version) from Amazon
/// S3 or a store that speaks its API, with AWS Signature V4.
///
/// Each load is one signed `GET` of the object's HTTP URL (`S3Settings.objectURL(bucket:key:versionID:)`)
/// through AsyncHTTPClient, with the same timeouts, streaming, size and decompression limits
/// and error mapping as ``HTTPDataLoader``. The request's conditional headers (`If-None-Match`,
/// `If-Modified-Since`) and `Range` are signed and sent, so a cached object is revalidated with
/// a 304; the store's `ETag`, `Last-Modified`, `Cache-Control` and `Content-Type` come back as
/// an HTTP origin's would, and its statuses (404 for a missing key or bucket, 403 for a key the
/// credentials may not read) are the response's status.
///
/// The store is the operator's, so it is not held to a ``SourceGuard``'s address policy (a
/// store on a private network is the usual case); the `s3://` URL itself is checked against
/// ``permitsURL``, before any request and when cached bytes are used again. Redirects are not
/// followed: a signed request cannot be replayed to another host, and S3 redirects only when
/// the bucket lives in another region than ``S3Settings/region``, which the error says.
public final class S3DataLoader: DataLoading {
    /// Where the buckets are and how requests are signed.
    public let settings: S3Settings
    /// The URL scheme this loader answers: `s3` (default), or `gs` for Google Cloud Storage
    /// through its S3-compatible XML API (HMAC keys, endpoint `https://storage.googleapis.com`).
    public let scheme: String
    /// Whether an `s3://` URL may be fetched (an allow-list). Default: any.
    public let permitsURL: @Sendable (URL) -> Bool
    private let transport: HTTPDataLoader
    private let signer: AWSSignatureV4?

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - settings: The store and credentials.
    ///   - scheme: The URL scheme answered. Default `s3`.
    ///   - connectTimeout: Bounds establishing one connection. Default 15 s.
    ///   - maxConnectionsPerHost: HTTP/1.1 connections kept to the store. Default 8.
    ///   - proxies: Default ``ProxySettings/none``.
    ///   - permitsURL: Whether an `s3://` URL may be fetched. Default: any.
    public convenience init(
        settings: S3Settings, scheme: String = "s3", connectTimeout: Duration = .seconds(15), maxConnectionsPerHost: Int = 8,
        proxies: ProxySettings = .none, permitsURL: @escaping @Sendable (URL) -> Bool = { _ in true }
    ) {
        self.init(
            settings: settings, scheme: scheme, connectTimeout: connectTimeout, maxConnectionsPerHost: maxConnectionsPerHost, proxies: proxies,
            permitsURL: permitsURL, connector: nil)
    }

    /// Creates a loader with its own connector (tests count the requests with one).
    package init(
        settings: S3Settings, scheme: String = "s3", connectTimeout: Duration = .seconds(15), maxConnectionsPerHost: Int = 8,
        proxies: ProxySettings = .none, permitsURL: @escaping @Sendable (URL) -> Bool = { _ in true },
        connector: (any HTTPConnecting)?
    ) {
        self.settings = settings
        self.scheme = scheme.lowercased()
        self.permitsURL = permitsURL
        signer = settings.credentials.map { AWSSignatureV4(credentials: $0, region: settings.region) }
        transport = HTTPDataLoader(
            connectTimeout: connectTimeout, maxConnectionsPerHost: maxConnectionsPerHost, proxies: proxies, sourceGuard: nil,
            connector: connector)
    }

    /// Closes the connections. Loads after this fail.
    ///
    /// - Throws: AsyncHTTPClient's error when it was already shut down.
    public func shutdown() async throws {
        try await transport.shutdown()
    }

    /// `true` for ``scheme``.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == scheme }

    /// Headers signed when a request carries them; any other (`User-Agent`, `Accept`) is sent
    /// unsigned, so a proxy that rewrites it does not break the signature.
    static let signedHeaders: Set<String> = ["range", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since"]

    /// The bucket, key and version of an `s3://` URL, or `nil` when the bucket or key is empty.
    static func object(of url: URL) -> (bucket: String, key: String, version: String?)? {
        guard let (bucket, key) = HTTPDataLoader.objectName(of: url) else { return nil }
        let version = url.query.flatMap { $0.isEmpty ? nil : PercentEscapes.bytes($0).map { String(decoding: $0, as: UTF8.self) } }
        return (bucket, key, version)
    }

    /// Signs and sends the object's `GET`, reports its head as the `s3://` URL's, streams the body.
    ///
    /// - Throws: ``ImageLoadingError/sourceNotAllowed(_:)`` for a URL ``permitsURL`` refuses;
    ///   ``ImageLoadingError/invalidURL(_:)`` for an empty bucket or key;
    ///   ``ImageLoadingError/invalidResponse(_:)`` when S3 redirects (the bucket is in another
    ///   region); the errors of ``HTTPDataLoader/load(_:response:chunk:)``.
    public func load(
        _ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void, chunk: (Data) throws -> Void
    ) async throws {
        guard permitsURL(request.url) else { throw ImageLoadingError.sourceNotAllowed(request.url.absoluteString) }
        guard let (bucket, key, version) = Self.object(of: request.url),
            let target = settings.objectURL(bucket: bucket, key: key, versionID: version)
        else {
            throw ImageLoadingError.invalidURL(request.url.absoluteString)
        }
        var headers: [String: String] = [:]
        var signable: [(name: String, value: String)] = []
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if lower == "authorization" || lower == "host" { continue }
            if Self.signedHeaders.contains(lower) || lower.hasPrefix("x-amz-") {
                signable.append((name, value))
            } else {
                headers[name] = value
            }
        }
        if let signer {
            for (name, value) in signer.sign(method: "GET", url: target, headers: signable) { headers[name] = value }
        } else {
            for (name, value) in signable { headers[name] = value }
        }
        do {
            try await transport.loadObject(
                request.url, at: target, headers: headers, like: request, response: response, chunk: chunk,
                check: { head in
                    if head.statusCode == 301 { throw Self.redirected(bucket: bucket, region: head.headers["x-amz-bucket-region"]) }
                })
        } catch ImageLoadingError.tooManyRedirects {
            throw Self.redirected(bucket: bucket, region: nil)
        }
    }

    /// The error for a redirect: S3 sends one when the bucket is in another region.
    private static func redirected(bucket: String, region: String?) -> ImageLoadingError {
        .invalidResponse(
            "S3 redirected the request for bucket '\(bucket)'"
                + (region.map { ": it is in region \($0), set IMAGO_S3_REGION" } ?? " (is it in another region?)"))
    }

    /// Whether bytes cached for `url` may be used: ``permitsURL`` as it is now (the store is
    /// trusted, so the route's addresses are not checked).
    public func permitsCached(_ url: URL, route: [DataLoadResponse.Hop]?) -> Bool? { permitsURL(url) }
}
