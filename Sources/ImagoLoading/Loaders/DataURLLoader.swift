// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `data:` URLs (RFC 2397): `data:[<media type>][;base64],<data>`, percent-encoded or base64.
public struct DataURLLoader: DataLoading {
    /// Creates the loader.
    public init() {}

    /// `true` for `data`.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == "data" }

    /// Decodes the URL's payload; the response has status 200, the media type as `Content-Type`
    /// (default `text/plain`) and the payload's length.
    ///
    /// - Throws: ``ImageLoadingError/malformedDataURL``; the callbacks' errors.
    public func load(
        _ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void,
        chunk: (Data) throws -> Void
    ) async throws {
        let (type, payload) = try Self.decode(request.url.absoluteString)
        try response(
            DataLoadResponse(
                url: request.url, statusCode: 200,
                headers: ["Content-Type": type, "Content-Length": String(payload.count)]))
        if !payload.isEmpty { try chunk(payload) }
    }

    /// The media type and bytes of a `data:` URL string.
    ///
    /// - Throws: ``ImageLoadingError/malformedDataURL``.
    static func decode(_ string: String) throws -> (String, Data) {
        guard string.lowercased().hasPrefix("data:"), let comma = string.firstIndex(of: ",") else {
            throw ImageLoadingError.malformedDataURL
        }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let body = String(string[string.index(after: comma)...])
        let parts = header.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let isBase64 = parts.last?.lowercased() == "base64"
        let type = parts.first.flatMap { $0.isEmpty ? nil : $0 } ?? "text/plain"
        if isBase64 {
            guard let unescaped = percentDecoded(body) else { throw ImageLoadingError.malformedDataURL }
            let cleaned = String(decoding: unescaped, as: UTF8.self).filter { !$0.isWhitespace }
            var padded = cleaned
            while padded.count % 4 != 0 { padded += "=" }
            guard let data = Data(base64Encoded: padded) else { throw ImageLoadingError.malformedDataURL }
            return (type, data)
        }
        guard let bytes = percentDecoded(body) else { throw ImageLoadingError.malformedDataURL }
        return (type, Data(bytes))
    }

    /// `%XX` escapes turned into bytes; `nil` for a broken escape.
    static func percentDecoded(_ text: String) -> [UInt8]? { PercentDecoding.bytes(text) }
}
