// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoLoading

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the service meets HTTP: where it listens, who may ask, how long it waits for clients,
/// what its answers say about caching, and what it tells operators. ``ServerConfiguration/http``;
/// ``ImageServer`` and the routes take it.
public struct HTTPSettings: Sendable {
    /// `IMAGO_BIND`: `host:port` to listen on (`:port` for every address, IPv6 and IPv4 where the
    /// host has IPv6), or a socket's path when ``network`` is `unix`. Default `127.0.0.1:8080`.
    public var bind: String = "127.0.0.1:8080"
    /// `IMAGO_NETWORK`: what ``bind`` names (imgproxy's `IMGPROXY_NETWORK`). Default `tcp`.
    public var network: ListenNetwork = .tcp

    /// The kinds of address the service listens on, as Go's `net.Listen` names them.
    public enum ListenNetwork: String, CaseIterable, Sendable {
        /// `host:port`, IPv4 or IPv6 as the host says (`:port`: every address of both).
        case tcp
        /// `host:port` with an IPv4 host (`:port`: every IPv4 address).
        case tcp4
        /// `host:port` with an IPv6 host (`:port`: every IPv6 address, `[::]`).
        case tcp6
        /// A Unix domain socket at the path ``HTTPSettings/bind`` gives (a file left there by a
        /// run before is replaced), for a proxy on the same host.
        case unix
    }
    /// `IMAGO_SECRET`: when set, requests need `Authorization: Bearer <secret>`.
    public var secret: String?
    /// `IMAGO_PURGE_SECRET`: when set, `POST /purge?url=…` with `Authorization: Bearer <it>`
    /// forgets a cached source (``ImageService/purge(source:)``). Default none: no purge route.
    public var purgeSecret: String?
    /// `IMAGO_ALLOW_ORIGIN`: sent as `Access-Control-Allow-Origin` (with
    /// `Access-Control-Allow-Methods: GET, OPTIONS`) on every answer. Default none.
    public var allowOrigin: String?
    /// `IMAGO_HEAD_AS_GET`: a `HEAD` of an image URL is answered with the headers its `GET`
    /// would have (content type, length, `ETag`, caching), its render shared with `GET`s and a
    /// stored result sent without one. Default `true`. `false` answers every `HEAD` as imgproxy
    /// does: a bare `200 text/plain`, no secret asked, nothing fetched or rendered.
    public var headAsGet = true
    /// `IMAGO_REQUEST_TIMEOUT`: seconds for a whole request, queueing included. Default 10.
    public var requestTimeout: Duration = .seconds(10)
    /// `IMAGO_READ_REQUEST_TIMEOUT`: seconds from a connection's opening (or the end of its last
    /// answer) to the end of a request's head; a client slower than that is disconnected.
    /// Default 10 (imgproxy's).
    public var readRequestTimeout: Duration = .seconds(10)
    /// `IMAGO_KEEP_ALIVE_TIMEOUT`: seconds an idle keep-alive connection is kept for its next
    /// request; 0 closes each connection after its answer. Default 10 (imgproxy's).
    public var keepAliveTimeout: Duration = .seconds(10)
    /// `IMAGO_MAX_CLIENTS`: connections open at once. Default 2048 (imgproxy's), and never more
    /// than three quarters of the process's open-file limit, so that sources, the cache and the
    /// logs always have descriptors; when the table is nearly full, new connections close the
    /// ones that have waited longest for a request (see ``ConnectionLimits``).
    public var maxClients: Int = 2048
    /// `IMAGO_TTL`: `Cache-Control: max-age` of results, seconds. Default one year.
    public var ttl: Int = 31_536_000
    /// `IMAGO_RETURN_ATTACHMENT`. Default `false`.
    public var returnAttachment = false
    /// `IMAGO_SET_CANONICAL_HEADER`: image answers from an `http(s)` source carry
    /// `Link: <source>; rel="canonical"`, so search engines credit the original (imgproxy's).
    /// Default `false`.
    public var setCanonicalHeader = false
    /// `IMAGO_CACHE_CONTROL_PASSTHROUGH`: answers take the origin's `Cache-Control` as it sent
    /// it, else its `Expires` as `max-age` while that lies ahead, instead of ``ttl``; the URL's
    /// `expires`, the fallback's TTL and a provisional answer's short life still win
    /// (imgproxy's). Default `false`.
    public var cacheControlPassthrough = false
    /// `IMAGO_ENABLE_DEBUG_HEADERS`: image answers carry `X-Origin-Width`, `X-Origin-Height`,
    /// `X-Origin-Content-Length`, `X-Result-Width` and `X-Result-Height` (imgproxy's). Default
    /// `false`.
    public var enableDebugHeaders = false
    /// `IMAGO_GRACEFUL_STOP_TIMEOUT`: seconds to finish in-flight requests on SIGTERM. Default 20.
    public var gracefulStopTimeout: Duration = .seconds(20)
    /// `IMAGO_METRICS_BIND`: `host:port` where `/metrics` is served on its own (as imgproxy's
    /// `IMGPROXY_PROMETHEUS_BIND`); the main address then has no `/metrics`. Default none:
    /// `/metrics` beside the images.
    public var metricsBind: String?
    /// `IMAGO_PATH_PREFIX`: where every route sits (`/img`: `/img/{signature}/…`, `/img/health`),
    /// as imgproxy's `IMGPROXY_PATH_PREFIX`; signatures cover the path after it. Default `""`:
    /// the root.
    public var pathPrefix = ""
    /// `IMAGO_HEALTH_CHECK_PATH`: another path (under ``pathPrefix``) answering as `/health`
    /// does, as imgproxy's `IMGPROXY_HEALTH_CHECK_PATH`. Default none.
    public var healthCheckPath: String?
    /// `IMAGO_PLAYGROUND`: serve the playground page at `/`, to try options on a source and
    /// see the URL, the result and its size. Default `false`.
    public var playground = false
    /// `IMAGO_SERVER_TIMING`: send a `Server-Timing` header with each stage's duration (disk,
    /// download, queue, decode, transform, encode). Default `false`: it tells clients about the
    /// service's inside.
    public var serverTiming = false
    /// The connection limits for a process allowed `openFiles` descriptors (`nil`: unknown):
    /// ``maxClients``, held to three quarters of `openFiles`.
    package func connectionLimits(openFiles: Int?) -> ConnectionLimits {
        var cap = maxClients
        if let openFiles, openFiles > 0 { cap = min(cap, max(16, openFiles - max(64, openFiles / 4))) }
        return ConnectionLimits(readRequestTimeout: readRequestTimeout, keepAliveTimeout: keepAliveTimeout, maxConnections: cap)
    }
    /// The host and port of ``bind``.
    ///
    /// - Throws: ``ConfigurationError`` when it is not `host:port`.
    package func bindAddress() throws(ConfigurationError) -> (host: String, port: Int) {
        try HTTPSettings.hostAndPort(bind, variable: "IMAGO_BIND")
    }

