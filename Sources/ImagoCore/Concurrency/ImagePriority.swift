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
/// Queues read ``currentPriority`` when they choose what runs next, so a change reaches every
/// queue the work is waiting in without being pushed to them.
package protocol PrioritySource: AnyObject, Sendable {
    /// The priority now.
    var currentPriority: ImagePriority { get }
}

/// A settable priority: what a caller holds for its own request.
package final class PriorityCell: PrioritySource {
    private let value: Atomic<Int>

    package init(_ priority: ImagePriority) {
        value = Atomic(priority.rawValue)
    }

    package var currentPriority: ImagePriority {
        get { ImagePriority(rawValue: value.load(ordering: .relaxed)) ?? .normal }
        set { value.store(newValue.rawValue, ordering: .relaxed) }
    }

    /// Sets the priority.
    package func set(_ priority: ImagePriority) { value.store(priority.rawValue, ordering: .relaxed) }
}
