// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoLoading
import Synchronization

/// A ``DataLoading`` for `mock://` URLs that serves registered bytes from memory, counts every
/// load, and can hold a load until the test lets it go: pipeline tests without a socket.
///
/// - A registered path answers 200 with its bytes in `chunks` pieces; an unknown one answers 404.
/// - ``hold(_:)`` makes loads of a path wait after their response head until ``release(_:)``,
///   so a test can cancel or reprioritize them while they run.
/// - A load whose task is cancelled ends with `CancellationError`, counted in ``cancelledCount``.
public final class MockDataLoader: DataLoading {
    private struct Entry {
        var data: Data
        var chunks: Int
        var delay: Duration?
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var counts: [String: Int] = [:]
        var order: [String] = []
        var held: Set<String> = []
        var cancelled = 0
        var running = 0
    }

    private let state = Mutex(State())

    /// Creates a loader with nothing registered.
    public init() {}

    /// The URL of `path` (which starts with `/`).
    public func url(_ path: String) -> URL {
        guard let url = URL(string: "mock://test\(path)") else { preconditionFailure("'\(path)' does not make a URL") }
        return url
    }

    /// Serves `data` at `path` in `chunks` pieces, `delay` apart.
    public func register(_ path: String, data: Data, chunks: Int = 1, delay: Duration? = nil) {
        state.withLock { $0.entries[path] = Entry(data: data, chunks: max(1, chunks), delay: delay) }
    }

    /// Loads of `path` wait after their head until ``release(_:)``.
    public func hold(_ path: String) { _ = state.withLock { $0.held.insert(path) } }

    /// Lets loads of `path` go on.
    public func release(_ path: String) { _ = state.withLock { $0.held.remove(path) } }

    /// Loads started for `path`.
    public func count(_ path: String) -> Int { state.withLock { $0.counts[path] ?? 0 } }

    /// The paths of the loads started, in order.
    public var startOrder: [String] { state.withLock { $0.order } }

    /// Loads started in all.
    public var totalCount: Int { state.withLock { $0.counts.values.reduce(0, +) } }

    /// Loads that ended because their task was cancelled.
    public var cancelledCount: Int { state.withLock { $0.cancelled } }

    /// Loads running now.
    public var runningCount: Int { state.withLock { $0.running } }

    /// `true` for `mock://` URLs.
    public func canLoad(_ url: URL) -> Bool { url.scheme == "mock" }

    /// Answers with the bytes registered at the URL's path (404 when none are), held or delayed as
    /// told; counts the load.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled; the callbacks' errors.
    public func load(
        _ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void,
        chunk: (Data) throws -> Void
    ) async throws {
        let path = request.url.path
        let entry = state.withLock { s -> Entry? in
            s.counts[path, default: 0] += 1
            s.order.append(path)
            s.running += 1
            return s.entries[path]
        }
        defer { state.withLock { $0.running -= 1 } }
        do {
            guard let entry else {
                try response(DataLoadResponse(url: request.url, statusCode: 404, headers: ["content-length": "0"]))
                return
            }
            try response(
                DataLoadResponse(
                    url: request.url, statusCode: 200,
                    headers: [
                        "content-length": "\(entry.data.count)", "content-type": "image/png",
                        "etag": "\"\(entry.data.count)\""
                    ]))
            while state.withLock({ $0.held.contains(path) }) { try await Task.sleep(for: .milliseconds(2)) }
            let size = (entry.data.count + entry.chunks - 1) / entry.chunks
            var offset = 0
            while offset < entry.data.count {
                if let delay = entry.delay { try await Task.sleep(for: delay) }
                try Task.checkCancellation()
                let end = min(entry.data.count, offset + size)
                try chunk(entry.data.subdata(in: offset..<end))
                offset = end
            }
        } catch is CancellationError {
            state.withLock { $0.cancelled += 1 }
            throw CancellationError()
        }
    }
}
