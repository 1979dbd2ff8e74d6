// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// The requests past parsing (`IMAGO_WORKERS + IMAGO_QUEUE_SIZE` at most, when a queue size is
/// set): one more is refused with 429 rather than queued without end.
final class ServiceAdmission: Sendable {
    private let admitted = Mutex(0)
    /// The most requests let in at once; `nil` for no limit.
    let limit: Int?

    init(limit: Int?) {
        self.limit = limit
    }

    /// Requests let in now.
    var count: Int { admitted.withLock { $0 } }

    /// Lets a request in.
    ///
    /// - Throws: 429 ``ServiceError/queueFull`` when the limit is reached.
    func enter() throws(ServiceError) {
        let accepted = admitted.withLock { n -> Bool in
            guard n < limit ?? Int.max else { return false }
            n += 1
            return true
        }
        guard accepted else { throw .queueFull }
    }

    /// A request let in is done.
    func leave() {
        admitted.withLock { $0 -= 1 }
    }
}
