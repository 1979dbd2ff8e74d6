// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

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
    package static let maxCookies = 32
    package static let maxFieldBytes = 4096

    /// One cookie kept.
    package struct Cookie: Sendable, Equatable {
        package var name: String
        package var value: String
        /// The host that set it, or the `Domain` it named.
        package var domain: String
        /// Sent to ``domain`` alone, not to the names under it (no `Domain` was given).
        package var hostOnly: Bool
        package var path: String
        package var secure: Bool
    }

    /// The cookies kept, in the order they were set.
    package private(set) var cookies: [Cookie] = []

    /// An empty jar.
    package init() {}

    /// Keeps what the `Set-Cookie` fields of `url`'s answer set; a `Max-Age` of 0 or less removes.
    package mutating func store(_ fields: [String], from url: URL) {
        guard let host = CookieSyntax.host(of: url) else { return }
        for field in fields where field.utf8.count <= Self.maxFieldBytes {
            guard let (cookie, expired) = Self.parse(field, host: host, path: CookieSyntax.path(of: url)) else { continue }
            cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            if !expired, cookies.count < Self.maxCookies { cookies.append(cookie) }
        }
    }

    /// The `Cookie` value for `url` (`name=value` pairs, longer paths first), `nil` for none.
    package func header(for url: URL) -> String? {
        guard let host = CookieSyntax.host(of: url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let path = CookieSyntax.path(of: url)
        let sent = cookies.enumerated().filter { _, c in
            (!c.secure || scheme == "https")
                && (c.hostOnly ? host == c.domain : CookieSyntax.isDomainOrSubdomain(host, of: c.domain))
                && CookieSyntax.pathMatches(path, c.path)
        }
        .sorted { a, b in a.element.path.count != b.element.path.count ? a.element.path.count > b.element.path.count : a.offset < b.offset }
        return sent.isEmpty ? nil : sent.map { "\($0.element.name)=\($0.element.value)" }.joined(separator: "; ")
    }

    /// The name of the cookie a `Set-Cookie` field sets, `nil` when it sets none.
    package static func name(of field: String) -> String? {
        let first = field.prefix { $0 != ";" }
        guard first.contains("=") else { return nil }
        return CookieSyntax.pair(PathName.trimmed(first))?.name
    }

    /// One `Set-Cookie` field read for `host` at `path`: the cookie and whether it is already
    /// expired; `nil` when it is malformed or its `Domain` is not `host`'s.
    package static func parse(_ field: String, host: String, path: String) -> (Cookie, expired: Bool)? {
        var parts = field.split(separator: ";", omittingEmptySubsequences: false).map { PathName.trimmed($0) }
        // Set-Cookie needs its `=` (Go's reading), then the pair is a `Cookie` field's pair.
        let first = parts.removeFirst()
        guard first.contains("="), let pair = CookieSyntax.pair(first) else { return nil }
        var cookie = Cookie(
            name: pair.name, value: pair.value, domain: host, hostOnly: true, path: CookieSyntax.defaultPath(path), secure: false)
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
                let covers = domain.contains(".") && CookieSyntax.isDomainOrSubdomain(host, of: domain) && !CookieSyntax.isAddress(host)
                guard domain == host || covers else { return nil }
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
}
