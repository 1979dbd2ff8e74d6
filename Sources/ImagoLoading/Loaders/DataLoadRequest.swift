// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One request for bytes: the URL, its headers, and how long to wait.
public struct DataLoadRequest: Sendable, Hashable {
    /// HTTP basic credentials.
    public struct Credentials: Sendable, Hashable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// The URL: `http`, `https`, `file` or `data`.
    public var url: URL
    /// Header fields sent with the request (names compared case-insensitively).
    public var headers: [String: String]
    /// HTTP basic credentials, sent as an `Authorization` header. Default `nil`.
    public var credentials: Credentials?
    /// The timeouts. Default 15 s each.
    public var timeouts: ImageDownloadTimeouts
    /// Most redirects to follow. Default 10.
    public var maxRedirects: Int
    /// Accept any TLS certificate (self-signed, expired, wrong host). Default `false`; meant for
    /// development servers only.
    public var allowsInvalidCertificates: Bool

    /// Creates a request; every parameter defaults as documented on its property.
    public init(
        url: URL, headers: [String: String] = [:], credentials: Credentials? = nil,
        timeouts: ImageDownloadTimeouts = ImageDownloadTimeouts(), maxRedirects: Int = 10,
        allowsInvalidCertificates: Bool = false
    ) {
        self.url = url
        self.headers = headers
        self.credentials = credentials
        self.timeouts = timeouts
        self.maxRedirects = maxRedirects
        self.allowsInvalidCertificates = allowsInvalidCertificates
    }

    /// The value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.key.lowercased() == lower }?.value
    }

    /// Sets header `name`, replacing any field of the same name in another case.
    public mutating func setHeader(_ name: String, _ value: String?) {
        let lower = name.lowercased()
        for key in headers.keys where key.lowercased() == lower { headers[key] = nil }
        if let value { headers[name] = value }
    }
}