    /// Where the service listens: ``bind`` read for ``network``, as a socket's path (`port` 0)
    /// or a host and port.
    ///
    /// - Throws: ``ConfigurationError`` when ``bind`` is not `host:port` for a TCP network, names
    ///   an address of the other IP version than `tcp4` or `tcp6` asks, or is no path for `unix`.
    package func listenAddress() throws(ConfigurationError) -> (host: String, port: Int, unix: Bool) {
        if network == .unix {
            guard !bind.isEmpty, !bind.contains("\0"), bind.utf8.count < 108 else {
                throw ConfigurationError(variable: "IMAGO_BIND", reason: "'\(bind)' is not a socket path (IMAGO_NETWORK=unix)")
            }
            return (bind, 0, true)
        }
        var (host, port) = try bindAddress()
        // `:port` is every address of the version asked.
        if bind.hasPrefix(":"), network != .tcp { host = network == .tcp6 ? "::" : "0.0.0.0" }
        let v6 = host.contains(":"), v4 = IPAddress(literal: host)?.isIPv4 ?? false
        if (network == .tcp4 && v6) || (network == .tcp6 && v4) {
            throw ConfigurationError(variable: "IMAGO_BIND", reason: "'\(bind)' is not an address IMAGO_NETWORK=\(network.rawValue) listens on")
        }
        return (host, port, false)
    }
    /// A route path as the settings give it, made `/a/b` (a leading `/`, none trailing; `""` for
    /// the root), as imgproxy trims `IMGPROXY_PATH_PREFIX`.
    ///
    /// - Throws: ``ConfigurationError`` for `variable` when it holds characters a path segment
    ///   cannot (`?`, `#`, `%`, `*`, `:`, spaces or controls) or empty segments.
    static func routePath(_ text: String, variable: String) throws(ConfigurationError) -> String {
        var trimmed = Substring(text)
        while trimmed.hasPrefix("/") { trimmed = trimmed.dropFirst() }
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard !trimmed.isEmpty else { return "" }
        let segments = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.allSatisfy({ !$0.isEmpty }),
            trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"?#%*:{}\\".unicodeScalars.contains($0) })
        else {
            throw ConfigurationError(variable: variable, reason: "'\(text)' is not a path like /images")
        }
        return "/" + trimmed
    }

    /// The host and port of `text` (`host:port`, `[v6]:port`, `:port` for every address of
    /// either version, where the host has IPv6).
    ///
    /// - Throws: ``ConfigurationError`` for `variable` when it is not `host:port`.
    static func hostAndPort(_ text: String, variable: String) throws(ConfigurationError) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ConfigurationError(variable: variable, reason: "'\(text)' is not host:port")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? (ipv6Available ? "::" : "0.0.0.0") : host, port)
    }

    /// Whether this host can open IPv6 sockets, so that `:port` listens on both versions (`::`,
    /// as Go's `net.Listen` does for imgproxy); IPv4 alone (`0.0.0.0`) where it cannot.
    static let ipv6Available: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }()

    /// The defaults.
    public init() {}
}
