// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Something whose priority can change while its work waits in a queue: a caller's request, or a
/// shared stage whose priority is the highest of its subscribers'.
///
/// Changes are pushed: a source tells its observers when its priority changes, and a stage
/// keeps its own priority up to date from its subscribers'. Reading ``currentPriority`` is then a
/// single atomic load, which is what queues do for every waiting item each time they pick one.
package protocol PrioritySource: AnyObject, Sendable {
    /// The priority now (an atomic read).
    var currentPriority: ImagePriority { get }
    /// Tells `observer` of every later change until ``removePriorityObserver(_:)``; returns the
    /// token to remove it with. Never calls back into the observer while registering.
    func addPriorityObserver(_ observer: any PriorityObserver) -> Int
    /// Stops telling the observer registered with `token`.
    func removePriorityObserver(_ token: Int)
}

/// Hears of a source's priority changes (a stage hearing of its subscribers').
package protocol PriorityObserver: AnyObject, Sendable {
    /// A source this observer registered with changed its priority. Called outside any lock.
    func sourcePriorityDidChange()
}
