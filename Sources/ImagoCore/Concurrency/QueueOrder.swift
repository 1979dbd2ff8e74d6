// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Which of several waiting items of equal priority goes first.
public enum QueueOrder: String, Sendable, Hashable {
    /// First in, first out (the default).
    case fifo
    /// Last in, first out: the newest first, as for a list scrolling past.
    case lifo
}

/// Items waiting for a slot, chosen by their priority (read when choosing) and then by arrival.
///
/// Not thread-safe: its owner keeps it inside a lock. Choosing scans every waiting item, which
/// keeps priority changes free (nothing to re-sort) and costs microseconds for thousands.
struct WaitList<Item> {
    private struct Entry {
        var item: Item
        var priority: any PrioritySource
        var sequence: Int
        var continues: Bool
    }

    private var entries: [Int: Entry] = [:]
    private var sequence = 0

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// Adds an item; it ranks among equals by `sequence` when given (a place in line taken
    /// earlier, see ``reserve()``), else by arrival now. An item that `continues` work already
    /// begun goes before items of its priority that do not, in either order.
    mutating func append(_ item: Item, id: Int, priority: any PrioritySource, sequence reserved: Int? = nil, continues: Bool = false) {
        let place = reserved ?? reserve()
        entries[id] = Entry(item: item, priority: priority, sequence: place, continues: continues)
    }

    /// Takes the next place in line without adding anything yet.
    mutating func reserve() -> Int {
        sequence += 1
        return sequence
    }

    mutating func remove(id: Int) -> Item? {
        entries.removeValue(forKey: id)?.item
    }

    /// Removes and returns the item to run next.
    mutating func popNext(order: QueueOrder) -> Item? {
        var best: (id: Int, priority: ImagePriority, continues: Bool, sequence: Int)?
        for (id, entry) in entries {
            let p = entry.priority.currentPriority
            if let b = best {
                if p < b.priority { continue }
                if p == b.priority {
                    if b.continues && !entry.continues { continue }
                    if b.continues == entry.continues,
                        order == .fifo ? entry.sequence > b.sequence : entry.sequence < b.sequence
                    {
                        continue
                    }
                }
            }
            best = (id, p, entry.continues, entry.sequence)
        }
        guard let best else { return nil }
        return entries.removeValue(forKey: best.id)?.item
    }
}
