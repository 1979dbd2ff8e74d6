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

    /// The media type (default `text/plain`) and bytes of a `data:` URL string.
    ///
    /// - Throws: ``ImageLoadingError/malformedDataURL``.
    static func decode(_ string: String) throws -> (String, Data) {
        guard let url = DataURL(string) else { throw ImageLoadingError.malformedDataURL }
        return (url.mediaType.isEmpty ? "text/plain" : url.mediaType, Data(url.payload))
    }

    /// `%XX` escapes turned into bytes; `nil` for a broken escape.
    static func percentDecoded(_ text: String) -> [UInt8]? { PercentEscapes.bytes(text) }
}
