#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import ImagoCore

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
    public init(url: URL, headers: [String: String] = [:], credentials: Credentials? = nil,
                timeouts: ImageDownloadTimeouts = ImageDownloadTimeouts(), maxRedirects: Int = 10,
                allowsInvalidCertificates: Bool = false) {
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

/// The timeouts of a download. SDWebImage's `downloadTimeout` is the idle one.
public struct ImageDownloadTimeouts: Sendable, Hashable {
    /// Until the response head arrives: connecting, TLS and the server's first byte. Default 15 s.
    public var connect: Duration
    /// Longest gap between body bytes. Default 15 s.
    public var read: Duration
    /// The whole transfer, head and body. Default 15 s; `nil` means no limit. Raise it for
    /// large images on slow links: the read timeout alone already catches a stalled transfer.
    public var total: Duration?

    /// Creates timeouts; each defaults to 15 s, as SDWebImage's download timeout.
    public init(connect: Duration = .seconds(15), read: Duration = .seconds(15), total: Duration? = .seconds(15)) {
        self.connect = connect
        self.read = read
        self.total = total
    }
}

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

/// Fetches bytes for a URL: the transport under ``ImageDownloader``. Imago has one for
/// `http`/`https` (AsyncHTTPClient), one for `file` and one for `data`; a custom loader (an
/// object store, a test double) plugs in the same way.
public protocol DataLoading: Sendable {
    /// Whether this loader handles `url` (by scheme).
    func canLoad(_ url: URL) -> Bool

    /// Loads `request`: calls `response` once with the final response head (after redirects),
    /// then `chunk` with each piece of the body in order, and returns when the body is complete.
    /// Either callback may throw to stop the transfer; the error is rethrown. Cancelling the
    /// calling task stops the transfer.
    ///
    /// - Throws: ``ImageLoadingError`` for transport failures; the callbacks' errors.
    func load(_ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void,
              chunk: (Data) throws -> Void) async throws
}
