// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// URL-safe Base64 (RFC 4648 §5): `-` and `_` for `+` and `/`, no padding.
enum Base64URL {
    static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        String(
            Data(bytes).base64EncodedString().compactMap { c -> Character? in
                switch c {
                case "+": "-"
                case "/": "_"
                case "=": nil
                default: c
                }
            })
    }

    /// The bytes, or `nil` for text that is not base64url. Padding is optional, and only at the
    /// end (as imgproxy trims it): a `=` inside is an error.
    static func decode(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        while body.hasSuffix("=") { body = body.dropLast() }
        guard body.utf8.allSatisfy(\.isBase64URL) else { return nil }
        var s = String(
            body.map { c -> Character in
                switch c {
                case "-": "+"
                case "_": "/"
                default: c
                }
            })
        guard s.count % 4 != 1 else { return nil }
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { Array($0) }
    }
}

extension UInt8 {
    var isBase64URL: Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || self == UInt8(ascii: "-") || self == UInt8(ascii: "_")
    }
}
