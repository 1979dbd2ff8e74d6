#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCore
public import ImagoCoders

/// How urgent a download is. Queued transfers start highest priority first.
public enum ImageDownloadPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Prefetching and other background work.
    case low
    /// The default.
    case normal
    /// Goes to the front of the queue.
    case high

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// A copy already held (in the disk cache) for a conditional request: sent as `If-None-Match`
/// and `If-Modified-Since`; a 304 answer returns these bytes.
public struct CachedResponse: Sendable, Hashable {
    /// The cached bytes.
    public var data: Data
    /// The `ETag` stored with them.
    public var etag: String?
    /// The `Last-Modified` stored with them.
    public var lastModified: String?

    /// Creates a cached response.
    public init(data: Data, etag: String?, lastModified: String?) {
        self.data = data
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// One caller's download: the URL and everything that may differ between callers sharing it.
public struct ImageDownloadRequest: Sendable {
    /// The URL: `http`, `https`, `file` or `data`.
    public var url: URL
    /// Queue priority. Default `.normal`.
    public var priority: ImageDownloadPriority
    /// Headers added to the downloader's for this request. Default none.
    public var headers: [String: String]
    /// HTTP basic credentials. Default `nil`.
    public var credentials: DataLoadRequest.Credentials?
    /// Overrides the downloader's timeouts. Default `nil`.
    public var timeouts: ImageDownloadTimeouts?
    /// Decode the bytes with these options; `nil` (the default) returns the data only.
    public var decodeOptions: DecodeOptions?
    /// Deliver partial images while bytes arrive (needs ``decodeOptions``). Default `false`.
    public var progressive: Bool
    /// Decode the final image with ``decodeOptions``. Default `true`; `false` returns the data
    /// only, with ``decodeOptions`` serving the partial images (a caller that decodes itself).
    public var decodesResult: Bool = true
    /// Accept any TLS certificate. Default `false`.
    public var allowsInvalidCertificates: Bool
    /// A cached copy to revalidate with a conditional request. Default `nil`.
    public var cachedResponse: CachedResponse?

    /// Creates a request; every parameter defaults as documented on its property.
    public init(url: URL, priority: ImageDownloadPriority = .normal, headers: [String: String] = [:],
                credentials: DataLoadRequest.Credentials? = nil, timeouts: ImageDownloadTimeouts? = nil,
                decodeOptions: DecodeOptions? = nil, progressive: Bool = false, allowsInvalidCertificates: Bool = false,
                cachedResponse: CachedResponse? = nil) {
        self.url = url
        self.priority = priority
        self.headers = headers
        self.credentials = credentials
        self.timeouts = timeouts
        self.decodeOptions = decodeOptions
        self.progressive = progressive
        self.allowsInvalidCertificates = allowsInvalidCertificates
        self.cachedResponse = cachedResponse
    }
}

/// Bytes received so far, and how many were announced.
public struct ImageDownloadProgress: Sendable, Hashable {
    /// Bytes received.
    public var receivedBytes: Int
    /// The `Content-Length`, when the server sent one.
    public var expectedBytes: Int?

    /// Creates a progress value.
    public init(receivedBytes: Int, expectedBytes: Int?) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
    }

    /// Received over expected, 0…1, or `nil` without an expected size.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}

/// A finished download.
public struct ImageDownloadResult: Sendable {
    /// The URL asked for.
    public var url: URL
    /// The body (after the downloader's body transform), or the cached bytes on a 304.
    public var data: Data
    /// The image decoded with the request's ``ImageDownloadRequest/decodeOptions``, or `nil`.
    public var image: Image?
    /// The response head, `nil` only for a loader that gives none.
    public var response: DataLoadResponse?
    /// Whether the server answered 304 and ``data`` is the cached copy.
    public var notModified: Bool
}

/// What one caller sees of a download, in order: progress and partial images, then the result.
public enum ImageDownloadEvent: Sendable {
    /// More bytes arrived (throttled to the downloader's progress interval; the last one always comes).
    case progress(ImageDownloadProgress)
    /// A partial image from the bytes so far (progressive requests only; never cached).
    case partialImage(Image)
    /// The download finished.
    case completed(ImageDownloadResult)
}

/// What any observer of a downloader sees (SDWebImage's download notifications).
public enum ImageDownloaderEvent: Sendable {
    /// A transfer started (one per URL however many callers share it).
    case started(URL)
    /// The response head arrived.
    case receivedResponse(URL, statusCode: Int)
    /// Bytes arrived (throttled).
    case progress(URL, ImageDownloadProgress)
    /// The transfer finished with this many bytes.
    case finished(URL, bytes: Int)
    /// The transfer failed.
    case failed(URL, ImageLoadingError)
}
