// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCache

/// A result store shared by every instance of a service (an object-store bucket), behind each
/// instance's own result cache (``ImageManager/Configuration/sharedResults``): a result one
/// instance made is read by the others instead of being made again. ``ObjectStoreResults`` keeps
/// them in S3 or OpenStack Swift.
///
/// Keys are the result cache's (the source's data key, the digest of its bytes, the settings and
/// the output), so a result made from other bytes under the same URL is never found.
public protocol SharedResultStoring: Sendable {
    /// The result stored under `key`, or `nil` when there is none.
    ///
    /// - Throws: when the store cannot be read (the pipeline counts it a miss).
    func result(forKey key: String) async throws -> CachedData?

    /// Stores `result` under `key`, replacing any.
    ///
    /// - Throws: when the store cannot be written.
    func store(_ result: CachedData, forKey key: String) async throws

    /// Removes every result whose key starts with `prefix` (a purged source's).
    ///
    /// - Throws: when the store cannot be listed or written.
    func removeResults(withKeyPrefix prefix: String) async throws

    /// Claims the right to make the value of `key` for `lease`: `true` when this caller should
    /// make it (no one else holds a live claim, or the store cannot tell), `false` when another
    /// instance is making it now, and the caller should wait for it to appear. Default: `true`.
    func claim(_ key: String, lease: Duration) async -> Bool

    /// Gives up the claim on `key` (once the value is stored, or its making failed). Default:
    /// nothing.
    func release(_ key: String) async
}

extension SharedResultStoring {
    /// Always `true`: a store that cannot tell who is making a value lets every caller make it.
    public func claim(_ key: String, lease: Duration) async -> Bool { true }
    /// Does nothing: there is no claim to give up.
    public func release(_ key: String) async {}
}
