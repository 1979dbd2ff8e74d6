// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Which queued transfer starts next among those of equal priority.
public typealias ImageDownloadExecutionOrder = QueueOrder

/// Everything an ``ImageDownloader`` does the same for every request.
public struct ImageDownloaderConfiguration: Sendable {
    /// Transfers running at once. Default 6.
    public var maxConcurrentDownloads: Int
    /// Order among queued transfers of equal priority. Default `.fifo`.
    public var executionOrder: ImageDownloadExecutionOrder
    /// Timeouts, unless a request overrides them. Default 15 s each.
    public var timeouts: ImageDownloadTimeouts
    /// Headers sent with every request. Default: `Accept` listing the formats Imago decodes and
    /// a `User-Agent` naming Imago.
    public var headers: [String: String]
    /// Status codes that count as success. Default 200..<300 (304 is handled on its own).
    public var acceptableStatusCodes: Set<Int>
    /// Media types that count as success (`image/png`, …), or `nil` (the default) for any.
    public var acceptableContentTypes: Set<String>?
    /// Most redirects to follow. Default 10.
    public var maxRedirects: Int
    /// Largest body accepted: a larger `Content-Length` is refused before reading, and a body
    /// passing it is aborted. Default 256 MiB (the decoding limit on encoded bytes).
    public var maxBodyBytes: Int
    /// Least time between two progress events to one caller. Default 100 ms.
    public var progressInterval: Duration
    /// Changes each request before it is sent (an auth token fetched asynchronously, say), or
    /// throws to refuse it. Default `nil`.
    public var requestModifier: (@Sendable (DataLoadRequest) async throws -> DataLoadRequest)?
    /// Checks or changes each response head, or throws to refuse it. Default `nil`.
    public var responseModifier: (@Sendable (DataLoadResponse) throws -> DataLoadResponse)?
    /// Turns the body into the image bytes (SDWebImage's decryptor), before decoding and caching.
    /// Default `nil`.
    public var bodyTransform: (@Sendable (Data, DataLoadResponse?) throws -> Data)?
    /// When failed transfers are tried again. Default ``ImageDownloadRetryPolicy/none``.
    public var retryPolicy: ImageDownloadRetryPolicy = .none
    /// Bytes of interrupted transfers kept to resume them (`Range` with `If-Range`) on a retry or
    /// the next request for the URL, when the server allows; 0 keeps none. Default 32 MiB.
    public var resumableDataLimit: Int = 32 << 20
    /// The proxies of the default HTTP loader. Default ``ProxySettings/none``; set
    /// ``ProxySettings/environment(_:)`` to follow `http_proxy`, `https_proxy` and `no_proxy`.
    public var proxies: ProxySettings = .none

    /// The default `Accept` value: the formats Imago decodes, then any image.
    public static let defaultAccept =
        "image/avif,image/webp,image/apng,image/png,image/jpeg,image/gif,image/heic,image/tiff,image/bmp,image/jp2,image/*;q=0.8,*/*;q=0.5"

    /// The default `User-Agent` value.
    public static let defaultUserAgent = "Imago/0.1 (Swift; Linux)"

    /// Creates a configuration; every parameter defaults as documented on its property.
    public init(
        maxConcurrentDownloads: Int = 6, executionOrder: ImageDownloadExecutionOrder = .fifo,
        timeouts: ImageDownloadTimeouts = ImageDownloadTimeouts(),
        headers: [String: String] = ["Accept": defaultAccept, "User-Agent": defaultUserAgent],
        acceptableStatusCodes: Set<Int> = Set(200..<300), acceptableContentTypes: Set<String>? = nil,
        maxRedirects: Int = 10, maxBodyBytes: Int = DecodingLimits.default.maxBytes,
        progressInterval: Duration = .milliseconds(100),
        requestModifier: (@Sendable (DataLoadRequest) async throws -> DataLoadRequest)? = nil,
        responseModifier: (@Sendable (DataLoadResponse) throws -> DataLoadResponse)? = nil,
        bodyTransform: (@Sendable (Data, DataLoadResponse?) throws -> Data)? = nil
    ) {
        self.maxConcurrentDownloads = max(1, maxConcurrentDownloads)
        self.executionOrder = executionOrder
        self.timeouts = timeouts
        self.headers = headers
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        self.maxRedirects = maxRedirects
        self.maxBodyBytes = maxBodyBytes
        self.progressInterval = progressInterval
        self.requestModifier = requestModifier
        self.responseModifier = responseModifier
        self.bodyTransform = bodyTransform
    }
}
