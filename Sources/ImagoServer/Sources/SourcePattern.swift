// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// `IMAGO_ALLOWED_SOURCES` matching: each pattern is a URL prefix in which `*` stands for any
/// run of characters other than `/` (so `https://*.example.com/` takes every subdomain, and
/// `https://cdn.example.com/*/public/` one path segment). A pattern with no path is taken as
/// ending in `/`, so `https://example.com` does not let `https://example.com.evil.net` through.
enum SourcePattern {
    /// Whether `source` starts with a match of one of `patterns`; `true` when there are none.
    static func permits(_ source: String, patterns: [String]) -> Bool {
        guard !patterns.isEmpty else { return true }
        let s = Array(source.utf8)
        return patterns.contains { matchesPrefix(Array(normalized($0).utf8), s) }
    }

    static func normalized(_ pattern: String) -> String {
        guard let scheme = pattern.firstRange(of: "://") else { return pattern }
        return pattern[scheme.upperBound...].contains("/") ? pattern : pattern + "/"
    }

    /// Whether some prefix of `s` matches `p` entirely. Iterative, with one backtrack point per
    /// star, so a hostile pattern or URL costs at most |p|·|s| steps.
    static func matchesPrefix(_ p: [UInt8], _ s: [UInt8]) -> Bool {
        var pi = 0, si = 0
        var star: (p: Int, s: Int)?
        let slash = UInt8(ascii: "/"), asterisk = UInt8(ascii: "*")
        while pi < p.count {
            if p[pi] == asterisk {
                star = (pi, si)
                pi += 1
                continue
            }
            if si < s.count, s[si] == p[pi] {
                pi += 1
                si += 1
                continue
            }
            // Let the last star take one more character, unless that would cross a '/'.
            guard let st = star, st.s < s.count, s[st.s] != slash else { return false }
            star = (st.p, st.s + 1)
            pi = st.p + 1
            si = st.s + 1
        }
        return true
    }
}
