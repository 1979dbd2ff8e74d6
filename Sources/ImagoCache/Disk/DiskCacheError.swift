// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Errors from ``DiskCache``. Each says what failed; the cache stays consistent after any of them.
public enum DiskCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The manifest database failed (SQLite's message).
    case database(String)
    /// Reading or writing a file failed, for example because the disk is full.
    case io(path: String, reason: String)
    /// A data cache other than ``DiskCache`` (a ``DataCaching`` of an app's own) failed: its
    /// error, described.
    case store(String)

    /// A one-line description naming the cause.
    public var description: String {
        switch self {
        case .database(let m): "disk cache manifest error: \(m)"
        case .io(let path, let reason): "disk cache I/O error at \(path): \(reason)"
        case .store(let m): "data cache error: \(m)"
        }
    }
}
