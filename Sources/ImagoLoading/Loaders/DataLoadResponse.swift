// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import ImagoCore

/// The head of a response.
public struct DataLoadResponse: Sendable, Hashable {
    /// The URL the bytes came from, after redirects.
    public var url: URL
    /// The HTTP status (200 for `file` and `data` URLs).
    public var statusCode: Int
    /// Header fields, names lowercased.
    public var headers: [String: String]

    /// Creates a response head.
    public init(url: URL, statusCode: Int, headers: [String: String] = [:]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// The declared `Content-Length`, when there is a valid one.
    public var expectedContentLength: Int? { headers["content-length"].flatMap { Int(PathName.trimmed($0)) } }

    /// The media type of `Content-Type`, lowercased, without parameters.
    public var mimeType: String? {
        headers["content-type"].map { $0.split(separator: ";").first.map { PathName.trimmed($0).lowercased() } ?? "" }
    }

    /// The `ETag` validator.
    public var etag: String? { headers["etag"] }
    /// The `Last-Modified` validator.
    public var lastModified: String? { headers["last-modified"] }
}
