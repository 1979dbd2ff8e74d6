#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ImagoCore

/// One caller's load (Nuke's `ImageTask`): its priority, its events or result, and a way to
/// leave. Made by ``ImageManager/imageTask(with:)``.
///
/// Identical loads share their work; this task is one subscriber of it. Cancelling leaves the
/// shared work to the other subscribers, and stops it when none remain. Raising the priority
/// moves the download and the decode it waits on up their queues.
///
/// Read either ``events`` or ``value``, once.
public final class ImageTask: Sendable {
    /// The request.
    public let request: ImageRequest
    /// The image's memory-cache key.
    public let cacheKey: String

    enum Outcome: Sendable {
        case running(ImagePipeline.ProcessSubscription)
        case finished(Result<ProcessedImage, ImageLoadingError>)
    }

    private let outcome: Outcome
    private let priorityCell: PriorityCell
    private let pipeline: ImagePipeline
    private let dataKey: String

    init(request: ImageRequest, keys: ImageRequestKeys, outcome: Outcome, priority: PriorityCell, pipeline: ImagePipeline) {
        self.request = request
        cacheKey = keys.imageKey
        dataKey = keys.dataKey
        self.outcome = outcome
        priorityCell = priority
        self.pipeline = pipeline
    }

    /// This caller's priority; the shared work runs at its most urgent subscriber's.
    public var priority: ImagePriority {
        get { priorityCell.currentPriority }
        set { priorityCell.set(newValue) }
    }

    /// Leaves the load: this task ends with ``ImageLoadingError/cancelled``; the shared work goes
    /// on for other subscribers and stops without them.
    public func cancel() {
        if case .running(let subscription) = outcome { subscription.cancel() }
    }

    /// Progress, partial images (``ImageRequest/Options/progressive``), then the result.
    public var events: ImageLoadEvents { ImageLoadEvents(task: self) }

    /// Waits for the result. Cancelling the calling task leaves the load.
    ///
    /// - Throws: ``ImageLoadingError``: the download's errors, ``ImageLoadingError/decodingFailed(_:)``,
    ///   ``ImageLoadingError/processingFailed(transformer:reason:)``, ``ImageLoadingError/notCached``,
    ///   ``ImageLoadingError/blockedFailedURL(_:)``, ``ImageLoadingError/cancelled``.
    public var value: ImageLoadResult {
        get async throws(ImageLoadingError) {
            let processed: ProcessedImage
            switch outcome {
            case .finished(let r): processed = try r.get()
            case .running(let subscription):
                do { processed = try await subscription.value() } catch { throw ImageLoadingError(error) }
            }
            return await result(processed)
        }
    }

    func result(_ p: ProcessedImage) async -> ImageLoadResult {
        var data = p.data
        if p.source == .memory, data == nil, request.options.contains(.queryMemoryData) {
            data = try? await pipeline.readDisk(dataKey, priority: priorityCell, strict: false)?.data
        }
        return ImageLoadResult(image: p.image, data: data, source: p.source, request: request, cacheKey: cacheKey,
                               revalidated: p.revalidated)
    }

    var subscription: ImagePipeline.ProcessSubscription? {
        if case .running(let s) = outcome { return s }
        return nil
    }

    var finished: Result<ProcessedImage, ImageLoadingError>? {
        if case .finished(let r) = outcome { return r }
        return nil
    }
}

/// The events of one ``ImageTask``: progress, partial images, then ``ImageLoadEvent/completed(_:)``.
/// Iterating throws ``ImageLoadingError``; stopping early leaves the load.
public struct ImageLoadEvents: AsyncSequence, Sendable {
    public typealias Element = ImageLoadEvent
    public typealias Failure = any Error

    let task: ImageTask

    /// Iterates the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let task: ImageTask
        var base: ImagePipeline.ProcessSubscription.Stream.AsyncIterator?
        var done = false
        /// Leaves the load when the last copy of the iterator goes away: stopping early leaves.
        let leave: LeaveOnRelease

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
