// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension MemoryPressureWatcher {
    /// Trims `cache` under pressure: to half its cost on a warning, to nothing when critical.
    public func trims<K, V>(_ cache: MemoryCache<K, V>) {
        onPressure { [weak cache] level in
            guard let cache else { return }
            if level == .critical { cache.removeAll() } else { cache.trim(toCost: cache.totalCost / 2) }
        }
    }
}
