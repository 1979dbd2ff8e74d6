// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One caller's download: the URL and everything that may differ between callers sharing it.
public struct ImageDownloadRequest: Sendable {
    /// The URL: `http`, `https`, `file` or `data`.
    public var url: URL
    /// Queue priority. Default `.normal`.
    public var priority: ImagePriority
    /// Headers added to the downloader's for this request. Default none.
    public var headers: [String: String]
    /// HTTP basic credentials. Default `nil`.
    public var credentials: DataLoadRequest.Credentials?
    /// Overrides the downloader's timeouts. Default `nil`.
    public var timeouts: ImageDownloadTimeouts?
    /// Deliver the bytes so far while they arrive (`ImageDownloadEvent/partialData(_:)`), for a
    /// progressive decoder. Default `false`.
    public var progressive: Bool
    /// Accept any TLS certificate. Default `false`.
    public var allowsInvalidCertificates: Bool
    /// A cached copy to revalidate with a conditional request. Default `nil`.
    public var cachedResponse: CachedResponse?
    /// URLs tried in order when ``url`` fails (each with its own retries): mirrors, a CDN's
    /// origin, a lower resolution (Kingfisher's alternative sources). The result's
    /// ``ImageDownloadResult/url`` says which answered. Default none.
    public var alternativeURLs: [URL] = []
    /// Overrides the downloader's ``ImageDownloaderConfiguration/retryPolicy``. Default `nil`.
    public var retryPolicy: ImageDownloadRetryPolicy?

    /// Creates a request; every parameter defaults as documented on its property.
    public init(
        url: URL, priority: ImagePriority = .normal, headers: [String: String] = [:],
        credentials: DataLoadRequest.Credentials? = nil, timeouts: ImageDownloadTimeouts? = nil,
        progressive: Bool = false, allowsInvalidCertificates: Bool = false, cachedResponse: CachedResponse? = nil
    ) {
        self.url = url
        self.priority = priority
        self.headers = headers
        self.credentials = credentials
        self.timeouts = timeouts
        self.progressive = progressive
        self.allowsInvalidCertificates = allowsInvalidCertificates
        self.cachedResponse = cachedResponse
    }
}
