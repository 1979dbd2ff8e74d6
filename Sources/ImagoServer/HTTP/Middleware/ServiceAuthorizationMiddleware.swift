// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import Hummingbird

/// Refuses requests without `Authorization: Bearer <secret>` (`IMAGO_SECRET`) with 403
/// (`invalid_secret`), comparing in constant time. Without a secret it lets every
/// request through.
public struct ServiceAuthorizationMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The secret, or `nil` for none.
    public let secret: String?

    /// Creates the middleware for `secret` (`nil`: no check).
    public init(secret: String?) {
        self.secret = secret
    }

    /// Checks the header, then goes on.
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try ServiceAuthorization.check(request.headers, secret: secret)
        return try await next(request, context)
    }
}
