// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

/// Percent-escapes in URL text.
package enum PercentEncoding {
    /// `text` with its `%XX` escapes turned into bytes and read as UTF-8; `nil` for a broken
    /// escape or bytes that are not UTF-8.
    package static func decode(_ text: String) -> String? {
        PercentEscapes.bytes(text).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// `text` percent-encoded for a `plain/` source: everything but unreserved characters and
    /// `:/` is escaped, so `?`, `@`, `%` and `#` never reach the path raw.
    static func encodeSource(_ text: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/".utf8)
        return PercentEscapes.escaped(text) { allowed.contains($0) }
    }
}
