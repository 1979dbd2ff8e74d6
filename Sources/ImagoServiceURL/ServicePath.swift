// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// A service URL's path taken apart: `/{signature}/{options}/plain/{source}[@{ext}]`,
/// `/{signature}/{options}/{base64url source}[.{ext}]`, or either after `/info`.
///
/// Only the shape is read here: ``options`` are the raw option segments, for
/// ``ProcessingOptions/init(parsing:presets:allowSecurityOptions:startingFrom:argumentSeparator:)``; ``signedPath`` is the part
/// the signature covers, with what CDNs rewrite put back (see `redenormalize(_:)`).
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
    /// Everything after the signature segment, starting with `/`, redenormalised as imgproxy
    /// does: what the signature signs.
    public var signedPath: String

    /// Parses a request path, as it arrived (still percent-encoded), as imgproxy does: the
    /// signature segment, then the path after it with CDN rewrites undone (`%3A` back to `:` in
    /// the options, `scheme:/x` back to `scheme://x` in a plain source), which is also what the
    /// signature covers; option segments until one without a `:`; then a plain source with at
    /// most one `@` (an empty extension names no format) or a base64url one with at most one
    /// `.` (`=` padding only at its end).
    ///
    /// - Throws: ``ServiceURLError/malformedPath(_:)`` for a path without a signature or
    ///   source, several extensions, or imgproxy's retired basic URL format;
    ///   ``ServiceURLError/invalidSource(_:)`` for a source that does not decode.
    ///
    /// - Parameters:
    ///   - rawPath: The request's path, query included or not.
    ///   - onlyPresets: imgproxy's `IMGPROXY_ONLY_PRESETS`: the first segment is a list of preset
    ///     names (``options`` is then one `preset` segment) and everything after it the source.
    ///     Default `false`.
    ///   - argumentSeparator: imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`: what separates an
    ///     option's name and arguments, so the options end at the first segment without it.
    ///     Default `:`.
    ///   - base64URLIncludesFilename: imgproxy's `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`: a
    ///     base64url source split over several segments has a file name (for people and search
    ///     engines) as its last, which is dropped: the format comes only from the `.ext` of the
    ///     base64url part. Default `false`.
    public init(
        parsing rawPath: String, onlyPresets: Bool = false, argumentSeparator: String = ":", base64URLIncludesFilename: Bool = false
    ) throws(ServiceURLError) {
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
        var rest = Self.redenormalize(String(path[path.index(after: slash)...]))
        guard !rest.isEmpty, rest != "/" else { throw .malformedPath("no source after the signature") }
        signedPath = "/" + rest
        // One empty segment after the signature (`/sig//plain/…`) is no segment.
        if rest.hasPrefix("/") { rest.removeFirst() }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        let sourceParts: ArraySlice<Substring>
        if onlyPresets {
            guard let first = parts.first, !first.isEmpty else { throw .malformedPath("no presets before the source") }
            options = ["preset" + argumentSeparator + first]
            sourceParts = parts.dropFirst()
        } else {
            if let first = parts.first, ProcessingOptions.ResizingType(rawValue: String(first)) != nil {
                throw .malformedPath("this is imgproxy's retired basic URL format; use options like rs:fill:300:200")
            }
            let optionCount = parts.firstIndex { !$0.contains(argumentSeparator) } ?? parts.count
            options = parts[..<optionCount].map(String.init)
            sourceParts = parts[optionCount...]
        }
        guard !sourceParts.isEmpty else { throw .malformedPath("no source URL") }
        if sourceParts.first == "plain", sourceParts.count > 1 {
            let encoded = sourceParts.dropFirst().joined(separator: "/")
            let pieces = encoded.split(separator: "@", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { throw .malformedPath("several formats after @") }
            extensionName = pieces.count == 2 && !pieces[1].isEmpty ? String(pieces[1]) : nil
            guard !pieces[0].isEmpty else { throw .malformedPath("no source URL") }
            guard let decoded = PercentEncoding.decode(String(pieces[0])), !decoded.isEmpty else {
                throw .invalidSource("broken percent-escape in the plain source")
            }
            source = decoded
        } else {
            let named = base64URLIncludesFilename && sourceParts.count > 1
            let joined = (named ? sourceParts.dropLast() : sourceParts).joined()
            let pieces = joined.split(separator: ".", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { throw .malformedPath("several formats after .") }
            extensionName = pieces.count == 2 && !pieces[1].isEmpty ? String(pieces[1]) : nil
            guard !pieces[0].isEmpty else { throw .malformedPath("no source URL") }
            guard let bytes = Base64URL.decode(String(pieces[0])), let decoded = String(validating: bytes, as: UTF8.self), !decoded.isEmpty
            else {
                throw .invalidSource("the source is neither plain/ nor base64url")
            }
            source = decoded
        }
    }

    /// A path after the signature with what CDNs and proxies rewrite put back, as imgproxy does
    /// before checking the signature: `%3A` in the options becomes `:` again, and a plain
    /// source's `scheme:/host` (slashes merged) becomes `scheme://host` (`local:///path`).
    package static func redenormalize(_ path: String) -> String {
        let options: String, plain: String?
        if path.hasPrefix("plain/") {
            options = ""
            plain = String(path.dropFirst(6))
        } else if let at = Self.ranges(of: "/plain/", in: path).first {
            options = String(path[..<at.lowerBound])
            plain = String(path[at.upperBound...])
        } else {
            options = path
            plain = nil
        }
        var fixed = ""
        var rest = Substring(options)
        for range in Self.ranges(of: "%3A", in: options) {
            fixed += options[rest.startIndex..<range.lowerBound] + ":"
            rest = options[range.upperBound...]
        }
        fixed += rest
        guard var source = plain else { return fixed.hasPrefix("/") ? String(fixed.dropFirst()) : fixed }
        // Go's `^(\S+):/([^/])`: the last `:/` followed by something other than `/` whose
        // prefix has no white space.
        for colon in Self.ranges(of: ":/", in: source).reversed() {
            let prefix = source[..<colon.lowerBound]
            guard !prefix.isEmpty, !prefix.contains(where: \.isWhitespace) else { continue }
            guard let next = source[colon.upperBound...].first, next != "/" else { continue }
            source = prefix + (prefix == "local" ? ":///" : "://") + source[colon.upperBound...]
            break
        }
        let joined = fixed + "/plain/" + source
        return joined.hasPrefix("/") ? String(joined.dropFirst()) : joined
    }

    /// Where `needle` occurs in `text`, left to right, not overlapping.
    static func ranges(of needle: String, in text: String) -> [Range<String.Index>] {
        var found: [Range<String.Index>] = []
        var start = text.startIndex
        while start < text.endIndex {
            guard let range = text[start...].firstRange(of: needle) else { break }
            found.append(range)
            start = range.upperBound
        }
        return found
    }
}
