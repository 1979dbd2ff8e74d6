// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `swift://CONTAINER/OBJECT` (imgproxy's form) from OpenStack Swift.
///
/// The loader signs in on first use (``SwiftStorageSettings``: tempauth, Keystone v2 or v3; one
/// sign-in shared by every load waiting for it) and sends each load as a `GET` of
/// `STORAGE-URL/CONTAINER/OBJECT` with `X-Auth-Token`, through AsyncHTTPClient with the same
/// timeouts, streaming, limits and error mapping as ``HTTPDataLoader``. Conditional headers are
/// passed on, so a cached object is revalidated with a 304; the object's `ETag`,
/// `Last-Modified`, `Content-Type` and `Cache-Control` come back as an HTTP origin's would, and
/// its statuses (404 for a missing object or container) are the response's. A token the store
/// refuses (401, expired) is renewed and the request sent once more.
///
/// As with ``S3DataLoader``, the store is the operator's: the `swift://` URL is checked against
/// ``permitsURL``, not the store's address against a policy, and redirects are not followed.
public final class SwiftDataLoader: DataLoading {
    /// How to sign in.
    public var settings: SwiftStorageSettings { authenticator.settings }
    /// Whether a `swift://` URL may be fetched (an allow-list). Default: any.
    public let permitsURL: @Sendable (URL) -> Bool
    private let transport: HTTPDataLoader
    private let authenticator: SwiftAuthenticator

    /// Creates a loader; it signs in on its first load.
    ///
    /// - Parameters:
    ///   - settings: The sign-in.
    ///   - connectTimeout: Bounds establishing one connection, and the whole sign-in. Default 15 s.
    ///   - maxConnectionsPerHost: HTTP/1.1 connections kept to the store. Default 8.
    ///   - proxies: Default ``ProxySettings/none``.
    ///   - permitsURL: Whether a `swift://` URL may be fetched. Default: any.
    public convenience init(
        settings: SwiftStorageSettings, connectTimeout: Duration = .seconds(15), maxConnectionsPerHost: Int = 8,
        proxies: ProxySettings = .none, permitsURL: @escaping @Sendable (URL) -> Bool = { _ in true }
    ) {
        self.init(
            settings: settings, connectTimeout: connectTimeout, maxConnectionsPerHost: maxConnectionsPerHost, proxies: proxies,
            permitsURL: permitsURL, connector: nil)
    }

    /// Creates a loader with its own connector (tests count the requests with one).
    package init(
        settings: SwiftStorageSettings, connectTimeout: Duration = .seconds(15), maxConnectionsPerHost: Int = 8,
        proxies: ProxySettings = .none, permitsURL: @escaping @Sendable (URL) -> Bool = { _ in true },
        connector: (any HTTPConnecting)?
    ) {
        let connector =
            connector
            ?? HTTPDataLoader.makeConnector(connectTimeout: connectTimeout, maxConnectionsPerHost: maxConnectionsPerHost, proxies: proxies)
        self.permitsURL = permitsURL
        authenticator = SwiftAuthenticator(settings: settings, connector: connector, timeout: connectTimeout)
        transport = HTTPDataLoader(proxies: proxies, sourceGuard: nil, connector: connector)
    }

    /// Closes the connections. Loads after this fail.
    ///
    /// - Throws: AsyncHTTPClient's error when it was already shut down.
    public func shutdown() async throws {
        try await transport.shutdown()
    }

    /// `true` for `swift`.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == "swift" }

    /// A refused token, to sign in again.
    private struct Unauthorized: Error {}

    /// Signs in when needed, sends the object's `GET`, reports its head as the `swift://` URL's,
    /// streams the body.
    ///
    /// - Throws: ``ImageLoadingError/sourceNotAllowed(_:)`` for a URL ``permitsURL`` refuses;
    ///   ``ImageLoadingError/invalidURL(_:)`` for an empty container or object;
    ///   ``ImageLoadingError/connectionFailed(_:transient:)`` when the sign-in fails; the errors
    ///   of ``HTTPDataLoader/load(_:response:chunk:)``.
    public func load(
        _ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void, chunk: (Data) throws -> Void
    ) async throws {
        guard permitsURL(request.url) else { throw ImageLoadingError.sourceNotAllowed(request.url.absoluteString) }
        guard let (container, object) = HTTPDataLoader.objectName(of: request.url) else {
            throw ImageLoadingError.invalidURL(request.url.absoluteString)
        }
        for attempt in 1...2 {
            let session = try await authenticator.session()
            var base = session.storageURL.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            let path = "/" + AWSSignatureV4.encode(container, keepingSlash: false) + "/" + AWSSignatureV4.encode(object, keepingSlash: true)
            guard let target = URL(string: base + path) else { throw ImageLoadingError.invalidURL(base + path) }
            var headers = request.headers.filter { $0.key.lowercased() != "authorization" && $0.key.lowercased() != "x-auth-token" }
            headers["X-Auth-Token"] = session.token
            do {
                try await transport.loadObject(
                    request.url, at: target, headers: headers, like: request, response: response, chunk: chunk,
                    check: { head in if head.statusCode == 401, attempt == 1 { throw Unauthorized() } })
                return
            } catch is Unauthorized {
                authenticator.invalidate(session)
            }
        }
    }

    /// Whether bytes cached for `url` may be used: ``permitsURL`` as it is now.
    public func permitsCached(_ url: URL, route: [DataLoadResponse.Hop]?) -> Bool? { permitsURL(url) }
}
