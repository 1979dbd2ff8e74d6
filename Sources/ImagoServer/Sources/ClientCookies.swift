// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoCore
import ImagoLoading

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A client's cookies, passed on to the source it asks for (`IMAGO_COOKIE_PASSTHROUGH`), as
/// imgproxy passes them.
///
/// They go to a source on the host the cookies belong to, and under its path:
/// `IMAGO_COOKIE_BASE_URL`'s, else the host the client asked (`X-Forwarded-Host`, else the
/// request's own), path `/`. With `IMAGO_COOKIE_PASSTHROUGH_ALL` they go to every `http(s)`
/// source. On redirects they follow within the source's domain only. Cookies are read as Go's
/// server reads them (a name that is not a token or a value with other bytes is dropped) and
/// written as its client writes them.
///
/// A source asked with a client's cookies is that client's: it is fetched for the request (a
/// download is shared only with requests sending the same cookies) and neither read from nor
/// written to any cache (``cacheBypass``), nor is what is made from it.
struct ClientCookies: Sendable {
    /// The options a request with cookies adds: no cache read or written.
    static let cacheBypass: ImageRequest.Options = [
        .disableMemoryCacheReads, .disableMemoryCacheWrites, .disableDiskCacheReads, .disableDiskCacheWrites
    ]

    /// The cookies in order: name, value, and whether the value came quoted.
    let pairs: [(name: String, value: String, quoted: Bool)]
    /// The host they belong to; `nil`: every host (`IMAGO_COOKIE_PASSTHROUGH_ALL`).
    let host: String?
    /// The path they belong to.
    let path: String

    /// The cookies of a request with `headers`, asked of `authority`; `nil` when passthrough is
    /// off, the request has no cookies, or no host they belong to is known.
    init?(headers: HTTPFields, authority: String?, settings: SourceSettings) {
        guard settings.cookiePassthrough else { return nil }
        let all = settings.cookiePassthroughAll
        let pairs = Self.read(headers[values: .cookie], uniqueNames: !all)
        guard !pairs.isEmpty else { return nil }
        self.pairs = pairs
        if all {
            (host, path) = (nil, "/")
        } else if let base = settings.cookieBaseURL.flatMap({ URL(string: $0) }), let baseHost = RedirectCookies.host(of: base) {
            (host, path) = (baseHost, RedirectCookies.defaultPath(base.path))
        } else {
            let asked = headers[.xForwardedHost] ?? authority ?? headers[.host]
            guard let asked, let url = URL(string: "http://" + PathName.trimmed(asked) + "/"), let askedHost = RedirectCookies.host(of: url) else {
                return nil
            }
            (host, path) = (askedHost, "/")
        }
    }

    /// The `Cookie` value for a source at `url`, `nil` when the cookies do not belong to it.
    func header(for url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        if let host {
            let path = url.path.isEmpty ? "/" : url.path
            guard RedirectCookies.host(of: url) == host, RedirectCookies.pathMatches(path, self.path) else { return nil }
        }
        return pairs.map { pair in
            // Go writes a value with a space or a comma, or one that came quoted, in quotes.
            let quoted = pair.quoted || pair.value.contains(" ") || pair.value.contains(",")
            return pair.name + "=" + (quoted ? "\"" + pair.value + "\"" : pair.value)
        }.joined(separator: "; ")
    }

    /// The `name=value` pairs of `fields`, as Go's `Request.Cookies` reads them; with
    /// `uniqueNames`, a name given again replaces the value in its first place (a cookie jar's
    /// keeping).
    static func read(_ fields: [String], uniqueNames: Bool) -> [(name: String, value: String, quoted: Bool)] {
        var pairs: [(name: String, value: String, quoted: Bool)] = []
        for field in fields {
            for part in field.split(separator: ";") {
                // A part with no `=` is a name with an empty value, as Go reads it.
                let pair = PathName.trimmed(part)
                let eq = pair.firstIndex(of: "=") ?? pair.endIndex
                let name = PathName.trimmed(pair[..<eq])
                guard RedirectCookies.isToken(name) else { continue }
                var value = eq == pair.endIndex ? Substring("") : pair[pair.index(after: eq)...]
                let quoted = value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"")
                if quoted { value = value.dropFirst().dropLast() }
                guard value.utf8.allSatisfy(RedirectCookies.isCookieValueByte) else { continue }
                if uniqueNames, let at = pairs.firstIndex(where: { $0.name == name }) {
                    pairs[at] = (name, String(value), quoted)
                } else {
                    pairs.append((name, String(value), quoted))
                }
            }
        }
        return pairs
    }
}
