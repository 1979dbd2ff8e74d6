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

    /// Creates an error.
    public init(status: Int, code: String, message: String, retryAfter: Int? = nil) {
        self.status = HTTPResponse.Status(code: status)
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// Every `error` code the service answers with, and its status (imgproxy's where imgproxy
    /// has the case): the README's status table, which a test holds to this list.
    /// `source_error` also carries an origin's own 4xx.
    public static let statuses: [String: Int] = [
        "invalid_url": 404, "unknown_option": 404, "forbidden_option": 404, "expired": 404, "invalid_source": 404,
        "security_option_not_allowed": 403, "invalid_signature": 403, "signature_missing": 403, "invalid_secret": 403,
        "watermark_url_unsigned": 403,
        "source_not_allowed": 404, "source_unreachable": 404, "source_not_found": 404, "source_error": 502,
        "source_timeout": 504, "source_incomplete": 422, "source_too_large": 422, "unprocessable_image": 422,
        "unsupported_format": 422, "limit_exceeded": 422, "hashsum_mismatch": 422,
        "queue_full": 429, "timeout": 503, "watermark_unavailable": 503, "client_closed_request": 499,
        "not_found": 404, "method_not_allowed": 405, "internal": 500, "source_unreadable": 500
    ]

    /// Where the request failed, for logs and metrics: `url` (the path, its options or
    /// signature), `auth`, `source` (finding or fetching the source), `image` (the source as an
    /// image, its limits, the output), `watermark`, `admission` (the queue), `deadline`, `client`,
    /// `service`.
    public var stage: String {
        switch code {
        case "invalid_url", "unknown_option", "forbidden_option", "expired", "security_option_not_allowed", "invalid_signature", "signature_missing",
            "watermark_url_unsigned":
            "url"
        case "invalid_secret": "auth"
        case "queue_full": "admission"
        case "timeout": "deadline"
        case "watermark_unavailable": "watermark"
        case "client_closed_request": "client"
        case "not_found", "method_not_allowed", "internal": "service"
        case let c where c.hasPrefix("source_") || c == "invalid_source": "source"
        default: "image"
        }
    }

    // MARK: The status table

    /// A URL the parser refused: imgproxy answers 404 for every such URL.
    static func badRequest(_ message: String) -> ServiceError { ServiceError(status: 404, code: "invalid_url", message: message) }
    static let invalidSignature = ServiceError(status: 403, code: "invalid_signature", message: "invalid or missing signature")
    static let invalidSecret = ServiceError(status: 403, code: "invalid_secret", message: "invalid or missing authorization")
    /// A source outside `IMAGO_ALLOWED_SOURCES` or at a refused address: 404, as imgproxy's.
    static let sourceNotAllowed = ServiceError(status: 404, code: "source_not_allowed", message: "the source is not allowed")
    static func unprocessable(_ message: String) -> ServiceError { ServiceError(status: 422, code: "unprocessable_image", message: message) }
    static let queueFull = ServiceError(
        status: 429, code: "queue_full", message: "too many requests are waiting; try again shortly",
        retryAfter: 1)
    static let requestTimeout = ServiceError(status: 503, code: "timeout", message: "the request took too long", retryAfter: 1)
    /// The client went away before the answer: nginx's 499, seen only in logs and metrics.
    static let clientClosedRequest = ServiceError(status: 499, code: "client_closed_request", message: "the client closed the connection")
    static let notFound = ServiceError(status: 404, code: "not_found", message: "no such endpoint")

    /// The status for a URL the parser refused.
    init(_ error: ServiceURLError) {
        switch error {
        case .invalidSignature: self = .invalidSignature
        case .expired: self.init(status: 404, code: "expired", message: error.description)
        case .unknownOption: self.init(status: 404, code: "unknown_option", message: error.description)
        case .forbiddenOption: self.init(status: 404, code: "forbidden_option", message: error.description)
        case .securityOptionNotAllowed: self.init(status: 403, code: "security_option_not_allowed", message: error.description)
        default: self = .badRequest(error.description)
        }
    }

    /// The status for a failed load of the source or a failed decode, transform or encode.
    init(_ error: ImageLoadingError) {
        switch error {
        case .invalidURL, .unsupportedScheme:
            self.init(status: 404, code: "invalid_source", message: "the source URL cannot be fetched: \(error)")
        case .sourceNotAllowed, .addressNotAllowed:
            self = .sourceNotAllowed
        case .unacceptableStatusCode(let code) where (400..<500).contains(code):
            self.init(status: code, code: code == 404 ? "source_not_found" : "source_error", message: "the source answered \(code)")
        case .unacceptableStatusCode(let code) where code >= 500:
            self.init(status: 502, code: "source_error", message: "the source answered \(code)")
        case .unacceptableStatusCode(let code):
            // Neither an image nor an error: imgproxy's "source is unreachable".
            self.init(status: 404, code: "source_unreachable", message: "the source answered \(code)")
        case .timedOut:
            self.init(status: 504, code: "source_timeout", message: "the source took too long to answer")
        case .connectionFailed, .invalidResponse, .tooManyRedirects, .redirectLoop:
            // imgproxy answers 404 when the origin cannot be reached at all (no such host, refused).
            self.init(status: 404, code: "source_unreachable", message: "the source could not be fetched (\(Self.sourceReason(error)))")
        case .truncatedBody, .invalidContentEncoding:
            self.init(status: 422, code: "source_incomplete", message: "the source could not be read (\(Self.sourceReason(error)))")
        case .notModifiedWithoutCachedData:
            self.init(status: 502, code: "source_error", message: "the source could not be fetched (\(Self.sourceReason(error)))")
        case .bodyTooLarge(let limit, _):
            self.init(status: 422, code: "source_too_large", message: "the source is larger than \(limit) bytes")
        case .decompressionLimit:
            self.init(status: 422, code: "source_too_large", message: "the source's compressed body expands too far")
        case .unacceptableContentType, .emptyBody, .malformedDataURL:
            self = .unprocessable("the source is not an image")
        case .fileUnreadable:
            self.init(status: 404, code: "source_not_found", message: "the local source cannot be read")
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
            self.init(status: 502, code: "source_error", message: "the source could not be fetched")
        }
    }

    /// The status for a decoding or encoding failure: always 422.
    init(_ error: ImageCodingError) {
        switch error {
        case .exceedsLimit:
            self.init(status: 422, code: "limit_exceeded", message: error.description)
        case .unsupportedFormat, .encoderUnavailable, .unsupportedFeature:
            self.init(status: 422, code: "unsupported_format", message: error.description)
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
