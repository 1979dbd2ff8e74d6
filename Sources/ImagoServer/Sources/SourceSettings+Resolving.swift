// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SourceSettings {
    /// The source a URL names, as it is fetched: ``urlReplacements`` applied in order, then
    /// ``baseURL`` put before it unless it already starts with it (imgproxy's order).
    package func resolveSource(_ source: String) -> String {
        var s = source
        for r in urlReplacements {
            if let replaced = Self.replacing(r.pattern, with: r.replacement, in: s) { s = replaced }
        }
        if let base = baseURL, !s.hasPrefix(base) { s = base + s }
        return s
    }

    /// `text` with its start matched by `pattern` (each `*` any run of characters other than `/`,
    /// as long as possible) replaced by `replacement` (`$n` or `${n}` the n-th `*`'s text, see
    /// ``expand(_:group:)``); `nil` when the pattern does not match.
    static func replacing(_ pattern: String, with replacement: String, in text: String) -> String? {
        // Bytes, for constant-time steps: a request's source can be long.
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.utf8) }
        let bytes = Array(text.utf8)
        var captures: [Range<Int>] = []
        func startsWith(_ piece: [UInt8], at i: Int) -> Bool {
            i + piece.count <= bytes.count && bytes[i..<(i + piece.count)].elementsEqual(piece)
        }
        // Each star takes the longest run without a slash that lets the rest match.
        func match(_ k: Int, _ i: Int) -> Int? {
            guard startsWith(pieces[k], at: i) else { return nil }
            let after = i + pieces[k].count
            if k == pieces.count - 1 { return after }
            var end = after
            while end < bytes.count, bytes[end] != UInt8(ascii: "/") { end += 1 }
            // The next piece must start right after the run: try only where it can.
            let next = pieces[k + 1]
            var length = end - after
            while length >= 0 {
                if next.isEmpty || startsWith(next, at: after + length) {
                    captures.append(after..<(after + length))
                    if let tail = match(k + 1, after + length) { return tail }
                    captures.removeLast()
                }
                length -= 1
            }
            return nil
        }
        guard let tail = match(0, 0) else { return nil }
        let groups = [0..<tail] + captures
        let out = expand(replacement) { n in n < groups.count ? String(decoding: bytes[groups[n]], as: UTF8.self) : "" }
        return out + String(decoding: bytes[tail...], as: UTF8.self)
    }

    /// `template` with its references filled in as Go's `Regexp.Expand` fills them, which
    /// imgproxy's replacements go through: `$n` and `${n}` the n-th group (`$0` the whole match;
    /// a name of letters, digits and `_` that is no group, or a group that did not match, gives
    /// nothing), `$$` a `$`, and a `$` followed by anything else kept as it is.
    static func expand(_ template: String, group: (Int) -> String) -> String {
        var out = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                out += "$"
                rest = rest.dropFirst()
                continue
            }
            let isNameCharacter = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "_") }
            let name: Substring
            if rest.first == "{", let close = rest.firstIndex(of: "}"), close > rest.index(after: rest.startIndex),
                rest[rest.index(after: rest.startIndex)..<close].allSatisfy(isNameCharacter)
            {
                name = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
            } else if let first = rest.first, isNameCharacter(first) {
                name = rest.prefix(while: isNameCharacter)
                rest = rest.dropFirst(name.count)
            } else {
                out += "$"
                continue
            }
            if name.allSatisfy(\.isNumber), let n = Int(name) { out += group(n) }
        }
        return out + rest
    }
}

extension SourceSettings {
    /// The URL of a remote source as a request names it (after ``resolveSource(_:)``): `http`
    /// and `https`, and `s3`, `gs`, `abs` and `swift` when ``s3``, ``gcs``, ``abs`` or ``swift`` is set.
    ///
    /// - Throws: ``ServiceError`` 404 `invalid_source` for another scheme, an object store that
    ///   is not enabled (saying which setting enables it), or a URL without a host.
    func remoteSourceURL(_ source: String) throws(ServiceError) -> URL {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else {
            throw ServiceError(.invalidSource, "the source must be an http, https or local URL")
        }
        switch scheme {
        case "http", "https": return url
        case "s3" where s3 != nil: return url
        case "s3": throw ServiceError(.invalidSource, "s3 sources are not enabled (IMAGO_USE_S3)")
        case "gs" where gcs != nil: return url
        case "gs": throw ServiceError(.invalidSource, "gs sources are not enabled (IMAGO_USE_GCS)")
        case "abs" where abs != nil: return url
        case "abs": throw ServiceError(.invalidSource, "abs sources are not enabled (IMAGO_USE_ABS)")
        case "swift" where swift != nil: return url
        case "swift": throw ServiceError(.invalidSource, "swift sources are not enabled (IMAGO_USE_SWIFT)")
        default: throw ServiceError(.invalidSource, "the source must be an http, https or local URL")
        }
    }
}
