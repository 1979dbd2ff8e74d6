// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

#if canImport(Dispatch)
import Dispatch
#endif

/// Items shared out to a few threads: the commands that write many files (`thumbnail`,
/// `convert --all-frames`) run their files or pages side by side this way.
package enum SharedWork {
    /// One item that failed: its position in the work and what went wrong.
    package struct Failure: Sendable {
        package var index: Int
        package var error: any Error
    }

    /// Runs `body` for each index in `0..<count` on up to `jobs` threads (at least one). Each
    /// thread takes the next index when it is free, so one slow item never leaves a thread idle
    /// behind a fixed share. Every item is tried, whatever the others did.
    ///
    /// - Parameters:
    ///   - progress: called after each item with how many are done and how many of those
    ///     failed, from the thread that did it (nil: no report).
    /// - Returns: the items that threw, in index order (empty when all succeeded).
    package static func forEach(
        _ count: Int, jobs: Int, progress: (@Sendable (_ done: Int, _ failed: Int) -> Void)? = nil,
        _ body: @Sendable (Int) throws -> Void
    ) -> [Failure] {
        guard count > 0 else { return [] }
        let next = Atomic<Int>(0)
        let state = Mutex((done: 0, failures: [Failure]()))
        DispatchQueue.concurrentPerform(iterations: min(max(1, jobs), count)) { _ in
            while case let i = next.add(1, ordering: .relaxed).oldValue, i < count {
                var failure: Failure?
                do { try body(i) } catch { failure = Failure(index: i, error: error) }
                let (done, failed) = state.withLock { s -> (Int, Int) in
                    s.done += 1
                    if let failure { s.failures.append(failure) }
                    return (s.done, s.failures.count)
                }
                progress?(done, failed)
            }
        }
        return state.withLock { $0.failures }.sorted { $0.index < $1.index }
    }
}
