// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore
import ImagoServiceURL
import HTTPTypes
import NIOCore

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
        let attachment = options.returnAttachment ?? configuration.returnAttachment
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
    /// than `IMAGO_AVIF_LATER_TTL`, with `stale-while-revalidate` for the rest; the validators;
    /// `Vary`.
    private func validatorFields(
        etag: String, source: ServiceSource, varies: Bool, expires: Int64? = nil, provisional: Bool = false
    ) -> HTTPFields {
        var fields = HTTPFields()
        var ttl = configuration.ttl
        if let expires { ttl = min(ttl, max(0, Int(clamping: expires - Int64(Date().timeIntervalSince1970)))) }
        if provisional, ttl > configuration.avifLaterTTL {
            let rest = ttl - configuration.avifLaterTTL
            ttl = configuration.avifLaterTTL
            fields[.cacheControl] = ttl > 0 ? "max-age=\(ttl), stale-while-revalidate=\(rest), public" : "no-cache"
        } else {
            fields[.cacheControl] = ttl > 0 ? "max-age=\(ttl), public" : "no-cache"
        }
        fields[.eTag] = etag
        if let last = source.lastModified, !last.isEmpty, last.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            fields[.lastModified] = last
        }
        var vary: [String] = varies ? ["Accept"] : []
        if configuration.enableClientHints {
            fields[HTTPField.Name("Accept-CH")!] = ClientHints.names.joined(separator: ", ")
            vary += ClientHints.names
        }
        if !vary.isEmpty { fields[.vary] = vary.joined(separator: ", ") }
        return fields
    }

    // MARK: Info

    /// The `/info` answer: the header's facts as `imago info --json` prints them, plus the
    /// source's size in bytes and its content type.
    func infoResponse(_ info: ImageInfo, source: ServiceSource, digest: UInt64, headers: HTTPFields) throws -> ServiceResponse {
        let etag = ServiceHeaders.etag(digest, "info")
        if ServiceHeaders.isNotModified(headers, etag: etag, lastModified: source.lastModified) {
            return notModified(etag: etag, source: source, varies: false)
        }
        let report = InfoReport(
            report: ImageInfo.Report(info), sourceBytes: source.count,
            sourceContentType: source.contentType ?? info.format.mimeType)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body: Data
        do {
            body = try encoder.encode(report)
        } catch {
            throw ServiceError.unprocessable("the header cannot be reported")
        }
        var fields = validatorFields(etag: etag, source: source, varies: false)
        fields[.contentType] = "application/json"
        return ServiceResponse(status: .ok, headers: fields, body: .bytes(ByteBuffer(bytes: body)))
    }
}

/// `/info`'s JSON: `ImageInfo.Report`'s keys and two more.
struct InfoReport: Encodable {
    var report: ImageInfo.Report
    var sourceBytes: Int
    var sourceContentType: String

    private enum Keys: String, CodingKey { case sourceBytes, sourceContentType }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(sourceBytes, forKey: .sourceBytes)
        try c.encode(sourceContentType, forKey: .sourceContentType)
    }
}
