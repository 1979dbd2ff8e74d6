// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One proxy server: an HTTP proxy (reached with `CONNECT`, for `http` and `https` URLs alike)
/// or a SOCKS5 proxy.
public struct HTTPProxy: Sendable, Hashable, CustomStringConvertible {
    /// How the proxy is spoken to.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy: each connection is a `CONNECT` tunnel.
        case http
        /// A SOCKS5 proxy (no authentication).
        case socks5
    }

    /// How the proxy is spoken to. Default `.http`.
    public var kind: Kind
    /// The proxy's host name or address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// HTTP basic credentials for the proxy (`Proxy-Authorization`), or `nil`. SOCKS5 proxies
    /// take none.
    public var credentials: DataLoadRequest.Credentials?

    /// Creates a proxy description.
    public init(kind: Kind = .http, host: String, port: Int, credentials: DataLoadRequest.Credentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Parses a proxy as curl and the `http_proxy` variables write it:
    /// `[scheme://][user:password@]host[:port]`. The scheme is `http` (the default), `socks5`
    /// or `socks5h`; the port defaults to 1080; percent-escapes in the credentials are decoded.
    /// Returns `nil` for anything else, including `https://` proxies (TLS to the proxy itself is
    /// not supported) and SOCKS5 proxies with credentials (AsyncHTTPClient has no SOCKS
    /// authentication).
    public init?(url text: String) {
        var rest = Substring(PathName.trimmed(text))
        var kind = Kind.http
        if let range = rest.firstRange(of: "://") {
            switch rest[..<range.lowerBound].lowercased() {
            case "http": kind = .http
            case "socks5", "socks5h": kind = .socks5
            default: return nil
            }
            rest = rest[range.upperBound...]
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var credentials: DataLoadRequest.Credentials?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let user = DataURLLoader.percentDecoded(String(parts[0])),
                let password = DataURLLoader.percentDecoded(parts.count > 1 ? String(parts[1]) : "")
            else { return nil }
            credentials = DataLoadRequest.Credentials(
                user: String(decoding: user, as: UTF8.self),
                password: String(decoding: password, as: UTF8.self))
        }
        var host = rest, port = 1080
        if host.hasPrefix("[") {
            // [IPv6]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()) else { return nil }
                port = p
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = host[..<colon]
        }
        guard !host.isEmpty, (1...65535).contains(port), kind == .http || credentials == nil else { return nil }
        self.init(kind: kind, host: String(host), port: port, credentials: credentials)
    }

    /// `kind://host:port`, without the credentials.
    public var description: String { "\(kind.rawValue)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

/// Which proxy, if any, each URL goes through: one for `http` URLs, one for `https` URLs, and
/// hosts that go direct. The default is no proxy at all; ``environment(_:)`` reads the
/// variables curl reads.
public struct ProxySettings: Sendable, Hashable {
    /// The proxy for `http` URLs, or `nil` to connect directly.
    public var http: HTTPProxy?
    /// The proxy for `https` URLs, or `nil` to connect directly.
    public var https: HTTPProxy?
    /// Hosts that always go direct: a name matches itself and its subdomains (`example.com`
    /// covers `img.example.com`; a leading dot is ignored), an address matches itself, and `*`
    /// matches every host. Loopback is not bypassed unless listed (curl's rule).
    public var noProxy: [String]

    /// Creates settings; by default no proxy.
    public init(http: HTTPProxy? = nil, https: HTTPProxy? = nil, noProxy: [String] = []) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    /// No proxy: every connection goes direct.
    public static let none = ProxySettings()

    /// The proxies the environment names, as curl reads them: `http_proxy` (lower case only, as
    /// the upper-case name can be set by a CGI request header), `https_proxy` or `HTTPS_PROXY`,
    /// `all_proxy` or `ALL_PROXY` for either when its own is unset, and `no_proxy` or `NO_PROXY`
    /// (comma-separated). Values that do not parse (see ``HTTPProxy/init(url:)``) are ignored.
    ///
    /// - Parameter environment: Default: this process's environment.
    public static func environment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxySettings {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !PathName.trimmed($0).isEmpty }
        }
        let all = value("all_proxy", "ALL_PROXY").flatMap(HTTPProxy.init(url:))
        let http = value("http_proxy").flatMap(HTTPProxy.init(url:)) ?? all
        let https = value("https_proxy", "HTTPS_PROXY").flatMap(HTTPProxy.init(url:)) ?? all
        let noProxy = (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",").map { PathName.trimmed($0) }.filter { !$0.isEmpty }
        return ProxySettings(http: http, https: https, noProxy: noProxy)
    }

    /// The proxy `url` goes through, or `nil` for a direct connection.
    public func proxy(for url: URL) -> HTTPProxy? {
        let proxy: HTTPProxy?
        switch url.scheme?.lowercased() {
        case "http": proxy = http
        case "https": proxy = https
        default: return nil
        }
        guard let proxy else { return nil }
        return bypasses(url.host ?? "") ? nil : proxy
    }

    /// Whether `host` is covered by ``noProxy``.
    public func bypasses(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        for entry in noProxy {
            var pattern = entry.lowercased()
            if pattern == "*" { return true }
            if pattern.hasPrefix("["), pattern.hasSuffix("]") { pattern = String(pattern.dropFirst().dropLast()) }
            while pattern.hasPrefix(".") { pattern.removeFirst() }
            guard !pattern.isEmpty else { continue }
            if host == pattern || host.hasSuffix("." + pattern) { return true }
        }
        return false
    }
}
