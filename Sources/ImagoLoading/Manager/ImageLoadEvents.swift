// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// The events of one ``ImageTask``: progress, partial images, then ``ImageLoadEvent/completed(_:)``.
/// Iterating throws ``ImageLoadingError``; stopping early leaves the load.
public struct ImageLoadEvents: AsyncSequence, Sendable {
    /// Each event: progress, a partial image, then the completed load.
    public typealias Element = ImageLoadEvent
    /// What iterating throws: ``ImageLoadingError``.
    public typealias Failure = any Error

    let task: ImageTask

    /// Iterates the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let task: ImageTask
        var base: ImagePipeline.ProcessSubscription.Stream.AsyncIterator?
        var done = false
        /// Leaves the load when the last copy of the iterator goes away: stopping early leaves.
        let leave: LeaveOnRelease

        /// The next event, or `nil` after the completed load.
        ///
        /// - Throws: ``ImageLoadingError`` when the load fails.
        public mutating func next() async throws -> ImageLoadEvent? {
            guard !done else { return nil }
            if let finished = task.finished {
                done = true
                return .completed(await task.result(try finished.get()))
            }
            do {
                switch try await base?.next() {
                case .event(.progress(let p))?: return .progress(p)
                case .event(.partialImage(let image))?: return .partialImage(image)
                case .value(let p)?:
                    done = true
                    return .completed(await task.result(p))
                case nil:
                    done = true
                    return nil
                }
            } catch {
                done = true
                throw ImageLoadingError(error)
            }
        }
    }

    /// An iterator over the task's events; dropping the last one leaves the load.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(task: task, base: task.subscription?.stream.makeAsyncIterator(), leave: LeaveOnRelease(task))
    }
}

/// Cancels a task when released (a finished task ignores it).
final class LeaveOnRelease: Sendable {
    private let task: ImageTask

    init(_ task: ImageTask) {
        self.task = task
    }

    deinit { task.cancel() }
}
