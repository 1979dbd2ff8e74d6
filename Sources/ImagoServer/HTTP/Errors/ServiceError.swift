// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import HTTPTypes
import ImagoCore
import ImagoLoading
import ImagoServiceURL

/// Why the service refused or failed a request: the HTTP status, a short machine-readable code
/// and a message for people. The JSON error body carries all three (and the request id).
///
/// Every typed error of the layers below maps to one of these, so bad input is never answered
/// with 500. Messages about sources are generic: they never carry the addresses or bodies a
/// source answered with.
public struct ServiceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status (`HTTPResponseError`'s: Hummingbird answers a thrown error with it).
    public var status: HTTPResponse.Status
    /// A short code: `invalid_url`, `invalid_signature`, `source_not_found` and the like.
    public var code: String
    /// What was wrong, for people.
    public var message: String
    /// Seconds for `Retry-After` (429 and 503), or `nil`.
    public var retryAfter: Int?

    /// Every `error` code the service answers with. A code carries its status (imgproxy's where
    /// imgproxy has the case) and its stage: the one place either is decided. The README's status
    /// table lists them, and a test holds it to this list.
    public enum Code: String, Sendable, CaseIterable {
        case invalidURL = "invalid_url", unknownOption = "unknown_option", forbiddenOption = "forbidden_option", expired
        case invalidSource = "invalid_source", securityOptionNotAllowed = "security_option_not_allowed"
        case invalidSignature = "invalid_signature", signatureMissing = "signature_missing", invalidSecret = "invalid_secret"
        case watermarkURLUnsigned = "watermark_url_unsigned", sourceNotAllowed = "source_not_allowed"
        case sourceUnreachable = "source_unreachable", sourceNotFound = "source_not_found", sourceError = "source_error"
        case sourceTimeout = "source_timeout", sourceIncomplete = "source_incomplete", sourceTooLarge = "source_too_large"
        case unprocessableImage = "unprocessable_image", unsupportedFormat = "unsupported_format", limitExceeded = "limit_exceeded"
        case hashsumMismatch = "hashsum_mismatch", queueFull = "queue_full", timeout, watermarkUnavailable = "watermark_unavailable"
        case clientClosedRequest = "client_closed_request", notFound = "not_found", methodNotAllowed = "method_not_allowed"
        case `internal`, sourceUnreadable = "source_unreadable"

        /// The HTTP status an error with this code answers with. `source_error` answers an
        /// origin's own 4xx with that status instead.
        public var status: Int {
            switch self {
            case .invalidURL, .unknownOption, .forbiddenOption, .expired, .invalidSource, .sourceNotAllowed, .sourceUnreachable, .sourceNotFound,
                .notFound:
                404
            case .securityOptionNotAllowed, .invalidSignature, .signatureMissing, .invalidSecret, .watermarkURLUnsigned: 403
            case .sourceError: 502
            case .sourceTimeout: 504
            case .sourceIncomplete, .sourceTooLarge, .unprocessableImage, .unsupportedFormat, .limitExceeded, .hashsumMismatch: 422
            case .queueFull: 429
            case .timeout, .watermarkUnavailable: 503
            case .clientClosedRequest: 499
            case .methodNotAllowed: 405
            case .internal, .sourceUnreadable: 500
            }
        }

        /// Where a request failed, for logs and metrics: `url` (the path, its options or
        /// signature), `auth`, `source` (finding or fetching the source), `image` (the source as
        /// an image, its limits, the output), `watermark`, `admission` (the queue), `deadline`,
        /// `client`, `service`.
        public var stage: String {
            switch self {
            case .invalidURL, .unknownOption, .forbiddenOption, .expired, .securityOptionNotAllowed, .invalidSignature, .signatureMissing,
                .watermarkURLUnsigned:
                "url"
            case .invalidSecret: "auth"
            case .queueFull: "admission"
            case .timeout: "deadline"
            case .watermarkUnavailable: "watermark"
            case .clientClosedRequest: "client"
            case .notFound, .methodNotAllowed, .internal: "service"
            case .invalidSource, .sourceNotAllowed, .sourceUnreachable, .sourceNotFound, .sourceError, .sourceTimeout, .sourceIncomplete,
                .sourceTooLarge, .sourceUnreadable:
                "source"
            case .unprocessableImage, .unsupportedFormat, .limitExceeded, .hashsumMismatch: "image"
            }
        }
    }

    /// An error with `code`'s status.
    ///
    /// - Parameters:
    ///   - code: What went wrong; it decides the status.
    ///   - message: What was wrong, for people.
    ///   - retryAfter: Seconds for `Retry-After` (429 and 503). Default `nil`.
    public init(_ code: Code, _ message: String, retryAfter: Int? = nil) {
        self.init(code, message, status: code.status, retryAfter: retryAfter)
    }

    /// An error with a status of its own: an origin's 4xx passed on as `source_error`.
    private init(_ code: Code, _ message: String, status: Int, retryAfter: Int? = nil) {
        self.status = HTTPResponse.Status(code: status)
        self.code = code.rawValue
        self.message = message
        self.retryAfter = retryAfter
    }

    /// `STATUS code: message`, in one line.
    public var description: String { "\(status.code) \(code): \(message)" }

    /// Every `error` code the service answers with, and its status: ``Code``'s table, by name.
    package static var statuses: [String: Int] {
        Dictionary(uniqueKeysWithValues: Code.allCases.map { ($0.rawValue, $0.status) })
    }

    /// Where the request failed (``Code/stage``), for logs and metrics.
    public var stage: String { Code(rawValue: code)?.stage ?? "service" }

    // MARK: The status table

    /// A URL the parser refused: imgproxy answers 404 for every such URL.
    static func badRequest(_ message: String) -> ServiceError { ServiceError(.invalidURL, message) }
    static let invalidSignature = ServiceError(.invalidSignature, "invalid or missing signature")
    static let invalidSecret = ServiceError(.invalidSecret, "invalid or missing authorization")
    /// A source outside `IMAGO_ALLOWED_SOURCES` or at a refused address: 404, as imgproxy's.
    static let sourceNotAllowed = ServiceError(.sourceNotAllowed, "the source is not allowed")
    static func unprocessable(_ message: String) -> ServiceError { ServiceError(.unprocessableImage, message) }
    /// A source that is not an image at all.
    static let notAnImage = ServiceError.unprocessable("the source is not an image")
    static let queueFull = ServiceError(.queueFull, "too many requests are waiting; try again shortly", retryAfter: 1)
    static let requestTimeout = ServiceError(.timeout, "the request took too long", retryAfter: 1)
    /// The client went away before the answer: nginx's 499, seen only in logs and metrics.
    static let clientClosedRequest = ServiceError(.clientClosedRequest, "the client closed the connection")
    static let notFound = ServiceError(.notFound, "no such endpoint")

    /// The status for a URL the parser refused.
    init(_ error: ServiceURLError) {
        switch error {
        case .invalidSignature: self = .invalidSignature
        case .expired: self.init(.expired, error.description)
        case .unknownOption: self.init(.unknownOption, error.description)
        case .forbiddenOption: self.init(.forbiddenOption, error.description)
        case .securityOptionNotAllowed: self.init(.securityOptionNotAllowed, error.description)
        default: self = .badRequest(error.description)
        }
    }

    /// The status for a failed load of the source or a failed decode, transform or encode.
    init(_ error: ImageLoadingError) {
        switch error {
        case .invalidURL, .unsupportedScheme:
            self.init(.invalidSource, "the source URL cannot be fetched: \(error)")
        case .sourceNotAllowed, .addressNotAllowed:
            self = .sourceNotAllowed
        case .unacceptableStatusCode(let code) where (400..<500).contains(code):
            self.init(code == 404 ? .sourceNotFound : .sourceError, "the source answered \(code)", status: code)
        case .unacceptableStatusCode(let code) where code >= 500:
            self.init(.sourceError, "the source answered \(code)")
        case .unacceptableStatusCode(let code):
            // Neither an image nor an error: imgproxy's "source is unreachable".
            self.init(.sourceUnreachable, "the source answered \(code)")
        case .timedOut:
            self.init(.sourceTimeout, "the source took too long to answer")
        case .connectionFailed, .invalidResponse, .tooManyRedirects, .redirectLoop:
            // imgproxy answers 404 when the origin cannot be reached at all (no such host, refused).
            self.init(.sourceUnreachable, "the source could not be fetched (\(Self.sourceReason(error)))")
        case .truncatedBody, .invalidContentEncoding:
            self.init(.sourceIncomplete, "the source could not be read (\(Self.sourceReason(error)))")
        case .notModifiedWithoutCachedData:
            self.init(.sourceError, "the source could not be fetched (\(Self.sourceReason(error)))")
        case .bodyTooLarge(let limit, _):
            self.init(.sourceTooLarge, "the source is larger than \(limit) bytes")
        case .decompressionLimit:
            self.init(.sourceTooLarge, "the source's compressed body expands too far")
        case .unacceptableContentType, .emptyBody, .malformedDataURL:
            self = .notAnImage
        case .fileUnreadable:
            self.init(.sourceNotFound, "the local source cannot be read")
        case .decodingFailed(let e), .encodingFailed(let e):
            self.init(e)
        case .processingFailed(_, let underlying):
            // A limit reached while processing (a result too large) is the limit's 422.
            if case .exceedsLimit = underlying {
                self.init(underlying)
            } else {
                self = .unprocessable("the image cannot be processed: \(underlying)")
            }
        case .rejected(let reason):
            self = .unprocessable(reason)
        case .cancelled:
            self = .requestTimeout
        case .notCached, .blockedFailedURL, .cacheFailed, .unexpected:
            self.init(.sourceError, "the source could not be fetched")
        }
    }

    /// The status for a decoding or encoding failure: always 422.
    init(_ error: ImageCodingError) {
        switch error {
        case .exceedsLimit:
            self.init(.limitExceeded, error.description)
        case .unsupportedFormat(nil):
            self = .notAnImage
        case .unsupportedFormat, .encoderUnavailable, .unsupportedFeature:
            self.init(.unsupportedFormat, error.description)
        default:
            self = .unprocessable(error.description)
        }
    }

    /// What broke, in words that carry no address.
    private static func sourceReason(_ error: ImageLoadingError) -> String {
        switch error {
        case .connectionFailed: "connection failed"
        case .truncatedBody: "the body ended early"
        case .tooManyRedirects, .redirectLoop: "too many redirects"
        case .invalidContentEncoding: "a body that does not decode"
        default: "an invalid reply"
        }
    }
}
