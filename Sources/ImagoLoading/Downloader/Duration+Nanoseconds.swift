// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension Duration {
    /// Whole nanoseconds, saturating.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds < 0 ? .min : .max) : ns &+ attoseconds / 1_000_000_000
    }
}
