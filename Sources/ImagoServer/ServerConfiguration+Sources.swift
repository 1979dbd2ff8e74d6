// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ServerConfiguration {
    /// The source a URL names, as it is fetched: ``urlReplacements`` applied in order, then
    /// ``baseURL`` put before it unless it already starts with it (imgproxy's order).
    public func resolveSource(_ source: String) -> String {
        var s = source
        for r in urlReplacements {
            if let replaced = Self.replacing(r.pattern, with: r.replacement, in: s) { s = replaced }
        }
        if let base = baseURL, !s.hasPrefix(base) { s = base + s }
        return s
    }

    /// `text` with its start matched by `pattern` (each `*` any run of characters other than `/`,
    /// as long as possible) replaced by `replacement` (`${n}` the n-th `*`'s text); `nil` when
    /// the pattern does not match.
    static func replacing(_ pattern: String, with replacement: String, in text: String) -> String? {
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        var captures: [Substring] = []
        func match(_ i: Int, _ rest: Substring) -> Substring? {
            guard rest.hasPrefix(pieces[i]) else { return nil }
            let after = rest.dropFirst(pieces[i].count)
            if i == pieces.count - 1 { return after }
            // The longest run without a slash that lets the rest match.
            let run = after.prefix { $0 != "/" }
            var length = run.count
            while length >= 0 {
                captures.append(after.prefix(length))
                if let end = match(i + 1, after.dropFirst(length)) { return end }
                captures.removeLast()
                length -= 1
            }
            return nil
        }
        guard let tail = match(0, Substring(text)) else { return nil }
        var out = replacement
        for (n, capture) in captures.enumerated().reversed() {
            out = out.split(separator: "${\(n + 1)}", omittingEmptySubsequences: false).joined(separator: String(capture))
        }
        return out + tail
    }
}
