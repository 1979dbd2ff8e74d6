// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import ImagoCore
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `http` and `https` through AsyncHTTPClient, streaming the body as it arrives.
///
/// Redirects (301, 302, 303, 307, 308) are followed here rather than inside AsyncHTTPClient, so
/// each request has its own limit and a loop is reported as such; credentials are dropped when a
/// redirect leaves the host. Timeouts are the downloader's (see ``ImageDownloadTimeouts``); the
/// client itself only bounds connecting. Cookies live for one download: a `Set-Cookie` on a
/// redirect is sent on the hops after it that it matches (an origin's cookie challenge), and a
/// caller's `Cookie` header follows redirects only within the first URL's domain (as Go's client
/// and so imgproxy's downloads forward it).
///
/// Proxies come from ``ProxySettings`` (none by default), chosen per URL and per redirect hop.
///
/// With a ``SourceGuard``, each request and each redirect hop is checked first: the URL against
/// its allow-list, then the address the host resolves to against its ``AddressPolicy``, and the
/// connection is pinned to that address. A service fetching URLs chosen by its clients needs
/// this (server-side request forgery); an app fetching its own images does not.
///
/// The loader owns an `HTTPClient` on the shared event loops, one more per distinct proxy, and
/// with a guard one per host and address in use. ``shutdown()`` closes them; a loader released
/// without it closes them in the background.
public final class HTTPDataLoader: DataLoading {
    private let connector: any HTTPConnecting
    /// The proxies in use.
    public let proxies: ProxySettings
    /// The checks before each connection, or `nil`.
    public let sourceGuard: SourceGuard?

