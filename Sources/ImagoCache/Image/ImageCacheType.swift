// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Which layers of a cache an operation touches.
public enum ImageCacheType: String, Sendable, Hashable, CaseIterable {
    /// Neither: queries miss, stores and removals do nothing.
    case none
    /// Decoded images in memory only.
    case memory
    /// Encoded bytes on disk only.
    case disk
    /// Memory, then disk.
    case all

    var includesMemory: Bool { self == .memory || self == .all }
    var includesDisk: Bool { self == .disk || self == .all }
}
