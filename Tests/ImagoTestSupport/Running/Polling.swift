// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Testing

/// Waits, polling every `interval`, until `condition` holds; records an issue (at the caller's
/// line) once `limit` of polling passed without it.
///
/// Only polling time counts: each poll adds the time since the one before, at most 50 ms. On a
/// 2-core CI machine the whole test process can stall for seconds while parallel tests hold
/// every thread; wall time would then use up the limit, and the first poll after the stall would
/// fail a condition that holds a few milliseconds later.
///
/// - Returns: whether the condition held.
@discardableResult
public func poll(
    _ limit: Duration, every interval: Duration = .milliseconds(2), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () -> Bool
) async throws -> Bool {
    let clock = ContinuousClock()
    var polled = Duration.zero
    var previous = clock.now
    while !condition() {
        if polled > limit {
            Issue.record("condition not met in \(limit) of polling", sourceLocation: sourceLocation)
            return false
        }
        try await Task.sleep(for: interval)
        let now = clock.now
        polled += min(now - previous, .milliseconds(50))
        previous = now
    }
    return true
}
