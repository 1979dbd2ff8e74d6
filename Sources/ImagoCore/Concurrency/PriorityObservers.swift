// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// The observers of one priority source, held weakly, notified outside any lock.
package final class PriorityObservers: Sendable {
    private struct Weak {
        weak var observer: (any PriorityObserver)?
    }

    private let state = Mutex<(next: Int, all: [Int: Weak])>((0, [:]))

    package init() {}

    package func add(_ observer: any PriorityObserver) -> Int {
        state.withLock { s -> Int in
            s.next += 1
            s.all[s.next] = Weak(observer: observer)
            return s.next
        }
    }

    package func remove(_ token: Int) {
        _ = state.withLock { $0.all.removeValue(forKey: token) }
    }

    /// Tells every observer; call it with no lock held.
    package func notify() {
        let observers = state.withLock { s in s.all.values.compactMap { $0.observer } }
        for o in observers { o.sourcePriorityDidChange() }
    }
}
