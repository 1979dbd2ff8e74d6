// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// A settable priority: what a caller holds for its own request.
package final class PriorityCell: PrioritySource {
    private let value: Atomic<Int>
    private let observers = PriorityObservers()

    package init(_ priority: ImagePriority) {
        value = Atomic(priority.rawValue)
    }

    package var currentPriority: ImagePriority {
        ImagePriority(rawValue: value.load(ordering: .relaxed)) ?? .normal
    }

    /// Sets the priority and tells the observers when it changed.
    package func set(_ priority: ImagePriority) {
        let old = value.exchange(priority.rawValue, ordering: .relaxed)
        if old != priority.rawValue { observers.notify() }
    }

    package func addPriorityObserver(_ observer: any PriorityObserver) -> Int { observers.add(observer) }
    package func removePriorityObserver(_ token: Int) { observers.remove(token) }
}
