// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import Hummingbird
import HTTPTypes

/// Counts requests in ``ServiceMetrics``: in progress, answered by status, and their durations.
public struct ServiceMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where the counts go (the service's ``ImageService/metrics``).
    public let metrics: ServiceMetrics

    /// Creates the middleware counting into `metrics`.
    public init(metrics: ServiceMetrics) {
        self.metrics = metrics
    }

    /// Counts the request in, and out with its status and duration.
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        metrics.requestStarted()
        do {
            let response = try await next(request, context)
            metrics.requestFinished(status: response.status.code, duration: ContinuousClock.now - started)
            return response
        } catch {
            metrics.requestFinished(status: (error as? any HTTPResponseError)?.status.code ?? 500, duration: ContinuousClock.now - started)
            throw error
        }
    }
}
