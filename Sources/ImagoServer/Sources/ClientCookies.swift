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
/// source. On redirects they follow within the source's domain only. Cookies are read and written
/// as imgproxy's Go reads and writes them (``CookieSyntax``).
///
/// A source asked with a client's cookies is that client's: it is fetched for the request (a
/// download is shared only with requests sending the same cookies) and neither read from nor
/// written to any cache (``cacheBypass``), nor is what is made from it.
struct ClientCookies: Sendable {
    /// The options a request with cookies adds: no cache read or written.
    static let cacheBypass: ImageRequest.Options = [
        .disableMemoryCacheReads, .disableMemoryCacheWrites, .disableDiskCacheReads, .disableDiskCacheWrites
    ]

    /// The cookies, in the client's order.
    let pairs: [CookieSyntax.Pair]
    /// The host they belong to; `nil`: every host (`IMAGO_COOKIE_PASSTHROUGH_ALL`).
    let host: String?
    /// The path they belong to.
    let path: String

    /// The cookies of a request with `headers`, asked of `authority`; `nil` when passthrough is
    /// off, the request has no cookies, or no host they belong to is known.
    init?(headers: HTTPFields, authority: String?, settings: SourceSettings) {
        guard settings.cookiePassthrough else { return nil }
        let all = settings.cookiePassthroughAll
        let pairs = CookieSyntax.read(headers[values: .cookie], uniqueNames: !all)
        guard !pairs.isEmpty else { return nil }
        self.pairs = pairs
        if all {
            (host, path) = (nil, "/")
        } else if let base = settings.cookieBaseURL.flatMap({ URL(string: $0) }), let baseHost = CookieSyntax.host(of: base) {
            (host, path) = (baseHost, CookieSyntax.defaultPath(base.path(percentEncoded: false)))
        } else {
            let asked = headers[.xForwardedHost] ?? authority ?? headers[.host]
            guard let asked, let url = URL(string: "http://" + PathName.trimmed(asked) + "/"), let askedHost = CookieSyntax.host(of: url) else {
                return nil
            }
            (host, path) = (askedHost, "/")
        }
    }

    /// The `Cookie` value for a source at `url`, `nil` when the cookies do not belong to it.
    func header(for url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        if let host {
            let path = CookieSyntax.path(of: url)
            guard CookieSyntax.host(of: url) == host, CookieSyntax.pathMatches(path, self.path) else { return nil }
        }
        return pairs.map(\.written).joined(separator: "; ")
    }
}
