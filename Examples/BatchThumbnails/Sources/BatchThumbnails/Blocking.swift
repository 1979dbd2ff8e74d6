// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Dispatch

/// Runs blocking work on a Dispatch thread and resumes the caller with its result, so a long
/// decode never holds a thread of Swift's cooperative pool.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(returning: work()) }
        }
    }
}
