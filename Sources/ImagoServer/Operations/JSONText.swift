// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// JSON string literals written by hand where a whole encoder is not needed (log lines, the
/// playground's settings).
enum JSONText {
    /// `s` as a quoted JSON string: quotes, backslashes and control characters escaped (`\n`,
    /// `\r`, `\t` by name, the others as `\u00XX`); with `html`, `<` too, so the literal can sit
    /// inside a `<script>` element without closing it.
    static func quoted(_ s: String, html: Bool = false) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<" where html: out += "\\u003c"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
