// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoLoading
import Logging
import Synchronization

/// Results made in the background for later requests (`IMAGO_AVIF_LATER`, the efficient format
/// policy): each at the lowest priority on the service's workers, at most `limit` at once, one
/// per result however many requests ask. Past the limit nothing is started: the request that
/// asked gets its fast answer and a later one starts the work. A result made to replace an
/// answer is kept only when it is smaller; one that is not is remembered as declined, so it is
/// not made again. Each such trial also counts for its family (a source and a format): a format
/// that lost more often than it won on a photo is not tried at the photo's other sizes
/// (``losing(_:)``). ``finish()`` cancels what is running, for a stopping service.
final class BackgroundEncodes: Sendable {
    private struct State {
        /// Results being made, by key; a task's handle once it has one.
        var running: [String: Task<Void, Never>?] = [:]
        /// Results made and not kept: no smaller than the answer they would replace.
        var declined: Set<String> = []
        /// Requests for each result so far (the efficient policy's popularity).
        var asks: [String: Int] = [:]
        /// Trials kept and declined, by family.
        var record: [String: (kept: Int, declined: Int)] = [:]
    }

    /// Most declined results (and results counted) remembered; past it the memory starts again.
    private static let declinedLimit = 100_000

    /// Counts a request for the result under `key`; how many there were, this one included.
    func ask(_ key: String) -> Int {
        state.withLock { s in
            if s.asks.count >= Self.declinedLimit { s.asks.removeAll() }
            s.asks[key, default: 0] += 1
            return s.asks[key] ?? 1
        }
    }

    private let limit: Int
    private let state = Mutex(State())
    private let logger: Logger

    init(limit: Int, logger: Logger) {
        self.limit = max(1, limit)
        self.logger = logger
    }

    /// Encodes now in the background, how many are running.
    var count: Int { state.withLock { $0.running.count } }

    /// Whether the result under `key` was made and found no smaller than the answer it would
    /// replace.
    func declined(_ key: String) -> Bool { state.withLock { $0.declined.contains(key) } }

    /// Whether results of `family` (a source and a format) were declined more often than kept:
    /// on a photo where a format loses to the JPEG at one size it mostly loses at the others (the
    /// photo's grain decides), so its other sizes keep the JPEG without the encode that would
    /// prove it again.
    func losing(_ family: String) -> Bool {
        state.withLock { s in s.record[family].map { $0.declined > $0.kept } ?? false }
    }

    /// Starts making `request`'s result from `source` under `key`, unless it is being made, was
    /// declined, or `limit` are running; returns whether it runs now. With `smallerThan`, the
    /// result is stored only when it has fewer bytes, else declined.
    @discardableResult
    func start(
        _ key: String, request: ImageRequest, source: LoadedSource, manager: ImageManager, smallerThan: Int? = nil, family: String? = nil
    ) -> Bool {
        let admitted = state.withLock { s -> Bool in
            guard s.running[key] == nil, !s.declined.contains(key), s.running.count < limit else { return false }
            s.running[key] = .some(nil)
            return true
        }
        guard admitted else { return false }
        var background = request
        background.priority = .veryLow
        if smallerThan != nil { background.options.insert(.disableDiskCacheWrites) }
        let task = Task(priority: .background) { [background, logger] in
            do {
                let made = try await manager.loadEncodedImage(with: background, source: source)
                if let smallerThan {
                    let kept = made.byteCount < smallerThan
                    logger.debug(
                        "a background encode \(kept ? "is kept" : "is declined")",
                        metadata: ["key": "\(key)", "bytes": "\(made.byteCount)", "replaces": "\(smallerThan)"])
                    if kept { manager.storeResult(made, for: request, source: source) } else { self.decline(key) }
                    self.record(family, kept: kept)
                }
            } catch {
                logger.info("a background encode failed", metadata: ["error": "\(error)"])
            }
            self.finished(key)
        }
        state.withLock { s in
            // Still running (not finished already): keep its handle for ``finish()``.
            if s.running[key] != nil { s.running[key] = task }
        }
        return true
    }

    /// Makes `request`'s result from `source` under `key` now, for the request waiting on it:
    /// stored and returned when it has fewer bytes than `smallerThan`, else declined. `nil` when
    /// declined, being made already (in the background or by another request), or failed. It
    /// takes the request's own render slot, not one of the background's `limit`. The trial
    /// counts for `family`.
    func make(
        _ key: String, request: ImageRequest, source: LoadedSource, manager: ImageManager, smallerThan: Int, family: String? = nil
    ) async -> EncodedImageResult? {
        let admitted = state.withLock { s -> Bool in
            guard s.running[key] == nil, !s.declined.contains(key) else { return false }
            s.running[key] = .some(nil)
            return true
        }
        guard admitted else { return nil }
        defer { finished(key) }
        var now = request
        now.options.insert(.disableDiskCacheWrites)
        do {
            let made = try await manager.loadEncodedImage(with: now, source: source)
            record(family, kept: made.byteCount < smallerThan)
            guard made.byteCount < smallerThan else {
                logger.debug("an encode made now is declined", metadata: ["key": "\(key)", "bytes": "\(made.byteCount)"])
                decline(key)
                return nil
            }
            manager.storeResult(made, for: request, source: source)
            return made
        } catch {
            logger.info("an encode made now failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private func decline(_ key: String) {
        state.withLock { s in
            if s.declined.count >= Self.declinedLimit { s.declined.removeAll() }
            s.declined.insert(key)
        }
    }

    /// Counts a trial of `family`: its result kept (smaller than the answer it would replace)
    /// or declined.
    func record(_ family: String?, kept: Bool) {
        guard let family else { return }
        state.withLock { s in
            if s.record.count >= Self.declinedLimit { s.record.removeAll() }
            var r = s.record[family] ?? (0, 0)
            if kept { r.kept += 1 } else { r.declined += 1 }
            s.record[family] = r
        }
    }

    private func finished(_ key: String) {
        _ = state.withLock { $0.running.removeValue(forKey: key) }
    }

    /// Cancels the encodes running and waits for them to stop.
    func finish() async {
        let tasks = state.withLock { $0.running.values.compactMap { $0 } }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
