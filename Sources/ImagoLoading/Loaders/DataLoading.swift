// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Fetches bytes for a URL: the transport under ``ImageDownloader``. Imago has one for
/// `http`/`https` (AsyncHTTPClient), one for `file` and one for `data`; a custom loader (an
/// object store, a test double) plugs in the same way.
public protocol DataLoading: Sendable {
    /// Whether this loader handles `url` (by scheme).
    func canLoad(_ url: URL) -> Bool

    /// Loads `request`: calls `response` once with the final response head (after redirects),
    /// then `chunk` with each piece of the body in order, and returns when the body is complete.
    /// Either callback may throw to stop the transfer; the error is rethrown. Cancelling the
    /// calling task stops the transfer.
    ///
    /// - Throws: ``ImageLoadingError`` for transport failures; the callbacks' errors.
    func load(
        _ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void,
        chunk: (Data) throws -> Void) async throws

    /// Whether bytes this loader fetched for `url` along `route` (kept in a cache, see
    /// ``DataLoadResponse/route``) may still be used under its policy as it is now; `nil` when
    /// it cannot tell (no route was recorded), and the caller should fetch them again through
    /// the loader (a conditional request). Default: `true` (a loader without a policy).
    func permitsCached(_ url: URL, route: [DataLoadResponse.Hop]?) -> Bool?
}

extension DataLoading {
    /// `true`: a loader without a policy permits whatever it fetched.
    public func permitsCached(_ url: URL, route: [DataLoadResponse.Hop]?) -> Bool? { true }
}
