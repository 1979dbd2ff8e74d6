// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// An `Accept` header's media ranges with their q-values (RFC 9110 §12.5.1), enough to ask
/// "does this client take image/webp, and how much".
struct AcceptHeader: Sendable {
    struct Range: Sendable {
        var type: String
        var subtype: String
        var q: Double
    }

    let ranges: [Range]

    init(_ header: String?) {
        var ranges: [Range] = []
        for item in (header ?? "").split(separator: ",") {
            let params = item.split(separator: ";")
            guard let media = params.first else { continue }
            let parts = media.trimmingSpaces.lowercased().split(separator: "/", maxSplits: 1)
            guard parts.count == 2 else { continue }
            var q = 1.0
            for p in params.dropFirst() {
                let kv = p.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingSpaces.lowercased() == "q", let v = Double(kv[1].trimmingSpaces), v.isFinite {
                    q = min(1, max(0, v))
                }
            }
            ranges.append(Range(type: String(parts[0]), subtype: String(parts[1]), q: q))
        }
        self.ranges = ranges
    }

    /// The q-value the client gives `mimeType`: the most specific matching range's (an exact
    /// type beats `image/*`, which beats `*/*`), 0 when none matches.
    func quality(of mimeType: String) -> Double {
        let parts = mimeType.lowercased().split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return 0 }
        var best: (specificity: Int, q: Double)?
        for r in ranges {
            let specificity: Int
            if r.type == parts[0] && r.subtype == parts[1] {
                specificity = 2
            } else if r.type == parts[0] && r.subtype == "*" {
                specificity = 1
            } else if r.type == "*" && r.subtype == "*" {
                specificity = 0
            } else {
                continue
            }
            if let b = best, b.specificity >= specificity { continue }
            best = (specificity, r.q)
        }
        return best?.q ?? 0
    }

    /// Whether the client names `mimeType` itself with a q above 0. Browsers send `*/*`, so
    /// only an explicit mention counts as asking for a newer format (as imgproxy decides).
    func explicitlyAccepts(_ mimeType: String) -> Bool {
        let m = mimeType.lowercased()
        return ranges.contains { "\($0.type)/\($0.subtype)" == m && $0.q > 0 }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