    /// How many times its compressed size a gzip or deflate body may expand.
    static let decompressionRatio = 50

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - connectTimeout: Bounds establishing one connection (through a proxy: to the proxy,
    ///     then the tunnel). Default 15 s.
    ///   - maxConnectionsPerHost: HTTP/1.1 connections kept per host. Default 8.
    ///   - proxies: Default ``ProxySettings/none``; ``ProxySettings/environment(_:)`` reads
    ///     `http_proxy` and the other variables curl reads.
    ///   - sourceGuard: Checks before each connection. Default `nil`: none.
    public convenience init(
        connectTimeout: Duration = .seconds(15), maxConnectionsPerHost: Int = 8, proxies: ProxySettings = .none,
        sourceGuard: SourceGuard? = nil
    ) {
        self.init(
            connectTimeout: connectTimeout, maxConnectionsPerHost: maxConnectionsPerHost, proxies: proxies,
            sourceGuard: sourceGuard, connector: nil)
    }

    /// Creates a loader with its own connector (tests count connection attempts with one).
    package init(
        connectTimeout: Duration = .seconds(15), maxConnectionsPerHost: Int = 8, proxies: ProxySettings = .none,
        sourceGuard: SourceGuard? = nil, connector: (any HTTPConnecting)?
    ) {
        self.proxies = proxies
        self.sourceGuard = sourceGuard
        self.connector =
            connector
            ?? Self.makeConnector(
                connectTimeout: connectTimeout, maxConnectionsPerHost: maxConnectionsPerHost,
                proxies: proxies)
    }

    /// The default connector: AsyncHTTPClient clients configured as this loader needs.
    package static func makeConnector(
        connectTimeout: Duration = .seconds(15), maxConnectionsPerHost: Int = 8,
        proxies: ProxySettings = .none
    ) -> PinnedHTTPConnector {
        PinnedHTTPConnector(proxies: proxies) { proxy, dnsOverride in
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .nanoseconds(Int64(connectTimeout.nanoseconds)), read: nil))
            configuration.dnsOverride = dnsOverride
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, maxConnectionsPerHost)
            // Fail fast: AsyncHTTPClient would otherwise retry a refused connection or a failed TLS
            // handshake until the request's deadline, turning a certificate error into a timeout.
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.decompression = .enabled(limit: .ratio(Self.decompressionRatio))
            if let proxy {
                switch proxy.kind {
                case .http:
                    configuration.proxy = .server(
                        host: proxy.host, port: proxy.port,
                        authorization: proxy.credentials.map { .basic(username: $0.user, password: $0.password) })
                case .socks5:
                    configuration.proxy = .socksServer(host: proxy.host, port: proxy.port)
                }
            }
            return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        }
    }

    /// Closes the connections. Loads after this fail.
    ///
    /// - Throws: AsyncHTTPClient's error when it was already shut down.
    public func shutdown() async throws {
        try await connector.shutdown()
    }

    /// `true` for `http` and `https`.
    public func canLoad(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    /// Sends GET, follows redirects, reports the final head, streams the body.
    ///
    /// - Throws: ``ImageLoadingError/invalidURL(_:)``, ``ImageLoadingError/tooManyRedirects(limit:)``,
    ///   ``ImageLoadingError/redirectLoop(_:)``, ``ImageLoadingError/connectionFailed(_:transient:)``,
    ///   ``ImageLoadingError/invalidResponse(_:)`` (not HTTP), ``ImageLoadingError/decompressionLimit(ratio:)``
    ///   (a gzip or deflate body expanding more than 50 times), ``ImageLoadingError/invalidContentEncoding(_:)``,
    ///   ``ImageLoadingError/cancelled``; the callbacks' errors. A kept-alive connection that closes
    ///   before any answer is retried once on a fresh one.
    public func load(
        _ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void,
        chunk: (Data) throws -> Void
    ) async throws {
        var url = request.url
        var visited: Set<String> = [url.absoluteString + "\n"]
        var headers = request.headers
        var credentials = request.credentials
        var redirects = 0
        var route: [DataLoadResponse.Hop] = []
        var cookies = RedirectCookies()
        while true {
            guard url.host?.isEmpty == false, Self.sendsItsPath(url) else { throw ImageLoadingError.invalidURL(url.absoluteString) }
            let hopHeaders = Self.withCookies(&headers, cookies, for: url, first: request.url)
            let outgoing = Self.outgoing(url, headers: hopHeaders, credentials: credentials, request: request)
            let address = try await sourceGuard?.address(for: url)
            route.append(DataLoadResponse.Hop(url: url, addressKind: address?.kind))
            let head = try await send(outgoing, to: url, at: address)
            let status = Int(head.status.code)
            if [301, 302, 303, 307, 308].contains(status), let location = head.headers.first(name: "location") {
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw ImageLoadingError.invalidURL(location)
                }
                await Self.skipBody(of: head)
                redirects += 1
                guard redirects <= request.maxRedirects else { throw ImageLoadingError.tooManyRedirects(limit: request.maxRedirects) }
                // Back to a URL with a cookie it did not have (a cookie challenge) is no loop.
                cookies.store(head.headers["set-cookie"], from: url)
                Self.forget(head.headers["set-cookie"], in: &headers)
                let visit = next.absoluteString + "\n" + (cookies.header(for: next) ?? "")
                guard visited.insert(visit).inserted else { throw ImageLoadingError.redirectLoop(next.absoluteString) }
                Self.narrow(&headers, &credentials, from: url, to: next)
                url = next
                continue
            }
            var received = DataLoadResponse(url: url, statusCode: status, headers: Self.fields(of: head))
            received.route = route
            try response(received)
            try await Self.stream(head, from: url, into: chunk)
            return
        }
    }

    /// Whether AsyncHTTPClient sends `url`'s own path: it writes `/` for a path whose escapes are
    /// not UTF-8 (`caf%E9.jpg`), which would fetch another resource, so such a URL (a source's or
    /// a redirect's) is refused instead.
    static func sendsItsPath(_ url: URL) -> Bool {
        let raw = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return raw.isEmpty || raw == "/" || !url.path.isEmpty
    }

    /// What a redirect to `next` is sent with: credentials and `Authorization` only to the host
    /// that had them.
    private static func narrow(_ headers: inout [String: String], _ credentials: inout DataLoadRequest.Credentials?, from url: URL, to next: URL) {
        guard next.host?.lowercased() != url.host?.lowercased() else { return }
        credentials = nil
        headers = headers.filter { $0.key.lowercased() != "authorization" }
    }

    /// The headers of the hop to `url`: the caller's `Cookie` while the download stays on
    /// `first`'s host or names under it (once a hop leaves, it is dropped from `headers` for the
    /// rest, as Go's client does), and the cookies the download's redirects set for `url` added.
    private static func withCookies(_ headers: inout [String: String], _ cookies: RedirectCookies, for url: URL, first: URL) -> [String: String] {
        let given = headers.keys.first { $0.lowercased() == "cookie" }
        if let given, let host = CookieSyntax.host(of: url), let firstHost = CookieSyntax.host(of: first),
            !CookieSyntax.isDomainOrSubdomain(host, of: firstHost)
        {
            headers[given] = nil
        }
        var hop = headers
        guard let set = cookies.header(for: url) else { return hop }
        if let given, let value = hop[given], !value.isEmpty {
            hop[given] = value + "; " + set
        } else {
            hop["Cookie"] = set
        }
        return hop
    }

    /// The caller's `Cookie` without the cookies a redirect's `Set-Cookie` `fields` set: the
    /// download's jar sends those from then on, so a challenge's new value is not sent after the
    /// caller's old one (Go's client does the same).
    private static func forget(_ fields: [String], in headers: inout [String: String]) {
        let names = Set(fields.filter { $0.utf8.count <= RedirectCookies.maxFieldBytes }.compactMap(RedirectCookies.name(of:)))
        guard !names.isEmpty, let given = headers.keys.first(where: { $0.lowercased() == "cookie" }), let value = headers[given] else { return }
        let kept = value.split(separator: ";").map { PathName.trimmed($0) }.filter { part in
            !names.contains(PathName.trimmed(part.prefix { $0 != "=" }))
        }
        headers[given] = kept.isEmpty ? nil : kept.joined(separator: "; ")
    }

    /// The GET sent to `url`: the headers, Basic credentials unless an `Authorization` header is
    /// given, and no certificate checks when the request allows invalid ones.
    private static func outgoing(
        _ url: URL, headers: [String: String], credentials: DataLoadRequest.Credentials?, request: DataLoadRequest
    ) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = .GET
        for (name, value) in headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        if let credentials, !headers.keys.contains(where: { $0.lowercased() == "authorization" }) {
            let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            outgoing.headers.replaceOrAdd(name: "Authorization", value: "Basic \(token)")
        }
        if request.allowsInvalidCertificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            outgoing.tlsConfiguration = tls
        }
        return outgoing
    }

    /// Leaves a redirect's own body behind without reading much of it.
    private static func skipBody(of head: HTTPClientResponse) async {
        var skipped = 0
        do {
            for try await part in head.body {
                skipped += part.readableBytes
                if skipped > 64 << 10 { break }
            }
        } catch {}
    }

    /// The response's header fields by lower-cased name, repeated ones joined by commas.
    private static func fields(of head: HTTPClientResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for field in head.headers {
            let name = field.name.lowercased()
            fields[name] = fields[name].map { $0 + ", " + field.value } ?? field.value
        }
        return fields
    }

    /// Streams the body to `chunk`, mapping the client's errors to ``ImageLoadingError``.
    private static func stream(_ head: HTTPClientResponse, from url: URL, into chunk: (Data) throws -> Void) async throws {
        do {
            for try await part in head.body {
                try chunk(Data(part.readableBytesView))
            }
        } catch let error as ImageLoadingError {
            throw error
        } catch {
            throw Self.map(error, url: url)
        }
    }

    /// Whether cached bytes fetched along `route` pass the ``sourceGuard`` as it is now (see
    /// `SourceGuard.permits(route:)`); any do without a guard. Bytes cached without a route
    /// (by an older version, or stored by hand) are refused when their URL is, and otherwise
    /// unknown (`nil`): the caller revalidates them through the guard.
    public func permitsCached(_ url: URL, route: [DataLoadResponse.Hop]?) -> Bool? {
        guard let sourceGuard else { return true }
        guard let route, route.allSatisfy({ $0.addressKind != nil }) else {
            // Fetched with no address checked: refused by its URLs, else unknown until fetched again.
            return (route?.map(\.url) ?? [url]).allSatisfy(sourceGuard.permitsURL) ? nil : false
        }
        return sourceGuard.permits(route: route)
    }

    /// Sends `request` and waits for the response head. A kept-alive connection the server closed
    /// as the request went out gets one more try on a fresh connection: GET is idempotent and
    /// nothing of the answer arrived (browsers and URLSession do the same).
    private func send(_ request: HTTPClientRequest, to url: URL, at address: IPAddress?) async throws -> HTTPClientResponse {
        for attempt in 1...2 {
            do {
                return try await connector.execute(request, for: url, at: address)
            } catch  where attempt == 1 && Self.isStaleConnection(error) && !Task.isCancelled {
                continue
            } catch {
                throw Self.map(error, url: url)
            }
        }
        throw ImageLoadingError.connectionFailed("\(ConnectionFailure.endpoint(of: url)) closed the connection before any answer", transient: true)
    }

    /// Whether `error` is a connection closing under a request before any answer: the race between
    /// a server dropping an idle kept-alive connection and the pool reusing it.
    static func isStaleConnection(_ error: any Error) -> Bool {
        if let e = error as? ChannelError {
            switch e {
            case .ioOnClosedChannel, .eof, .alreadyClosed, .outputClosed: return true
            default: return false
            }
        }
        if let e = error as? HTTPClientError { return e == .remoteConnectionClosed }
        if let e = error as? IOError { return e.errnoCode == ECONNRESET || e.errnoCode == EPIPE }
        return false
    }

    /// AsyncHTTPClient's and NIO's errors as ``ImageLoadingError``: TLS failures, replies that
    /// are not HTTP and bodies that do not decompress are lasting; other connection failures are
    /// transient (SDWebImage does not block a URL for them). An error of none of these kinds is
    /// returned as it is.
    static func map(_ error: any Error, url: URL? = nil) -> any Error {
        let endpoint = url.map(ConnectionFailure.endpoint(of:)) ?? "the server"
        if error is ImageLoadingError { return error }
        if error is CancellationError { return ImageLoadingError.cancelled }
        if let e = error as? HTTPClientError {
            switch e {
            case .cancelled: return ImageLoadingError.cancelled
            case .invalidURL, .emptyHost, .emptyScheme: return ImageLoadingError.invalidURL(e.description)
            case .connectTimeout, .deadlineExceeded: return ImageLoadingError.timedOut(.connect)
            case .readTimeout: return ImageLoadingError.timedOut(.read)
            default:
                return ImageLoadingError.connectionFailed(
                    ConnectionFailure.message(for: e, endpoint: endpoint) ?? "\(endpoint): \(e.description)",
                    transient: true)
            }
        }
        if let e = error as? NIOHTTPDecompression.DecompressionError {
            switch e {
            case .limit: return ImageLoadingError.decompressionLimit(ratio: decompressionRatio)
            default: return ImageLoadingError.invalidContentEncoding(String(describing: e))
            }
        }
        if let e = error as? HTTPParserError {
            // The connection closing mid-body is a lost connection (transient), not bad HTTP.
            if e == .invalidEOFState { return ImageLoadingError.connectionFailed("\(endpoint) closed the connection mid-reply", transient: true) }
            return ImageLoadingError.invalidResponse(String(describing: e))
        }
        if error is NIOSSLError || error is BoringSSLError {
            return ImageLoadingError.connectionFailed("TLS with \(endpoint) failed: \(error)", transient: false)
        }
        if let message = ConnectionFailure.message(for: error, endpoint: endpoint) {
            return ImageLoadingError.connectionFailed(message, transient: true)
        }
        if error is ChannelError || error is IOError {
            return ImageLoadingError.connectionFailed("\(endpoint): \(error)", transient: true)
        }
        // Not a transport failure this knows: left as it is, for ImageLoadingError.unexpected.
        return error
    }
}
