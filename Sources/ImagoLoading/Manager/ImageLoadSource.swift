// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Where a loaded image came from.
public enum ImageLoadSource: String, Sendable, Hashable {
    /// The memory cache: nothing was read or decoded.
    case memory
    /// The disk cache: its bytes were decoded now.
    case disk
    /// The loader: downloaded (or read from a `file` or `data` URL, or the bytes given in the
    /// request) and decoded now. A 304 revalidation counts here too.
    case network
}
