// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
public import Hummingbird
public import Logging

/// One access-log line per request, at `info`: method and status, with the request id, the
/// duration, the source's host and the path (its first 300 characters) as metadata. Errors
/// thrown inside are logged with the status they will be answered with.
public struct ServiceAccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where the lines go.
    public let logger: Logger

    /// Creates the middleware writing to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Logs the request once it is answered.
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status.code, since: started)
            return response
        } catch {
            log(request, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: started, failure: error as? ServiceError)
            throw error
        }
    }

    /// One line per request: method and status, the request id, the time taken, the source's
    /// host and the path; for a failure also its code, stage and message (5xx at error level,
    /// the rest at info).
    private func log(_ request: Request, status: Int, since started: ContinuousClock.Instant, failure: ServiceError? = nil) {
        let scope = ServiceRequestScope.current
        let elapsed = ContinuousClock.now - started
        var metadata: Logger.Metadata = [
            "request_id": "\(scope?.id ?? "-")", "status": "\(status)",
            "duration_ms": "\(Int((elapsed / .milliseconds(1)).rounded()))",
            "source_host": "\(scope?.sourceHost ?? "-")", "path": "\(request.uri.path.prefix(300))"
        ]
        if let failure {
            metadata["error"] = "\(failure.code)"
            metadata["stage"] = "\(failure.stage)"
            metadata["message"] = "\(failure.message.prefix(300))"
        }
        logger.log(level: status >= 500 && status != 499 ? .error : .info, "\(request.method.rawValue) \(status)", metadata: metadata)
    }
}
