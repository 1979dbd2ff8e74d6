// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The cookies one download's redirects set, sent on its later hops, as a browser sends them
/// (RFC 6265's matching, in small): an origin's "cookie challenge" that answers the first
/// request with a `Set-Cookie` and a redirect back to the image. Nothing outlives the download,
/// as in imgproxy's download client, which takes a fresh cookie jar for every download.
///
/// Bounded against a hostile origin: at most ``maxCookies`` kept, each `Set-Cookie` field read up
/// to ``maxFieldBytes``. A `Domain` must cover the host that set it and hold a dot (no cookie for
/// a whole top-level domain); an address's cookies are its own.
package struct RedirectCookies: Sendable {
    static let maxCookies = 32
    static let maxFieldBytes = 4096

    struct Cookie: Sendable, Equatable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
    }

    private(set) var cookies: [Cookie] = []

    /// Keeps what the `Set-Cookie` fields of `url`'s answer set; a `Max-Age` of 0 or less removes.
    mutating func store(_ fields: [String], from url: URL) {
        guard let host = Self.host(of: url) else { return }
        for field in fields where field.utf8.count <= Self.maxFieldBytes {
            guard let (cookie, expired) = Self.parse(field, host: host, path: url.path) else { continue }
            cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            if !expired, cookies.count < Self.maxCookies { cookies.append(cookie) }
        }
    }

    /// The `Cookie` value for `url` (`name=value` pairs, longer paths first), `nil` for none.
    func header(for url: URL) -> String? {
        guard let host = Self.host(of: url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let sent = cookies.enumerated().filter { _, c in
            (!c.secure || scheme == "https")
                && (c.hostOnly ? host == c.domain : Self.isDomainOrSubdomain(host, of: c.domain))
                && Self.pathMatches(path, c.path)
        }
        .sorted { a, b in a.element.path.count != b.element.path.count ? a.element.path.count > b.element.path.count : a.offset < b.offset }
        return sent.isEmpty ? nil : sent.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
    }

    /// One `Set-Cookie` field read for `host` at `path`: the cookie and whether it is already
    /// expired; `nil` when it is malformed or its `Domain` is not `host`'s.
    static func parse(_ field: String, host: String, path: String) -> (Cookie, expired: Bool)? {
        var parts = field.split(separator: ";", omittingEmptySubsequences: false).map { PathName.trimmed($0) }
        let pair = parts.removeFirst()
        guard let eq = pair.firstIndex(of: "="), isToken(pair[..<eq]) else { return nil }
        var value = Substring(pair[pair.index(after: eq)...])
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
        guard value.utf8.allSatisfy(isCookieValueByte) else { return nil }
        var cookie = Cookie(
            name: String(pair[..<eq]), value: String(value), domain: host, hostOnly: true, path: defaultPath(path), secure: false)
        var expired = false
        for attribute in parts {
            let (key, argument) =
                attribute.firstIndex(of: "=").map {
                    (attribute[..<$0].lowercased(), PathName.trimmed(attribute[attribute.index(after: $0)...]))
                } ?? (attribute.lowercased(), "")
            switch key {
            case "domain":
                var domain = argument.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                guard domain == host || (domain.contains(".") && isDomainOrSubdomain(host, of: domain) && !isAddress(host)) else { return nil }
                cookie.domain = domain
                cookie.hostOnly = false
            case "path": if argument.hasPrefix("/") { cookie.path = argument }
            case "secure": cookie.secure = true
            case "max-age": if let seconds = Int(argument), seconds <= 0 { expired = true }
            default: continue
            }
        }
        return (cookie, expired)
    }

    /// `url`'s host, lowercased, without a trailing dot.
    package static func host(of url: URL) -> String? {
        guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// Whether `host` is `domain` or a name under it (`img.example.com` under `example.com`).
    package static func isDomainOrSubdomain(_ host: String, of domain: String) -> Bool {
        host == domain || host.hasSuffix("." + domain)
    }

    /// RFC 6265's default path: the request path up to its last `/`, or `/`.
    package static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// RFC 6265's path match: the same path, or one under the cookie's at a `/`.
    package static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// A cookie name: an HTTP token.
    package static func isToken<S: StringProtocol>(_ name: S) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { b in b > 0x20 && b < 0x7F && !"()<>@,;:\\\"/[]?={}".utf8.contains(b) }
    }

    /// A byte a cookie value may hold: printable ASCII but `"`, `;` and `\` (Go's reading, which
    /// allows spaces and commas).
    package static func isCookieValueByte(_ b: UInt8) -> Bool {
        b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\"") && b != UInt8(ascii: ";") && b != UInt8(ascii: "\\")
    }

    private static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }
}
