// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `data:` URL (RFC 2397), read once for every layer that meets one: the loader of `data:`
/// sources and the SVG coder's embedded images.
///
/// `data:[<media type>][;<parameter>]*[;base64],<data>`: the payload percent-encoded, or base64
/// (whitespace inside it skipped and missing padding allowed, as browsers read it).
package struct DataURL: Equatable, Sendable {
    /// The media type as written, without parameters (`image/jpg`), or empty when none is given.
    package var mediaType: String
    /// The parameters between the media type and the comma, `base64` excluded, as written.
    package var parameters: [String]
    /// The payload's bytes.
    package var payload: [UInt8]

    package init(mediaType: String, parameters: [String] = [], payload: [UInt8]) {
        self.mediaType = mediaType
        self.parameters = parameters
        self.payload = payload
    }

    /// Reads `text`, or returns `nil` when it is not a well-formed `data:` URL: no `data:`
    /// scheme (letters in any case; leading and trailing spaces skipped, as URL attributes are
    /// read), no comma, a broken `%` escape, or base64 that does not decode; or when the payload
    /// would be longer than `maxBytes` (checked before decoding).
    package init?(_ text: some StringProtocol, maxBytes: Int = .max) {
        let trimmed = text.utf8.drop { Self.isSpace($0) }.reversed().drop { Self.isSpace($0) }.reversed()
        let bytes = Array(trimmed)
        guard bytes.count >= 5, String(decoding: bytes[0..<5], as: UTF8.self).lowercased() == "data:",
            let comma = bytes.firstIndex(of: UInt8(ascii: ","))
        else { return nil }
        // Split on the byte, not on Characters: a `;` followed by a combining mark is one
        // Character, and would not split.
        var parts = bytes[5..<comma].split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { part in
            String(decoding: Array(part.drop { Self.isSpace($0) }.reversed().drop { Self.isSpace($0) }.reversed()), as: UTF8.self)
        }
        let isBase64 = parts.count > 1 && parts.last?.lowercased() == "base64"
        if isBase64 { parts.removeLast() }
        let body = bytes[(comma + 1)...]
        guard body.count <= (isBase64 ? Self.base64Length(of: maxBytes) : maxBytes) else { return nil }
        guard let unescaped = PercentEscapes.bytes(String(decoding: body, as: UTF8.self)) else { return nil }
        if isBase64 {
            var cleaned = unescaped.filter { !Self.isSpace($0) }
            while cleaned.count % 4 != 0 { cleaned.append(UInt8(ascii: "=")) }
            guard let data = Data(base64Encoded: Data(cleaned)), data.count <= maxBytes else { return nil }
            payload = [UInt8](data)
        } else {
            guard unescaped.count <= maxBytes else { return nil }
            payload = unescaped
        }
        mediaType = parts.first ?? ""
        parameters = Array(parts.dropFirst())
    }

    /// The URL with the payload in base64: `data:<media type>[;<parameters>];base64,<payload>`.
    package var base64String: String {
        let head = ([mediaType] + parameters).joined(separator: ";")
        return "data:" + head + ";base64," + Data(payload).base64EncodedString()
    }

    /// The longest base64 text (with whitespace and padding) that can hold `bytes` bytes of
    /// payload; generous, so that only a payload that is surely too long is refused unread.
    static func base64Length(of bytes: Int) -> Int {
        let (quads, overflow) = (bytes / 3 + 1).multipliedReportingOverflow(by: 8)
        return overflow ? .max : quads
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C }
}
