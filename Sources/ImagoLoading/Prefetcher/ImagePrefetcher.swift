// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Loads a list of URLs into the caches ahead of need (SDWebImage's `SDWebImagePrefetcher`): a
/// few at a time, at low priority, through an ``ImageManager`` so everything it loads is cached.
public final class ImagePrefetcher: Sendable {
    /// Counts for one `prefetch(_:progress:)` call.
    public struct Summary: Sendable, Hashable {
        /// URLs asked for.
        public var total: Int
        /// Loaded from the network (or a file or data URL) and stored.
        public var finished: Int
        /// Already cached: nothing was fetched.
        public var skipped: Int
        /// Failed, or cancelled before they finished.
        public var failed: Int

        /// URLs dealt with so far.
        public var completed: Int { finished + skipped + failed }
    }

    /// The manager that loads and caches.
    public let manager: ImageManager
    /// Loads running at once. Default 3.
    public let maxConcurrentPrefetchCount: Int
    /// The priority of loads made from URLs. Default `ImagePriority.low`.
    public let priority: ImagePriority

    private let running = Mutex<[Int: Task<Summary, Never>]>([:])
    private let ids = Atomic<Int>(0)

    /// Creates a prefetcher; every parameter defaults as documented on its property (the
    /// manager: ``ImageManager/shared``).
    public init(manager: ImageManager = .shared, maxConcurrentPrefetchCount: Int = 3, priority: ImagePriority = .low) {
        self.manager = manager
        self.maxConcurrentPrefetchCount = max(1, maxConcurrentPrefetchCount)
        self.priority = priority
    }

    /// Prefetches `urls`, calling `progress` after each one, and returns the counts. Cancelling
    /// the calling task, or ``cancelAll()``, stops the loads not yet finished (they count as failed).
    public func prefetch(_ urls: [URL], progress: (@Sendable (Summary) -> Void)? = nil) async -> Summary {
        await prefetch(urls.map { ImageRequest(url: $0, priority: priority) }, progress: progress)
    }

    /// Prefetches `requests` as given (their own priorities and processing), as ``prefetch(_:progress:)-([URL],_)``.
    public func prefetch(_ requests: [ImageRequest], progress: (@Sendable (Summary) -> Void)? = nil) async -> Summary {
        let urls = requests
        let id = ids.wrappingAdd(1, ordering: .relaxed).newValue
        let task = Task { [self] in await self.run(urls, progress: progress) }
        running.withLock { $0[id] = task }
        defer { _ = running.withLock { $0.removeValue(forKey: id) } }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Cancels every prefetch in progress.
    public func cancelAll() {
        for task in running.withLock({ Array($0.values) }) { task.cancel() }
    }

    private func run(_ urls: [ImageRequest], progress: (@Sendable (Summary) -> Void)?) async -> Summary {
        var summary = Summary(total: urls.count, finished: 0, skipped: 0, failed: 0)
        let manager = self.manager
        await withTaskGroup(of: ImageLoadSource?.self) { group in
            var next = 0
            func add() {
                guard next < urls.count else { return }
                let url = urls[next]
                next += 1
                group.addTask {
                    guard !Task.isCancelled else { return nil }
                    return try? await manager.loadImage(with: url).source
                }
            }
            for _ in 0..<min(maxConcurrentPrefetchCount, urls.count) { add() }
            for await source in group {
                switch source {
                case .network?: summary.finished += 1
                case .memory?, .disk?: summary.skipped += 1
                case nil: summary.failed += 1
                }
                progress?(summary)
                if !Task.isCancelled { add() }
            }
        }
        summary.failed = summary.total - summary.finished - summary.skipped
        return summary
    }
}
