// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Makes the disk cache's background writes survive a normal exit: when the process returns
/// from `main` or calls `exit`, an `atexit` handler waits for every live ``DiskWriter``'s queue
/// to drain, up to ``timeout`` in all, so a tool that loads and exits still fills its cache.
///
/// Installed once, when the first writer is made. It cannot help a process that is killed, or
/// that ends with `_exit` or a crash; a write cut short there leaves no entry behind, since
/// the disk cache's writes are atomic.
enum ExitFlush {
    /// The longest a normal exit waits for pending writes, in all.
    static let timeout: Duration = .seconds(10)

    private struct Registry {
        var installed = false
        var nextID = 0
        var queues: [Int: WorkQueue] = [:]
    }

    private static let registry = Mutex(Registry())

    /// Registers `queue` to be drained at exit; returns the id to unregister it with.
    static func register(_ queue: WorkQueue) -> Int {
        let (id, install) = registry.withLock { r -> (Int, Bool) in
            r.nextID += 1
            r.queues[r.nextID] = queue
            defer { r.installed = true }
            return (r.nextID, !r.installed)
        }
        if install { atexit { ExitFlush.drainAll() } }
        return id
    }

    static func unregister(_ id: Int) {
        registry.withLock { _ = $0.queues.removeValue(forKey: id) }
    }

    /// Waits for every registered queue to go idle, within `limit` in all.
    /// - Parameter limit: Default ``timeout``.
    /// - Returns: whether all of them did.
    @discardableResult
    static func drainAll(within limit: Duration = timeout) -> Bool {
        let queues = registry.withLock { Array($0.queues.values) }
        let deadline = ContinuousClock.now + limit
        var drained = true
        for queue in queues {
            let left = deadline - ContinuousClock.now
            drained = queue.blockUntilIdle(timeout: max(.zero, left)) && drained
        }
        return drained
    }
}
