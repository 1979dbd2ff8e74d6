// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
public import Hummingbird
import Logging
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``ServiceError`` thrown in a Hummingbird handler answers itself: its status, the JSON body
/// `{"error", "message", "requestId"}` (the id from ``ServiceRequestScope``) and
/// `Cache-Control: no-store`, with `Retry-After` for 429 and 503.
extension ServiceError: HTTPResponseError {
    /// The error's response, for Hummingbird.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        hummingbirdResponse(requestID: ServiceRequestScope.current?.id ?? "")
    }

    /// The JSON error response, as Hummingbird sends it.
    func hummingbirdResponse(requestID: String) -> Response {
        let answer = response(requestID: requestID)
        guard case .bytes(let body) = answer.body else { return Response(status: answer.status, headers: answer.headers) }
        return Response(status: answer.status, headers: answer.headers, body: ResponseBody(byteBuffer: body))
    }

    /// The JSON error response, never cached.
    func response(requestID: String) -> ServiceResponse {
        let body =
            (try? JSONEncoder().encode(ErrorBody(error: code, message: message, requestId: requestID)))
            ?? Data("{\"error\":\"internal\"}".utf8)
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        if let after = retryAfter { fields[.retryAfter] = String(after) }
        return ServiceResponse(status: status, headers: fields, body: .bytes(ByteBuffer(bytes: body)))
    }

    /// What any error met while answering becomes: itself for a ``ServiceError``, 499 for a
    /// cancelled request (the client went away), else a 500 logged with the request id.
    init(answering error: any Error, logger: Logger, requestID: String) {
        switch error {
        case let e as ServiceError: self = e
        case _ where Task.isCancelled || error is CancellationError: self = .clientClosedRequest
        default:
            logger.error("unexpected error", metadata: ["request_id": "\(requestID)", "error": "\(error)"])
            self = ServiceError(.internal, "internal error")
        }
    }
}

struct ErrorBody: Encodable {
    var error: String
    var message: String
    var requestId: String
}
