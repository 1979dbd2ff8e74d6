// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCache
public import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a download or a load failed. Each case names its cause; ``isTransient`` tells a failure
/// worth retrying (a timeout, a dropped connection) from one that will happen again.
public enum ImageLoadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which timeout fired.
    public enum Timeout: String, Sendable, Hashable {
        /// No response head in time (connecting, TLS and the server's first byte).
        case connect
        /// No new body bytes in time.
        case read
        /// The whole transfer took too long.
        case total
    }

    /// The URL could not be parsed or has no host.
    case invalidURL(String)
    /// No loader handles this URL's scheme.
    case unsupportedScheme(String)
    /// The server answered with a status code outside the acceptable ones.
    case unacceptableStatusCode(Int)
    /// The response's content type is not one of the acceptable ones (`nil`: none was sent).
    case unacceptableContentType(String?)
    /// The body is larger than allowed: declared up front (`declared`) or counted while streaming.
    case bodyTooLarge(limit: Int, declared: Int?)
    /// The body's `Content-Encoding` (gzip, deflate) expanded more than `ratio` times its
    /// compressed size: a decompression bomb, stopped before it could fill memory.
    case decompressionLimit(ratio: Int)
    /// The body's `Content-Encoding` does not decode (it is not the gzip or deflate it claims).
    case invalidContentEncoding(String)
    /// The server's reply is not valid HTTP.
    case invalidResponse(String)
    /// The body ended before the declared `Content-Length`.
    case truncatedBody(received: Int, expected: Int)
    /// The body was empty.
    case emptyBody
    /// A timeout fired.
    case timedOut(Timeout)
    /// More redirects than allowed, or a redirect back to a URL already visited.
    case tooManyRedirects(limit: Int)
    /// A redirect loop: the URL was already visited.
    case redirectLoop(String)
    /// The connection failed: refused, reset, closed early, DNS, TLS. `transient` is set when
    /// trying again may work.
    case connectionFailed(String, transient: Bool)
    /// A 304 Not Modified arrived, but there was no cached copy to answer with.
    case notModifiedWithoutCachedData
    /// ``ImageRequest/Options/fromCacheOnly`` was set and nothing was cached.
    case notCached
    /// The URL failed before and is in the failed-URL list (use ``ImageRequest/Options/retryFailed``).
    case blockedFailedURL(String)
    /// A `file://` URL could not be read.
    case fileUnreadable(String)
    /// A `data:` URL is malformed.
    case malformedDataURL
    /// The bytes arrived but do not decode; the coding error names the format found and the cause.
    case decodingFailed(ImageCodingError)
    /// The finished image could not be encoded as the request's output asks (no encoder for the
    /// format, or the encoder failed).
    case encodingFailed(ImageCodingError)
    /// A transformer (its `ImageTransforming.key`) failed on the decoded image, with the error it
    /// threw (a transformer's own error type is described as `ImageCodingError.invalidArgument(_:)`).
    case processingFailed(transformer: String, underlying: ImageCodingError)
    /// The disk cache failed where the load needed it (``ImageRequest/Options/fromCacheOnly``
    /// with an unreadable cache, a cached file that cannot be read). Elsewhere a failing cache is
    /// skipped and logged, never fatal.
    case cacheFailed(DiskCacheError)
    /// The URL (the first, or a redirect's target) is not on the loader's allow-list (``SourceGuard``).
    case sourceNotAllowed(String)
    /// The host resolves only to addresses the ``AddressPolicy`` refuses: loopback, private,
    /// link-local and the like, the targets of server-side request forgery.
    case addressNotAllowed(host: String, kind: IPAddress.Kind)
    /// A request or response modifier refused, or a body transform failed.
    case rejected(String)
    /// The caller cancelled (or every caller of a shared transfer did).
    case cancelled
    /// An error of none of the kinds above, from outside Imago's own types (an app's own loader,
    /// say), described. Not known to be worth retrying.
    case unexpected(String)

    /// Whether trying again later may succeed: timeouts, dropped or refused connections,
    /// cancellation, and server errors (5xx, 408, 429). SDWebImage's rule for the failed-URL
    /// list: a transient failure does not block the URL.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .cancelled: true
        case .connectionFailed(_, let transient): transient
        case .unacceptableStatusCode(let code): code >= 500 || code == 408 || code == 429
        case .truncatedBody: true
        default: false
        }
    }

    /// The error's message, in one line.
    public var description: String {
        switch self {
        case .invalidURL(let u): "invalid URL: \(u)"
        case .unsupportedScheme(let s): "no loader for URL scheme '\(s)'"
        case .unacceptableStatusCode(let c): "unacceptable HTTP status \(c)"
        case .unacceptableContentType(let t?): "unacceptable content type '\(t)'"
        case .unacceptableContentType(nil): "the response has no content type"
        case .bodyTooLarge(let limit, let declared?): "the body declares \(declared) bytes, over the limit of \(limit)"
        case .bodyTooLarge(let limit, nil): "the body passed the limit of \(limit) bytes"
        case .decompressionLimit(let ratio): "the compressed body expands more than \(ratio) times (a decompression bomb)"
        case .invalidContentEncoding(let m): "the body's content encoding does not decode: \(m)"
        case .invalidResponse(let m): "the reply is not valid HTTP: \(m)"
        case .truncatedBody(let r, let e): "the body ended after \(r) of \(e) declared bytes"
        case .emptyBody: "the body is empty"
        case .timedOut(let t): "the \(t.rawValue) timeout fired"
        case .tooManyRedirects(let n): "more than \(n) redirects"
        case .redirectLoop(let u): "redirect loop back to \(u)"
        case .connectionFailed(let m, _): "connection failed: \(m)"
        case .notModifiedWithoutCachedData: "304 Not Modified without a cached copy"
        case .notCached: "not in the cache, and loading from the network was not allowed"
        case .blockedFailedURL(let u): "\(u) failed before and is in the failed-URL list"
        case .fileUnreadable(let m): "file unreadable: \(m)"
        case .malformedDataURL: "malformed data: URL"
        case .decodingFailed(let e): "the data does not decode: \(e)"
        case .encodingFailed(let e): "the image cannot be encoded: \(e)"
        case .processingFailed(let t, let underlying): "the transformer \(t) failed: \(underlying)"
        case .cacheFailed(let e): "the disk cache failed: \(e)"
        case .sourceNotAllowed(let u): "\(u) is not an allowed source"
        case .addressNotAllowed(let host, let kind): "\(host) resolves to a \(kind.rawValue) address, which sources may not use"
        case .rejected(let m): "rejected: \(m)"
        case .cancelled: "cancelled"
        case .unexpected(let m): "unexpected failure: \(m)"
        }
    }

    /// The one mapping from any error met while loading to this type, applied where errors leave
    /// a stage: transport errors become the case that names them, coding errors
    /// ``decodingFailed(_:)``, disk-cache errors ``cacheFailed(_:)``, cancellation ``cancelled``,
    /// and anything else ``unexpected(_:)``.
    package init(_ error: any Error) {
        switch error {
        case let e as ImageLoadingError: self = e
        case is CancellationError: self = .cancelled
        case let e as ImageCodingError: self = .decodingFailed(e)
        case let e as DiskCacheError: self = .cacheFailed(e)
        default: self = HTTPDataLoader.map(error) as? ImageLoadingError ?? .unexpected(String(describing: error))
        }
    }
}
