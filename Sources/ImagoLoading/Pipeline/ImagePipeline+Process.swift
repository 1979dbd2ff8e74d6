// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoProcessing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImagePipeline {
    typealias ProcessSubscription = SharedTasks<ImageRequestKeys.ProcessKey, ProcessedImage, ImageStageEvent>.Subscription
    typealias ProcessContext = SharedTasks<ImageRequestKeys.ProcessKey, ProcessedImage, ImageStageEvent>.Context

    /// Joins (or starts) the whole load of `request`; `fetched`, when given, is the source already
    /// in hand, decoded without another fetch.
    func process(
        _ request: ImageRequest, keys: ImageRequestKeys, priority: any PrioritySource, events: Bool,
        fetched: FetchedData? = nil
    ) -> ProcessSubscription {
        processes.subscribe(keys.process, priority: priority, accepts: events ? acceptAll : nil) {
            [self] (context: ProcessContext) async throws -> ProcessedImage in
            try await self.runProcess(request, keys: keys, context: context, fetched: fetched)
        }
    }

    /// The process stage, and the boundary where errors are typed (once, for every subscriber)
    /// and the failed-URL list is kept.
    private func runProcess(
        _ request: ImageRequest, keys: ImageRequestKeys, context: ProcessContext,
        fetched: FetchedData?
    ) async throws -> ProcessedImage {
        do {
            let result = try await processBody(request, keys: keys, context: context, fetched: fetched)
            if result.source == .network, let url = request.url { failedURLs.remove(url) }
            return result
        } catch {
            let e = ImageLoadingError(error)
            if let url = request.url, FailedURLList.blocks(e) { failedURLs.insert(url) }
            throw e
        }
    }

    /// Memory once more (another load may have just stored it); the finished image on disk when
    /// the policy keeps it; the one held for this load (``ImageRequest/holdsProcessedImage``);
    /// else decode and transform, partial images too, and store (and hold, when asked).
    private func processBody(
        _ request: ImageRequest, keys: ImageRequestKeys, context: ProcessContext,
        fetched: FetchedData?
    ) async throws -> ProcessedImage {
        let options = request.options
        if keys.process.readsMemory, let image = configuration.memoryCache?.image(forKey: keys.imageKey) {
            return ProcessedImage(image: image, bytes: nil, source: .memory, revalidated: false)
        }
        let processedOnDisk = storesProcessed(request)
        if processedOnDisk, options.readsDisk, !options.contains(.refreshCached),
            let cached = try await readDisk(keys.imageKey, priority: context, strict: false),
            let processed = await decodeStoredImage(cached, keys: keys, context: context)
        {
            return processed
        }

        // The pixels another format of this result was just encoded from.
        let handoff = ProcessedHandoff.identity(of: keys, digest: fetched?.digest ?? keys.decode.sourceDigest)
        if let handoff, let fetched, let image = handoffs.take(handoff) {
            processedReused.add(1, ordering: .relaxed)
            return ProcessedImage(
                image: image, bytes: fetched.image == nil ? fetched.input : nil, source: fetched.source,
                revalidated: fetched.revalidated, timings: fetched.timings)
        }
        let decoded = try await decodeWithPartials(request, keys: keys, context: context, fetched: fetched)
        let (image, timings) = try await applyTransformers(to: decoded, request: request, keys: keys, context: context)
        await storeFinished(image, request: request, keys: keys, context: context, processedOnDisk: processedOnDisk)
        if request.holdsProcessedImage, let handoff { handoffs.hold(image, for: handoff) }
        return ProcessedImage(
            image: image, bytes: decoded.fetched.image == nil ? decoded.fetched.input : nil, source: decoded.fetched.source,
            revalidated: decoded.fetched.revalidated, timings: timings)
    }

    /// The processed-image disk step: decodes `cached` (the finished image as the disk keeps it)
    /// without the request's thumbnail, scale-down limit or size hint, and keeps it in memory;
    /// `nil` when it does not decode.
    private func decodeStoredImage(_ cached: CachedData, keys: ImageRequestKeys, context: ProcessContext) async -> ProcessedImage? {
        var spec = keys.decode.spec
        spec.thumbnail = nil
        spec.scaleDownLimitBytes = nil
        spec.sizeHint = nil
        let step = DecodeStep(spec: spec, coders: configuration.coders)
        let input = ImageInput(cached.data)
        guard let decoded = try? await configuration.processingQueue.measured("imago.decode", priority: context, { try step.decode(input) })
        else { return nil }
        if keys.process.writesMemory { configuration.memoryCache?.setImage(decoded.value, forKey: keys.imageKey) }
        var timings = ImageLoadTimings()
        timings.queueWait = decoded.wait
        timings.decode = decoded.run
        return ProcessedImage(image: decoded.value, bytes: input, source: .disk, revalidated: false, timings: timings)
    }

    /// The decode step: joins the decode of `request`, passing its progress on, and its partial
    /// images (transformed first, the newest at a time, when the request has transformers).
    private func decodeWithPartials(
        _ request: ImageRequest, keys: ImageRequestKeys, context: ProcessContext,
        fetched: FetchedData?
    ) async throws -> DecodedImage {
        let options = request.options
        let queue = configuration.processingQueue
        let transformers = request.transformers
        let animated = options.contains(.transformAnimatedImage)
        let limits = keys.decode.spec.limits
        var partials: LatestWork<Image, Image>?
        if !transformers.isEmpty, options.contains(.progressive) {
            partials = LatestWork(
                queue: queue, priority: context,
                work: { image in
                    try? Self.transform(image, with: transformers, animated: animated, limits: limits)
                }, deliver: { context.send(.partialImage($0)) })
        }
        // Events travel only when somebody listens: a caller of loadImage wants the result alone.
        let decode = self.decode(
            request, keys: keys, priority: context,
            events: options.contains(.progressive) || context.hasEventSubscribers, fetched: fetched)
        let decoded: DecodedImage
        do {
            decoded = try await decode.value { event in
                switch event {
                case .progress(let p): context.send(.progress(p))
                case .partialImage(let image):
                    if let partials { partials.offer(image) } else { context.send(.partialImage(image)) }
                }
            }
        } catch {
            await partials?.close()
            throw error
        }
        await partials?.close()
        return decoded
    }

    /// The transform step: the request's transformers applied to the decoded image (an animation
    /// only with ``ImageRequest/Options/transformAnimatedImage``) on the processing queue; the
    /// image, with the decode's timings and the transform's.
    private func applyTransformers(
        to decoded: DecodedImage, request: ImageRequest, keys: ImageRequestKeys, context: ProcessContext
    ) async throws -> (Image, ImageLoadTimings) {
        let transformers = request.transformers
        let animated = request.options.contains(.transformAnimatedImage)
        let limits = keys.decode.spec.limits
        var image = decoded.image
        var timings = decoded.timings
        if !transformers.isEmpty, !image.isAnimated || animated {
            let source = image
            // After its decode: ahead of decodes that start other loads.
            let transformed = try await configuration.processingQueue.measured("imago.transform", priority: context, continuing: true) {
                try Self.transform(source, with: transformers, animated: animated, limits: limits)
            }
            image = transformed.value
            timings.queueWait += transformed.wait
            timings.transform += transformed.run
        }
        return (image, timings)
    }

    /// The store step: the finished image into the memory cache, and its encoded bytes to the
    /// disk when the policy keeps processed images (waited for with
    /// ``ImageRequest/Options/waitStoreCache``).
    private func storeFinished(
        _ image: Image, request: ImageRequest, keys: ImageRequestKeys, context: ProcessContext, processedOnDisk: Bool
    ) async {
        let options = request.options
        if keys.process.writesMemory { configuration.memoryCache?.setImage(image, forKey: keys.imageKey) }
        if processedOnDisk, options.writesDisk, let writer {
            let serializer = configuration.serializer, finished = image
            if options.contains(.waitStoreCache) {
                let queue = configuration.processingQueue
                if let bytes = try? await queue.run(priority: context, continuing: true, { try serializer.serialize(finished) }) {
                    await writer.storeNow(CachedData(data: bytes), forKey: keys.imageKey)
                }
            } else {
                writer.store(forKey: keys.imageKey) { CachedData(data: try serializer.serialize(finished)) }
            }
        }
    }

    /// Applies `transformers` in order; a failure names the transformer. A lazy animation is
    /// decoded whole (within `limits`) before the first transformer that does not take one.
    static func transform(
        _ image: Image, with transformers: [any ImageTransforming], animated: Bool,
        limits: DecodingLimits
    ) throws -> Image {
        var out = image
        for t in transformers {
            if out.animation != nil, !t.acceptsLazyAnimations { out = try out.decodingAllFrames(limits: limits) }
            do {
                out = try t.transform(out, animated: animated)
            } catch {
                throw ImageLoadingError.processingFailed(
                    transformer: t.key,
                    underlying: error as? ImageCodingError ?? .invalidArgument(String(describing: error)))
            }
        }
        return out
    }
}
