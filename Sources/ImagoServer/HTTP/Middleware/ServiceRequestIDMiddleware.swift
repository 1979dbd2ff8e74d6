// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
public import Hummingbird
public import Logging

/// The outermost of the service's middleware: gives the request its id (the client's
/// `X-Request-ID` when usable, else Hummingbird's id for it, which its own log lines carry as
/// `hb.request.id`) through ``ServiceRequestScope``, turns every error thrown inside into its
/// response (``ServiceError``'s status and JSON body; anything else a 500, logged), and marks every answer with `X-Request-ID`, `X-Content-Type-Options: nosniff`,
/// imgproxy's `Content-Security-Policy` and, with an allowed origin, CORS headers.
public struct ServiceRequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where unexpected errors are logged.
    public let logger: Logger
    /// `Access-Control-Allow-Origin` for every answer (`IMAGO_ALLOW_ORIGIN`), with
    /// `Access-Control-Allow-Methods: GET, OPTIONS`; `nil` sends neither.
    public let allowOrigin: String?

    /// Creates the middleware; unexpected errors go to `logger`; `allowOrigin` defaults to none.
    public init(logger: Logger, allowOrigin: String? = nil) {
        self.logger = logger
        self.allowOrigin = allowOrigin
    }

    /// The logger metadata under which Hummingbird keeps its id for a request.
    static var contextIDKey: String { "hb.request.id" }

    /// Binds the scope, answers errors, adds the headers.
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let scope = ServiceRequestScope(
            requestID: request.headers[.xRequestID], contextID: context.logger[metadataKey: Self.contextIDKey]?.description)
        var response = await ServiceRequestScope.$current.withValue(scope) { () async -> Response in
            do {
                return try await next(request, context)
            } catch {
                return ServiceError(answering: error, logger: logger, requestID: scope.id).hummingbirdResponse(requestID: scope.id)
            }
        }
        response.headers[.xRequestID] = scope.id
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.contentSecurityPolicy] = ServiceHeaders.contentSecurityPolicy
        if let allowOrigin { ServiceHeaders.addCORS(&response.headers, origin: allowOrigin) }
        return response
    }
}
