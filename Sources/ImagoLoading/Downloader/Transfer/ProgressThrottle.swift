// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// Lets one event through per interval.
final class ProgressThrottle: Sendable {
    private let interval: Duration
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    init(interval: Duration) {
        self.interval = interval
    }

    func due() -> Bool {
        let now = ContinuousClock.now
        return last.withLock { last in
            if let l = last, now - l < interval { return false }
            last = now
            return true
        }
    }
}
