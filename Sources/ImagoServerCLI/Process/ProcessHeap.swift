// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoHeap

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The C heap of this process: glibc's `malloc` settings, trimming, and the resident size.
///
/// Image work allocates and frees bitmaps of many sizes from many threads. glibc keeps freed
/// memory in per-thread arenas for reuse, so a process's resident size climbs to the peak of
/// every arena and stays there. A long-running service bounds that with fewer arenas
/// (``limitArenas(_:)``, imgproxy's `MALLOC_ARENA_MAX=2`) and hands freed memory back to the
/// system when it can (``trim()``, `malloc_trim`, as imgproxy does every 10 s), and gives large
/// buffers mappings of their own (``mapLargeAllocations(from:)``) so that they never settle in
/// the arenas.
///
/// These settings are process-wide: the library never changes them by itself. `imago-server`
/// does, from `IMAGO_MALLOC_ARENAS` and `IMAGO_FREE_MEMORY_INTERVAL`. On a C library other
/// than glibc the calls do nothing and return `false`.
enum ProcessHeap {
    /// Caps the number of malloc arenas (`mallopt(M_ARENA_MAX)`). Call it at start-up, before
    /// threads allocate: arenas already made stay.
    ///
    /// - Parameter count: The most arenas; at least 1.
    /// - Returns: Whether the C library took the setting.
    @discardableResult
    static func limitArenas(_ count: Int) -> Bool {
        guard count >= 1, count <= Int(Int32.max) else { return false }
        return imago_heap_limit_arenas(Int32(count)) == 1
    }

    /// Gives every allocation of at least `bytes` a mapping of its own, unmapped when freed
    /// (`mallopt(M_MMAP_THRESHOLD)`). glibc's default threshold rises to the size of the
    /// largest block freed (up to 32 MiB), after which bitmaps come from the arenas and
    /// their memory stays resident, fragmented, after the load has gone; a fixed threshold keeps
    /// large buffers out of the arenas. Costs a fresh mapping (and its page faults) per buffer.
    ///
    /// - Parameter bytes: The threshold, at most 32 MiB (glibc's ceiling).
    /// - Returns: Whether the C library took the setting.
    @discardableResult
    static func mapLargeAllocations(from bytes: Int) -> Bool {
        guard bytes >= 4096, bytes <= 32 << 20 else { return false }
        return imago_heap_mmap_threshold(Int32(bytes)) == 1
    }

    /// Returns the free memory at the top of every arena, and whole free pages inside them,
    /// to the system (`malloc_trim(0)`). It takes each arena's lock in turn, so it briefly
    /// slows allocations running at the same time; call it when idle or every few seconds.
    ///
    /// - Returns: Whether any memory was released.
    @discardableResult
    static func trim() -> Bool {
        imago_heap_trim() == 1
    }
}
