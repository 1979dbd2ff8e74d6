// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Cookie syntax, read and written once for the loader's redirects and the service's passthrough:
/// RFC 6265's matching of hosts and paths, and `Cookie` fields read as Go's server reads them
/// (imgproxy's reading) and written as its client writes them.
package enum CookieSyntax {
    /// One cookie of a `Cookie` field.
    package struct Pair: Sendable, Equatable {
        package var name: String
        package var value: String
        /// Whether the value came in double quotes.
        package var quoted: Bool

        package init(name: String, value: String, quoted: Bool) {
            self.name = name
            self.value = value
            self.quoted = quoted
        }

        /// `name=value`, the value in quotes when it came quoted or holds a space or a comma (Go's writing).
        package var written: String {
            let quotes = quoted || value.contains(" ") || value.contains(",")
            return name + "=" + (quotes ? "\"" + value + "\"" : value)
        }
    }

    /// The cookies of `fields` (`Cookie` field values), as Go's `Request.Cookies` reads them: a
    /// part with a name that is not a token, or a value with other bytes than a cookie's, is
    /// dropped; a part with no `=` is a name with an empty value. With `uniqueNames`, a name
    /// given again replaces the value in its first place (a cookie jar's keeping).
    package static func read(_ fields: [String], uniqueNames: Bool) -> [Pair] {
        var pairs: [Pair] = []
        var places: [String: Int] = [:]  // a name's place, for `uniqueNames`: a field of thousands of names stays linear
        for field in fields {
            for part in field.split(separator: ";") {
                guard let pair = pair(PathName.trimmed(part)) else { continue }
                if uniqueNames, let at = places[pair.name] {
                    pairs[at].value = pair.value
                    pairs[at].quoted = pair.quoted
                } else {
                    if uniqueNames { places[pair.name] = pairs.count }
                    pairs.append(pair)
                }
            }
        }
        return pairs
    }

    /// `name=value` (or `name` alone) read, the value's quotes taken off; `nil` when it is not a cookie.
    package static func pair(_ text: String) -> Pair? {
        let eq = text.firstIndex(of: "=") ?? text.endIndex
        let name = PathName.trimmed(text[..<eq])
        guard isToken(name) else { return nil }
        var value = eq == text.endIndex ? Substring("") : text[text.index(after: eq)...]
        let quoted = value.utf8.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"")
        if quoted { value = value.dropFirst().dropLast() }
        guard value.utf8.allSatisfy(isCookieValueByte) else { return nil }
        return Pair(name: name, value: String(value), quoted: quoted)
    }

    /// `url`'s host, lowercased, without a trailing dot.
    package static func host(of url: URL) -> String? {
        guard var host = url.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// `url`'s path as cookies match it: decoded, its trailing `/` kept (Foundation's `path`
    /// drops it), `/` when empty.
    package static func path(of url: URL) -> String {
        let path = url.path(percentEncoded: false)
        return path.isEmpty ? "/" : path
    }

    /// Whether `host` is `domain` or a name under it (`img.example.com` under `example.com`). An
    /// IPv6 address, with or without a zone (`fe80::1%en0.example.com`), is under nothing but itself.
    package static func isDomainOrSubdomain(_ host: String, of domain: String) -> Bool {
        host == domain || (!host.contains(":") && !host.contains("%") && host.hasSuffix("." + domain))
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    package static func isAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
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
}
