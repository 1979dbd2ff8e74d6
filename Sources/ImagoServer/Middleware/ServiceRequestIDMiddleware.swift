// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import Hummingbird
import HTTPTypes
public import Logging

/// The outermost of the service's middleware: gives the request its id (the client's
/// `X-Request-ID` when usable, else a new one) through ``ServiceRequestScope``, turns every error
/// thrown inside into its response (``ServiceError``'s status and JSON body; anything else a 500,
/// logged), and marks every answer with `X-Request-ID` and `X-Content-Type-Options: nosniff`.
public struct ServiceRequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where unexpected errors are logged.
    public let logger: Logger

    /// Creates the middleware; unexpected errors go to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Binds the scope, answers errors, adds the headers.
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let scope = ServiceRequestScope(requestID: request.headers[.xRequestID])
        var response = await ServiceRequestScope.$current.withValue(scope) { () async -> Response in
            do {
                return try await next(request, context)
            } catch {
                return ServiceError(answering: error, logger: logger, requestID: scope.id).hummingbirdResponse(requestID: scope.id)
            }
        }
        response.headers[.xRequestID] = scope.id
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}
