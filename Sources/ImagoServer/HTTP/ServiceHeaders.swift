// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoCore
import ImagoDiskIO
import ImagoLoading
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The service's validators and content headers: strong `ETag`s over the source's digest and
/// the recipe, `If-None-Match` matching, content types and `Content-Disposition`.
enum ServiceHeaders {
    /// imago-server's release: in every `ETag` (``version``) and its default `User-Agent`.
    static let release = "0.1"
    /// The version in every `ETag`: a new Imago may render differently.
    static let version = "imago-\(release)"

    /// imgproxy's `Content-Security-Policy`, on every answer: nothing a browser opens from the
    /// service (an SVG above all) may run a script, load anything, or reach its origin.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

    /// imgproxy's CORS headers for `IMAGO_ALLOW_ORIGIN`.
    static func addCORS(_ fields: inout HTTPFields, origin: String) {
        fields[.accessControlAllowOrigin] = origin
        fields[.accessControlAllowMethods] = "GET, OPTIONS"
    }

    /// imgproxy's answer to `OPTIONS` (a CORS preflight) on any image path: 200, `text/plain`, one
    /// space, nothing checked or processed.
    static var preflight: ServiceResponse {
        ServiceResponse(status: .ok, headers: [.contentType: "text/plain"], body: .bytes(ByteBuffer(string: " ")))
    }

    /// A strong ETag over the source's digest and everything that shapes the result.
    static func etag(_ digest: UInt64, _ recipe: String) -> String {
        let r = Checksum.fast64(Data((recipe + "|" + version).utf8))
        return "\"\(hex(digest))\(hex(r))\""
    }

    private static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// Whether `If-None-Match` names `etag` (or is `*`); weak comparison, as RFC 9110 asks for GET.
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        for item in header.split(separator: ",") {
            var tag = item.trimmingSpaces
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == etag { return true }
        }
        return false
    }

    /// Whether the client's copy is current: `If-None-Match` against `etag`, or, when it sends
    /// none, `If-Modified-Since` against the source's `Last-Modified` (RFC 9110 13.2.2; imgproxy
    /// has its origin decide the latter).
    static func isNotModified(_ headers: HTTPFields, etag: String, lastModified: String?) -> Bool {
        if let tags = headers[.ifNoneMatch] { return matches(tags, etag) }
        guard let since = headers[.ifModifiedSince].flatMap(HTTPDate.parse), let modified = lastModified.flatMap(HTTPDate.parse) else {
            return false
        }
        return modified <= since
    }

    static func contentType(of format: ImageFormat) -> String {
        format == .apng ? "image/png" : format.mimeType
    }

    /// `inline; filename="name.ext"`, with an RFC 8187 `filename*` when the name is not ASCII.
    static func contentDisposition(name: String, format: ImageFormat, attachment: Bool) -> String {
        let base = baseName(name + ".x")
        let file = base + "." + (format.fileExtensions.first ?? format.rawValue)
        let ascii = String(file.unicodeScalars.map { $0.isASCII ? Character($0) : "_" })
        var value = "\(attachment ? "attachment" : "inline"); filename=\"\(ascii)\""
        if ascii != file {
            let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
            let encoded = PercentEscapes.escaped(file) { unreserved.contains($0) }
            value += "; filename*=UTF-8''\(encoded)"
        }
        return value
    }

    /// `<source>; rel="canonical"` for an `http://` or `https://` source (imgproxy's test is as
    /// case-sensitive), `nil` for any other; bytes a header or the `<>` cannot carry are
    /// percent-escaped.
    static func canonicalLink(to source: String) -> String? {
        guard source.hasPrefix("http://") || source.hasPrefix("https://") else { return nil }
        // Spaces, controls, non-ASCII bytes and the angle brackets that would end the link.
        let link = PercentEscapes.escaped(source) { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") }
        return "<" + link + ">; rel=\"canonical\""
    }

    /// A file name without its extension, reduced to safe characters.
    static func baseName(_ name: String) -> String {
        var base = Substring(name)
        if let dot = base.lastIndex(of: "."), dot > base.startIndex { base = base[..<dot] }
        let safe = String(
            base.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\"" && $0 != "\\" && $0 != "/" && $0.value != 0x7F }
                .map(Character.init))
        return safe.isEmpty ? "image" : String(safe.prefix(120))
    }
}
