// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import Hummingbird

/// Bounds a request's time (`IMAGO_REQUEST_TIMEOUT`): past `limit` its work is cancelled and
/// it is answered 503 (`timeout`); a request cancelled from outside (its
/// client went away) becomes 499, which only the log and metrics see.
public struct ServiceDeadlineMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The longest a request may take.
    public let limit: Duration

    /// Creates the middleware with a time limit.
    public init(limit: Duration) {
        self.limit = limit
    }

    /// Runs the rest within the limit.
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // `next` runs once, in the group's child task, and the group returns only after that task
        // has ended: it never runs beside its caller nor outlives this call, so handing it to
        // the child is sound although Hummingbird neither marks it `@Sendable` nor escaping.
        do {
            return try await withoutActuallyEscaping(next) { next in
                nonisolated(unsafe) let next = next
                return try await ServiceDeadline.run(within: limit) { try await next(request, context) }
            }
        } catch let error where Task.isCancelled || error is CancellationError {
            throw ServiceError.clientClosedRequest
        }
    }
}

/// Runs work within a time limit.
enum ServiceDeadline {
    /// Runs `body`, failing with 503 ``ServiceError/requestTimeout`` after `limit`.
    static func run<T: Sendable>(within limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw ServiceError.requestTimeout
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw ServiceError.requestTimeout }
            return first
        }
    }
}
