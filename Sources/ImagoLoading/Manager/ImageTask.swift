// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    ///   ``ImageLoadingError/processingFailed(transformer:underlying:)``, ``ImageLoadingError/notCached``,
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
        return ImageLoadResult(
            image: p.image, data: data, source: p.source, request: request, cacheKey: cacheKey,
            revalidated: p.revalidated, timings: p.timings)
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
