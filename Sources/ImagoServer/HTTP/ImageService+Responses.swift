// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoServiceURL
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageService {
    /// A 200 with the image, or a 304 when `If-None-Match` already names it. A `provisional`
    /// answer (its AVIF is being made) may be cached for `IMAGO_AVIF_LATER_TTL` only.
    func imageResponse(
        _ rendered: Rendered, contentType: String, etag: String, source: ServiceSource, options: ProcessingOptions,
        varies: Bool, headers: HTTPFields, provisional: Bool = false
    ) -> ServiceResponse {
        if ServiceHeaders.isNotModified(headers, etag: etag, lastModified: source.lastModified) {
            return notModified(etag: etag, source: source, varies: varies, expires: options.expires, provisional: provisional)
        }
        var fields = validatorFields(etag: etag, source: source, varies: varies, expires: options.expires, provisional: provisional)
        fields[.contentType] = contentType
        let attachment = options.returnAttachment ?? configuration.http.returnAttachment
        fields[.contentDisposition] = ServiceHeaders.contentDisposition(
            name: options.filename ?? source.baseName, format: rendered.format,
            attachment: attachment)
        return ServiceResponse(status: .ok, headers: fields, body: rendered.body)
    }

    func notModified(etag: String, source: ServiceSource, varies: Bool, expires: Int64? = nil, provisional: Bool = false) -> ServiceResponse {
        ServiceResponse(
            status: .notModified,
            headers: validatorFields(etag: etag, source: source, varies: varies, expires: expires, provisional: provisional))
    }

    /// `Cache-Control` as imgproxy writes it (`max-age=N, public`, `no-cache` for a TTL of 0),
    /// no longer than the URL lives when it has `expires`, and for a provisional answer no longer
    /// than `IMAGO_AVIF_LATER_TTL`, with `stale-while-revalidate` for the rest; otherwise the
    /// origin's with `IMAGO_CACHE_CONTROL_PASSTHROUGH` (``passedCacheControl(of:)``); `private`
    /// rather than `public` for a source fetched with a client's cookies
    /// (`IMAGO_COOKIE_ANSWERS_PRIVATE`); the validators; `Vary`.
    func validatorFields(
        etag: String, source: ServiceSource, varies: Bool, expires: Int64? = nil, provisional: Bool = false
    ) -> HTTPFields {
        var fields = HTTPFields()
        var ttl = configuration.http.ttl
        let privately = source.isPrivate && configuration.sources.cookieAnswersPrivate
        if let expires { ttl = min(ttl, max(0, Int(clamping: expires - Int64(Date().timeIntervalSince1970)))) }
        if provisional, ttl > configuration.output.avifLaterTTL {
            let rest = ttl - configuration.output.avifLaterTTL
            ttl = configuration.output.avifLaterTTL
            fields[.cacheControl] = ttl > 0 ? "max-age=\(ttl), stale-while-revalidate=\(rest), public" : "no-cache"
        } else if expires == nil, !privately, let passed = passedCacheControl(of: source) {
            fields[.cacheControl] = passed
        } else {
            fields[.cacheControl] = ttl > 0 ? "max-age=\(ttl), \(privately ? "private" : "public")" : "no-cache"
        }
        fields[.eTag] = etag
        if let last = source.lastModified, !last.isEmpty, last.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            fields[.lastModified] = last
        }
        var vary: [String] = varies ? ["Accept"] : []
        if configuration.urls.enableClientHints {
            fields[.acceptCH] = ClientHints.names.joined(separator: ", ")
            vary += ClientHints.names
        }
        if !vary.isEmpty { fields[.vary] = vary.joined(separator: ", ") }
        return fields
    }

    /// The origin's freshness passed on with `IMAGO_CACHE_CONTROL_PASSTHROUGH`, as imgproxy passes
    /// it: its `Cache-Control` as sent, else its `Expires` as `max-age=N, public` while it lies
    /// ahead; `nil` when passthrough is off or the origin said neither.
    func passedCacheControl(of source: ServiceSource) -> String? {
        guard configuration.http.cacheControlPassthrough else { return nil }
        if let value = source.loaded.originCacheControl, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return value
        }
        if let text = source.loaded.originExpires, let date = HTTPDate.parse(text) {
            let left = Int(date.timeIntervalSinceNow.rounded(.down))
            if left > 0 { return "max-age=\(left), public" }
        }
        return nil
    }

    /// `Link: <source>; rel="canonical"` with `IMAGO_SET_CANONICAL_HEADER`, as imgproxy writes
    /// it: for an answer (not a 304) from an `http(s)` source, named as resolved (base URL and
    /// replacements applied), the original's even when the fallback image answers; `nil`
    /// otherwise.
    func canonicalLink(to source: String, status: HTTPResponse.Status) -> String? {
        guard configuration.http.setCanonicalHeader, status != .notModified else { return nil }
        return ServiceHeaders.canonicalLink(to: source)
    }

    /// imgproxy's debug headers with `IMAGO_ENABLE_DEBUG_HEADERS`, on an image answer (not a 304):
    /// `X-Origin-Width` and `-Height` (the source as shown: turned by its EXIF orientation, one
    /// frame of an animation; the fallback image when it answered), `X-Origin-Content-Length`
    /// (its bytes), and `X-Result-Width` and `-Height`, read from the answer's own header. A
    /// size that cannot be read is left out.
    func addDebugHeaders(_ response: inout ServiceResponse, origin: ServiceSource) {
        guard configuration.http.enableDebugHeaders, response.status != .notModified else { return }
        response.headers[.xOriginContentLength] = String(origin.count)
        if let info = try? origin.loaded.info() {
            let shown = info.orientation.orientedSize(info.pixelSize)
            response.headers[.xOriginWidth] = String(shown.width)
            response.headers[.xOriginHeight] = String(shown.height)
        }
        let answer: ImageInput
        switch response.body {
        case .bytes(let buffer): answer = ImageInput(Data(buffer.readableBytesView))
        case .file(let file): answer = ImageInput(file)
        // Part of an answer (a `Range` of `raw`) has no header of its own to read.
        case .filePart: return
        }
        if let info = try? answer.info(coders: coders) {
            let shown = info.orientation.orientedSize(info.pixelSize)
            response.headers[.xResultWidth] = String(shown.width)
            response.headers[.xResultHeight] = String(shown.height)
        }
    }
}
