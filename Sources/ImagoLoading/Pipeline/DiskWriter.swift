// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCore
import Logging
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The pipeline's one way of writing to the disk cache: one write at a time on a serial queue
/// off the cooperative pool (SDWebImage's `ioQueue`), with a staging area so a load of a key
/// whose write is still pending is served from the pending bytes instead of the network.
///
/// Downloaded bytes are *staged* as soon as they arrive (readable at once) and *written* once
/// they have decoded (``PendingWrite/commit()``), as SDWebImage stores after decoding: bytes that
/// do not decode never reach the disk, and the write does not compete with the decode for the
/// CPU. Bytes nobody commits are dropped from the staging area when the last reference goes.
/// Downloads of ``ImagePipeline/writeAheadBytes`` or more are the exception: they are written
/// at once (``writeAhead(_:forKey:)``) and decoded from the mapped file, so a request waiting
/// for a worker holds no copy in memory, and removed again if nobody commits them.
///
/// Writes still queued when the process exits normally are finished first (``ExitFlush``).
///
/// Every write has the same priority, so writes reach the disk in the order they were asked
/// for: a later value of a key is never overwritten by an earlier one still waiting.
final class DiskWriter: Sendable {
    private let cache: any DataCaching
    private let queue = WorkQueue(label: "imago.disk-writes", maxConcurrentCount: 1)
    private let staged = Mutex<(next: Int, byKey: [String: (id: Int, value: CachedData)])>((0, [:]))
    private let logger = Logger(label: "imago.manager")
    private let exitRegistration: Int

    init(cache: any DataCaching) {
        self.cache = cache
        exitRegistration = ExitFlush.register(queue)
    }

    deinit {
        ExitFlush.unregister(exitRegistration)
    }

    /// The bytes staged or waiting to be written for `key`, if any.
    func pending(forKey key: String) -> CachedData? {
        staged.withLock { $0.byKey[key]?.value }
    }

    /// Stages `value` for `key`: readable through ``pending(forKey:)`` at once, written when the
    /// returned handle is committed, forgotten if it never is.
    func stage(_ value: CachedData, forKey key: String) -> PendingWrite {
        PendingWrite(writer: self, key: key, value: value, id: stageValue(value, forKey: key))
    }

    /// Writes in the background; until the write is done, ``pending(forKey:)`` serves the bytes.
    func store(_ value: CachedData, forKey key: String) {
        let id = stageValue(value, forKey: key)
        submit(value, forKey: key, id: id)
    }

    /// Makes the bytes in the background (encoding a finished image) and writes them; a failure
    /// to make them is logged and nothing is written.
    func store(forKey key: String, making make: @escaping @Sendable () throws -> CachedData) {
        queue.submit { [self] in
            do {
                write(try make(), forKey: key)
            } catch {
                logger.warning("encoding for the disk cache failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
    }

    /// Writes and returns once the bytes are on disk. A failure is logged, not thrown: the image
    /// is good whether or not the cache kept it.
    func storeNow(_ value: CachedData, forKey key: String) async {
        let id = stageValue(value, forKey: key)
        await write(value, forKey: key, id: id)
    }

    /// Writes `value` now, for bytes too large to hold in memory until they decode (the caller
    /// goes on from the written file). The handle removes the entry again unless it is
    /// committed, so bytes that do not decode still leave nothing on the disk.
    func writeAhead(_ value: CachedData, forKey key: String) async -> PendingWrite {
        await storeNow(value, forKey: key)
        return PendingWrite(writer: self, key: key, value: nil, id: 0)
    }

    /// Replaces the metadata of `key`'s entry, keeping its bytes where they lie (a 304's new
    /// lifetime), after the writes queued before.
    func updateMetadata(_ metadata: [String: String], forKey key: String) {
        queue.submit { [self] in
            do {
                try cache.setMetadata(metadata, forKey: key)
            } catch {
                logger.warning("disk cache metadata update failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
    }

    /// Forgets what is staged for `key` and removes its entry, after the writes queued before.
    func purge(forKey key: String) async {
        staged.withLock { _ = $0.byKey.removeValue(forKey: key) }
        _ = try? await queue.run { [self] in
            do {
                try cache.removeValue(forKey: key)
            } catch {
                logger.warning("disk cache removal failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
    }

    /// Forgets what is staged under keys starting with `prefix` and removes their entries
    /// (`DataCaching.removeValues(withKeyPrefix:)`), after the writes queued before.
    ///
    /// - Throws: the cache's failure to remove them.
    func purge(keyPrefix prefix: String) async throws {
        staged.withLock { s in s.byKey = s.byKey.filter { !$0.key.hasPrefix(prefix) } }
        try await queue.run { [cache] in try cache.removeValues(withKeyPrefix: prefix) }
    }

    /// Returns once every write queued so far is done.
    func flush() async {
        await queue.waitUntilIdle()
    }

    fileprivate func submit(_ value: CachedData, forKey key: String, id: Int) {
        queue.submit { [self] in
            write(value, forKey: key)
            unstage(key, id: id)
        }
    }

    fileprivate func write(_ value: CachedData, forKey key: String, id: Int) async {
        _ = try? await queue.run { [self] in
            write(value, forKey: key)
            unstage(key, id: id)
        }
        unstage(key, id: id)
    }

    private func stageValue(_ value: CachedData, forKey key: String) -> Int {
        staged.withLock { s -> Int in
            s.next += 1
            s.byKey[key] = (s.next, value)
            return s.next
        }
    }

    /// Removes a written-ahead entry that nobody committed, in order with the writes.
    fileprivate func remove(_ key: String) {
        queue.submit { [self] in
            do {
                try cache.removeValue(forKey: key)
            } catch {
                logger.warning("disk cache removal failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
    }

    fileprivate func unstage(_ key: String, id: Int) {
        staged.withLock { s in if s.byKey[key]?.id == id { s.byKey[key] = nil } }
    }

    private func write(_ value: CachedData, forKey key: String) {
        do {
            try cache.setData(value.data, forKey: key, metadata: value.metadata)
        } catch {
            logger.warning("disk cache write failed", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }
}

/// Downloaded bytes staged for the disk cache, written when committed (once, however many
/// stages commit them) and dropped from the staging area if nobody does; or, for bytes written
/// ahead (``DiskWriter/writeAhead(_:forKey:)``, no `value`), kept when committed and removed
/// from the disk if nobody does.
final class PendingWrite: Sendable {
    private let writer: DiskWriter
    private let key: String
    private let value: CachedData?
    private let id: Int
    private let committed = Atomic(false)

    fileprivate init(writer: DiskWriter, key: String, value: CachedData?, id: Int) {
        self.writer = writer
        self.key = key
        self.value = value
        self.id = id
    }

    /// Queues the write (the first call only).
    func commit() {
        guard !committed.exchange(true, ordering: .relaxed), let value else { return }
        writer.submit(value, forKey: key, id: id)
    }

    /// Writes now and returns once the bytes are on disk (the first call writes; later ones return at once).
    func commitAndWait() async {
        guard !committed.exchange(true, ordering: .relaxed), let value else { return }
        await writer.write(value, forKey: key, id: id)
    }

    deinit {
        guard !committed.load(ordering: .relaxed) else { return }
        if value == nil { writer.remove(key) } else { writer.unstage(key, id: id) }
    }
}
