// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation

/// Runs blocking work (waiting on a semaphore, a queue's drain, a child process) on a thread of
/// its own, and returns its result to the awaiting task.
///
/// Swift's cooperative pool has one thread per core (2 on CI) and, on Linux, shares Dispatch's
/// global queues: a test that blocks one of those threads while it waits for other tests' work
/// can stall the whole parallel run until its time limit ends. This keeps every such wait off it.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// ``blocking(_:)`` for work that cannot fail.
public func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
