// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// A service URL's path taken apart: `/{signature}/{options}/plain/{source}[@{ext}]`,
/// `/{signature}/{options}/{base64url source}[.{ext}]`, or either after `/info`.
///
/// Only the shape is read here: ``options`` are the raw option segments, for
/// ``ProcessingOptions/init(parsing:presets:allowSecurityOptions:)``; ``signedPath`` is the part
/// the signature covers, exactly as it arrived.
public struct ServicePath: Sendable, Hashable {
    /// `true` for `/info/...`: the service answers with JSON about the source.
    public var isInfo: Bool
    /// The signature segment (`_` or `insecure` without a key).
    public var signature: String
    /// The option segments, in order.
    public var options: [String]
    /// The source URL, decoded (from percent-encoding or base64url).
    public var source: String
    /// The output format named by the extension (`@png` or `.png`), if any.
    public var extensionName: String?
    /// Everything after the signature segment, starting with `/`: what the signature signs.
    public var signedPath: String

    /// Parses a request path, as it arrived (still percent-encoded).
    ///
    /// - Throws: ``ServiceURLError/malformedPath(_:)`` for a path without a signature or
    ///   source, ``ServiceURLError/invalidSource(_:)`` for a source that does not decode.
    public init(parsing rawPath: String) throws(ServiceURLError) {
        var path = Substring(rawPath)
        if let query = path.firstIndex(of: "?") { path = path[..<query] }
        guard path.hasPrefix("/") else { throw .malformedPath("the path must start with /") }
        path = path.dropFirst()
        isInfo = false
        if path.hasPrefix("info/") {
            isInfo = true
            path = path.dropFirst(5)
        }
        guard let slash = path.firstIndex(of: "/") else { throw .malformedPath("no source after the signature") }
        signature = String(path[..<slash])
        guard !signature.isEmpty else { throw .malformedPath("the signature segment is empty") }
        let rest = path[slash...]
        signedPath = String(rest)

        var options: [String] = []
        var remainder = rest.dropFirst()
        var plain = false
        while let end = remainder.firstIndex(of: "/") ?? (remainder.isEmpty ? nil : remainder.endIndex) {
            let segment = remainder[..<end]
            if segment == "plain" {
                plain = true
                remainder = end < remainder.endIndex ? remainder[remainder.index(after: end)...] : remainder[end...]
                break
            }
            // Options hold a colon; base64url text never does.
            guard segment.contains(":") else { break }
            options.append(String(segment))
            remainder = end < remainder.endIndex ? remainder[remainder.index(after: end)...] : remainder[end...]
        }
        self.options = options
        guard !remainder.isEmpty else { throw .malformedPath("no source URL") }

        if plain {
            var encoded = String(remainder)
            extensionName = nil
            if let at = encoded.lastIndex(of: "@") {
                let ext = String(encoded[encoded.index(after: at)...])
                guard !ext.isEmpty, !ext.contains("/") else { throw .malformedPath("an empty extension after @") }
                extensionName = ext
                encoded = String(encoded[..<at])
            }
            guard let decoded = PercentEncoding.decode(encoded), !decoded.isEmpty else {
                throw .invalidSource("broken percent-escape in the plain source")
            }
            source = decoded
        } else {
            var joined = remainder.filter { $0 != "/" }
            extensionName = nil
            if let dot = joined.lastIndex(of: ".") {
                extensionName = String(joined[joined.index(after: dot)...])
                joined = String(joined[..<dot])
            }
            guard let bytes = Base64URL.decode(joined), let decoded = String(validating: bytes, as: UTF8.self), !decoded.isEmpty else {
                throw .invalidSource("the source is neither plain/ nor base64url")
            }
            source = decoded
        }
    }
}
