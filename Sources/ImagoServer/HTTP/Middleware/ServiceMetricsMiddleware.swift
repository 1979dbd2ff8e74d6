// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
public import Hummingbird

/// Counts requests in ``ServiceMetrics``: in progress, answered by status, and their durations.
public struct ServiceMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where the counts go (the service's ``ImageService/metrics``).
    public let metrics: ServiceMetrics

    /// Creates the middleware counting into `metrics`.
    public init(metrics: ServiceMetrics) {
        self.metrics = metrics
    }

    /// Counts the request in, and out with its status and duration once its body is written
    /// (a file streamed from the cache counts its writing; a body that fails half-way counts as
    /// answered with the status it was sent with).
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        metrics.requestStarted()
        do {
            var response = try await next(request, context)
            let (metrics, status, body) = (metrics, response.status.code, response.body)
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { metrics.requestFinished(status: status, duration: ContinuousClock.now - started) }
                try await body.write(writer)
            }
            return response
        } catch {
            metrics.requestFinished(status: (error as? any HTTPResponseError)?.status.code ?? 500, duration: ContinuousClock.now - started)
            throw error
        }
    }
}
