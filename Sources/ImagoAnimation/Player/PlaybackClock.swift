// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// The time source that drives an ``AnimatedImagePlayer``: real time by default, a manual clock
/// in tests.
public protocol PlaybackClock: Sendable {
    /// Time since an arbitrary origin; never goes backwards.
    var now: Duration { get }
    /// Returns once ``now`` has reached `deadline`.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled.
    func sleep(until deadline: Duration) async throws
}

/// Real time, from the continuous clock.
public struct SystemPlaybackClock: PlaybackClock {
    private let origin = ContinuousClock.now

    /// Creates a clock starting at 0 now.
    public init() {}

    /// Time since the clock was created.
    public var now: Duration { ContinuousClock.now - origin }

    /// Sleeps on the continuous clock until `deadline` after the clock's creation.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled.
    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin + deadline, clock: .continuous)
    }
}

/// A clock that moves only when told: ``advance(by:)`` wakes the sleepers whose deadline passed.
public final class ManualPlaybackClock: PlaybackClock {
    private struct Sleeper {
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
    }

    private let state = Mutex(State())

    /// Creates a clock at 0.
    public init() {}

    /// The time ``advance(by:)`` has moved the clock to; 0 until it is first called.
    public var now: Duration { state.withLock { $0.now } }

    /// Tasks sleeping on this clock now.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward and wakes every sleeper due by then.
    public func advance(by duration: Duration) {
        let due = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            s.now += duration
            let now = s.now
            let ready = s.sleepers.filter { $0.value.deadline <= now }
            for id in ready.keys { s.sleepers[id] = nil }
            return ready.values.map(\.continuation)
        }
        for c in due { c.resume() }
    }

    /// Returns at once when `deadline` has passed, else when ``advance(by:)`` reaches it.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled, before or while it sleeps.
    public func sleep(until deadline: Duration) async throws {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let resume = state.withLock { s -> (any Error)?? in
                    if Task.isCancelled { return .some(CancellationError()) }
                    if deadline <= s.now { return .some(nil) }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: c)
                    return nil
                }
                switch resume {
                case .some(.some(let error)): c.resume(throwing: error)
                case .some(.none): c.resume()
                case .none: break
                }
            }
        } onCancel: {
            let c = state.withLock { $0.sleepers.removeValue(forKey: id)?.continuation }
            c?.resume(throwing: CancellationError())
        }
    }
}
