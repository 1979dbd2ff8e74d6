// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoLoading
import NIOCore

/// A `Range: bytes=…` request on an answer sent as it is (`raw`), as RFC 9110 14 reads it: one
/// range (`a-b`, `a-`, or the last `n` bytes `-n`) gets `206 Partial Content` with
/// `Content-Range`; a range past the end gets `416` with `Content-Range: bytes */length`; several
/// ranges, a malformed header, another unit, or an `If-Range` that no longer names this answer
/// get the whole answer, as the RFC lets a server do. imgproxy passes `raw` requests' ranges to
/// the origin (Safari asks for video in ranges); Imago answers them from the source it keeps.
enum ServiceRange: Equatable {
    /// The bytes `range` of the answer.
    case part(Range<Int>)
    /// Nothing of a `length`-byte answer is in the range asked.
    case unsatisfiable

    /// What `headers` ask of an answer of `length` bytes with `etag` and `lastModified`; `nil`
    /// for the whole answer.
    static func requested(_ headers: HTTPFields, length: Int, etag: String?, lastModified: String?) -> ServiceRange? {
        guard let value = headers[.range] else { return nil }
        if let condition = headers[.ifRange], !Self.holds(condition, etag: etag, lastModified: lastModified) { return nil }
        return parse(value, length: length)
    }

    /// `value` (`bytes=a-b`) for an answer of `length` bytes; `nil` when it is not one byte range.
    static func parse(_ value: String, length: Int) -> ServiceRange? {
        let trimmed = Substring(value).trimmingSpaces
        guard trimmed.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = trimmed.dropFirst("bytes=".count).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingSpaces, last = spec[spec.index(after: dash)...].trimmingSpaces
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else { return nil }
        // Numbers too long for an Int are past any end.
        if first.isEmpty {
            guard let count = Int(last) else { return length > 0 ? .part(0..<length) : .unsatisfiable }
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .part(max(0, length - count)..<length)
        }
        guard let start = Int(first), start < length else { return .unsatisfiable }
        let end = last.isEmpty ? length - 1 : min(Int(last) ?? Int.max, length - 1)
        guard end >= start else { return nil }
        return .part(start..<(end + 1))
    }

    /// Whether `If-Range` still names this answer: a strong `ETag` equal to `etag`, or a date
    /// equal to `lastModified` (RFC 9110 13.1.5).
    private static func holds(_ condition: String, etag: String?, lastModified: String?) -> Bool {
        let value = Substring(condition).trimmingSpaces
        if value.hasPrefix("\"") { return etag == String(value) }
        if value.hasPrefix("W/") { return false }
        guard let asked = HTTPDate.parse(String(value)), let modified = lastModified.flatMap(HTTPDate.parse) else { return false }
        return asked == modified
    }

    /// `response` (a whole `200` of `length` bytes) cut to this range: `206` with its part and
    /// `Content-Range`, or `416` with none of it.
    func apply(to response: inout ServiceResponse, length: Int) {
        switch self {
        case .part(let range):
            response.status = .partialContent
            response.headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
            switch response.body {
            case .bytes(let buffer): response.body = .bytes(buffer.getSlice(at: buffer.readerIndex + range.lowerBound, length: range.count) ?? buffer)
            case .file(let file): response.body = .filePart(file, range)
            case .filePart(let file, let whole): response.body = .filePart(file, (whole.lowerBound + range.lowerBound)..<(whole.lowerBound + range.upperBound))
            }
        case .unsatisfiable:
            response.status = .rangeNotSatisfiable
            response.headers[.contentRange] = "bytes */\(length)"
            response.headers[.contentType] = nil
            response.headers[.contentDisposition] = nil
            response.body = .bytes(ByteBuffer())
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
