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
}
