import Synchronization

/// How urgent a piece of work is: a download waiting for a connection slot, a decode waiting for
/// a processing thread. Queued work starts highest priority first.
///
/// The five levels are Nuke's. SDWebImage's `lowPriority` and `highPriority` options map to
/// ``low`` and ``high``.
public enum ImagePriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Work nobody waits for yet (prefetching far ahead).
    case veryLow
    /// Background work: prefetching.
    case low
    /// The default.
    case normal
    /// Work somebody is waiting for now.
    case high
    /// Goes before everything else.
    case veryHigh

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

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
