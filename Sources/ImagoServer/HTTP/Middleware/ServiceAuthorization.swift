// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes

/// The `IMAGO_SECRET` check, shared by ``ServiceAuthorizationMiddleware`` and
/// ``ImageService/respond(method:path:headers:)``.
enum ServiceAuthorization {
    /// Checks `Authorization: Bearer <secret>` in constant time; no secret, no check.
    ///
    /// - Throws: 403 ``ServiceError/invalidSecret``.
    static func check(_ headers: HTTPFields, secret: String?) throws(ServiceError) {
        guard let secret else { return }
        guard ConstantTime.equals(headers[.authorization] ?? "", "Bearer \(secret)") else { throw .invalidSecret }
    }
}

/// Constant-time comparison of secrets.
enum ConstantTime {
    static func equals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return diff == 0
    }
}
