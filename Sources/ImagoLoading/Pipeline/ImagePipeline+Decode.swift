// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImagePipeline {
    typealias DecodeSubscription = SharedTasks<ImageRequestKeys.DecodeKey, DecodedImage, ImageStageEvent>.Subscription
    typealias DecodeContext = SharedTasks<ImageRequestKeys.DecodeKey, DecodedImage, ImageStageEvent>.Context

    /// Joins (or starts) the decode of `request`; `fetched`, when given, is the source already in
    /// hand (the encode stage fetched it to plan), decoded without another fetch.
    func decode(
        _ request: ImageRequest, keys: ImageRequestKeys, priority: any PrioritySource, events: Bool,
        fetched: FetchedData? = nil
    ) -> DecodeSubscription {
        decodes.subscribe(keys.decode, priority: priority, accepts: events ? acceptAll : nil) { [self] (context: DecodeContext) async throws -> DecodedImage in
            try await self.runDecode(request, keys: keys, context: context, fetched: fetched)
        }
    }

    /// The decode stage: partial images while the bytes arrive (progressive requests), then the
    /// whole bytes through the same decode step, on the processing queue.
    private func runDecode(
        _ request: ImageRequest, keys: ImageRequestKeys, context: DecodeContext,
        fetched given: FetchedData?
    ) async throws -> DecodedImage {
        let step = DecodeStep(spec: keys.decode.spec, coders: configuration.coders)
        let fetched: FetchedData
        if let given {
            fetched = given
        } else {
            var partials: LatestWork<ReceivedBytes, Image>?
            if request.options.contains(.progressive) {
                let decoder = ProgressiveDecoder(step: step)
                partials = LatestWork(
                    queue: configuration.processingQueue, priority: context,
                    work: { decoder.partialImage($0.snapshot) }, deliver: { context.send(.partialImage($0)) })
            }
            // Progress travels only when somebody listens (a progressive load needs the partial bytes).
            let fetch = self.fetch(
                request, keys: keys, priority: context,
                events: partials != nil || context.hasEventSubscribers)
            do {
                fetched = try await fetch.value { event in
                    switch event {
                    case .progress(let p): context.send(.progress(p))
                    case .partialData(let d): partials?.offer(d)
                    }
                }
            } catch {
                await partials?.close()
                throw error
            }
            await partials?.close()
        }
        if let image = fetched.image { return try await prepare(image, fetched: fetched, step: step, context: context) }
        // A kept decode of these bytes that serves this size: resized by the process stage.
        let spec = keys.decode.spec
        let identity = intermediates.flatMap { _ in DecodedIntermediates.identity(of: spec, digest: fetched.digest ?? keys.decode.sourceDigest) }
        if let identity, let kept = intermediates?.image(for: identity, hint: spec.sizeHint) {
            decodesReused.add(1, ordering: .relaxed)
            await fetched.commitWrite(wait: request.options.contains(.waitStoreCache))
            return DecodedImage(image: kept, fetched: fetched, timings: fetched.timings)
        }
        let input = fetched.input
        let decoded = try await configuration.processingQueue.measured("imago.decode", priority: context) { try step.decode(input) }
        if let identity { intermediates?.keep(decoded.value, for: identity, hint: spec.sizeHint) }
        // The bytes decode: now they are worth keeping.
        await fetched.commitWrite(wait: request.options.contains(.waitStoreCache))
        var timings = fetched.timings
        timings.queueWait += decoded.wait
        timings.decode += decoded.run
        return DecodedImage(image: decoded.value, fetched: fetched, timings: timings)
    }

    /// The decode stage for an image given decoded: brought to the request's thumbnail size
    /// (or its scale-down limit) and pixel format on the processing queue, as a decode would.
    private func prepare(_ image: Image, fetched: FetchedData, step: DecodeStep, context: DecodeContext) async throws -> DecodedImage {
        let prepared = try await configuration.processingQueue.measured("imago.decode", priority: context) {
            try step.prepare(image)
        }
        var timings = fetched.timings
        timings.queueWait += prepared.wait
        timings.decode += prepared.run
        return DecodedImage(image: prepared.value, fetched: fetched, timings: timings)
    }
}
