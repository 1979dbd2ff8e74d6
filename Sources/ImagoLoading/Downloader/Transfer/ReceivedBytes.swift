// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bytes a transfer has received so far, shared with progressive decoders, which take a
/// snapshot when they are ready to decode rather than a copy per piece that arrives: a slow
/// decoder costs one copy of the body per decode, never one per network read.
final class ReceivedBytes: Sendable {
    private let data = Mutex(Data())

    /// Adds a piece at the end.
    func append(_ piece: Data) { data.withLock { $0.append(piece) } }

    /// Reserves room for the declared length.
    func reserve(_ count: Int) { data.withLock { $0.reserveCapacity(count) } }

    /// Everything received so far.
    var snapshot: Data { data.withLock { $0 } }

    /// How many bytes have arrived.
    var count: Int { data.withLock { $0.count } }
}
