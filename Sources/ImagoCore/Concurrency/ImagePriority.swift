// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// How urgent a piece of work is: a download waiting for a connection slot, a decode waiting for
/// a processing thread. Queued work starts highest priority first.
///
/// The five levels are Nuke's. SDWebImage's `lowPriority` and `highPriority` options map to
/// ``low`` and ``high``.
public enum ImagePriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Work nobody waits for yet (prefetching far ahead).
    case veryLow
    /// Background work: prefetching.
    case low
    /// The default.
    case normal
    /// Work somebody is waiting for now.
    case high
    /// Goes before everything else.
    case veryHigh

    /// Orders levels by urgency: ``ImagePriority/veryLow`` first, ``ImagePriority/veryHigh`` last.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
