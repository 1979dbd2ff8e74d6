// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The head of a response.
public struct DataLoadResponse: Sendable, Hashable {
    /// The URL the bytes came from, after redirects.
    public var url: URL
    /// The HTTP status (200 for `file` and `data` URLs).
    public var statusCode: Int
    /// Header fields, names lowercased.
    public var headers: [String: String]
    /// Every URL fetched on the way (the redirects, then ``url``) with the kind of address each
    /// was fetched from (`nil` when no ``SourceGuard`` checked it), so that bytes kept in a cache
    /// can be held to the policy in force when they are used again. Empty for `file` and `data`.
    public var route: [Hop] = []

    /// One URL of a ``route``.
    public struct Hop: Sendable, Hashable {
        /// The URL fetched.
        public var url: URL
        /// The kind of address it was fetched from, when a guard checked it.
        public var addressKind: IPAddress.Kind?

        /// Creates a hop.
        public init(url: URL, addressKind: IPAddress.Kind?) {
            self.url = url
            self.addressKind = addressKind
        }
    }

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

extension DataLoadResponse.Hop {
    /// A route as one line per hop, `kind url` (`-` for no kind): how a disk-cache entry keeps it.
    static func encode(_ route: [DataLoadResponse.Hop]) -> String {
        route.map { "\($0.addressKind?.rawValue ?? "-") \($0.url.absoluteString)" }.joined(separator: "\n")
    }

    /// The route of ``encode(_:)``'s text; `nil` when it does not read.
    static func decode(_ text: String) -> [DataLoadResponse.Hop]? {
        var hops: [DataLoadResponse.Hop] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let url = URL(string: String(parts[1])) else { return nil }
            let kind = parts[0] == "-" ? nil : IPAddress.Kind(rawValue: String(parts[0]))
            guard parts[0] == "-" || kind != nil else { return nil }
            hops.append(DataLoadResponse.Hop(url: url, addressKind: kind))
        }
        return hops
    }
}
