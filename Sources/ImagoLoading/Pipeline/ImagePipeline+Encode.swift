// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoProcessing
import Synchronization
import Tracing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImagePipeline {
    typealias EncodeSubscription = SharedTasks<ImageRequestKeys.EncodeKey, EncodedImage, Never>.Subscription
    typealias EncodeContext = SharedTasks<ImageRequestKeys.EncodeKey, EncodedImage, Never>.Context

    /// Joins (or starts) the encode of `request`'s output; `fetched`, when given, is the source
    /// the caller already fetched (``ImageManager/loadSource(with:progress:)``).
    func encode(_ request: ImageRequest, keys: ImageRequestKeys, priority: any PrioritySource, fetched: FetchedData?) -> EncodeSubscription {
        encodes.subscribe(keys.encode, priority: priority) { [self] (context: EncodeContext) async throws -> EncodedImage in
            try await withSpan("imago.load") { span in
                span.attributes["imago.output"] = request.output.format?.rawValue ?? "auto"
                let result = try await self.encodeTraced(request, keys: keys, context: context, fetched: fetched)
                span.attributes["imago.method"] = result.method.rawValue
                return result
            }
        }
    }

    /// The encode stage's body, inside its span: the failed-URL list kept, results retained.
    private func encodeTraced(
        _ request: ImageRequest, keys: ImageRequestKeys, context: EncodeContext,
        fetched: FetchedData?
    ) async throws -> EncodedImage {
        do {
            encodesStarted.add(1, ordering: .relaxed)
            let result = try await self.encodeBody(request, keys: keys, context: context, fetched: fetched)
            if result.source == .network, let url = request.url { failedURLs.remove(url) }
            if let results {
                let cost = if case .data(let data) = result.contents { data.count } else { 1 }
                _ = results.setValue(result, forKey: keys.encode, cost: cost)
            }
            return result
        } catch {
            let e = ImageLoadingError(error)
            if let url = request.url, FailedURLList.blocks(e) { failedURLs.insert(url) }
            throw e
        }
    }

    /// The encode stage: a finished image already in memory is encoded; otherwise the source is
    /// fetched first (when the caller has not), a result stored from the same bytes is read
    /// (``ImageManager/Configuration/resultCache``), and else the header decides the cheapest way:
    /// passed through untouched, converted in rows with no bitmap, or decoded (in the exact
    /// pixel format when nothing resamples), transformed and encoded, the encode right after the
    /// transform, ahead of decodes that start other loads.
    private func encodeBody(
        _ request: ImageRequest, keys: ImageRequestKeys, context: EncodeContext,
        fetched given: FetchedData?
    ) async throws -> EncodedImage {
        let unprocessed = Self.changesNoPixels(request)
        if given == nil, !unprocessed, keys.process.readsMemory, let image = configuration.memoryCache?.image(forKey: keys.imageKey) {
            return try await rendering(context) {
                try await encode(image, request: request, context: context, source: .memory, revalidated: false, timings: ImageLoadTimings())
            }
        }
        var fetched = given
        // With only the processed image on disk there may be no original to fetch: let the
        // process stage read what there is.
        if fetched == nil, !(storesProcessed(request) && configuration.dataCachePolicy == .processedImages) {
            fetched = try await fetch(request, keys: keys, priority: context, events: false).value()
        }
        // A result made before from these very bytes: read, not made again.
        let stored = fetched.flatMap { self.resultKey(request, keys: keys, fetched: $0) }
        if let stored, let fetched, keys.fetch.readsDisk,
            let result = try await storedResult(stored, fetched: fetched, context: context)
        {
            return result
        }
        let made = try await rendering(context) {
            try await make(request, keys: keys, context: context, fetched: fetched, given: given, unprocessed: unprocessed)
        }
        if let stored, keys.fetch.writesDisk { store(made, forKey: stored) }
        return made
    }

    /// Runs `body` in one of the render slots (``renders``): the admission of every caller of
    /// the encode stage, a service's requests and a batch's loads alike.
    private func rendering<T>(_ context: EncodeContext, _ body: () async throws -> T) async throws -> T {
        try await renders.enter(priority: context)
        defer { renders.leave() }
        return try await body()
    }

    /// The encode stage's work once the source is in hand and no stored result serves: passed
    /// through, streamed, or decoded, transformed and encoded.
    private func make(
        _ request: ImageRequest, keys: ImageRequestKeys, context: EncodeContext, fetched: FetchedData?,
        given: FetchedData?, unprocessed: Bool
    ) async throws -> EncodedImage {
        var request = request
        var keys = keys
        if let fetched, let info = try? fetched.input.info(coders: configuration.coders) {
            let output = request.output
            if unprocessed, output.passesThroughUnchanged, Self.passesThrough(request, info: info, byteCount: fetched.input.byteCount) {
                await fetched.commitWrite(wait: request.options.contains(.waitStoreCache))
                let contents: EncodedImageResult.Contents
                switch fetched.input.storage {
                case .data(let data): contents = .data(data)
                case .file(let file): contents = .file(file)
                }
                return EncodedImage(
                    contents: contents, format: info.format, pixelSize: info.pixelSize, source: fetched.source,
                    revalidated: fetched.revalidated, method: .passedThrough, timings: fetched.timings)
            }
            let effect = request.transformers.map { $0.pixelEffect(on: info) }.max() ?? .none
            let reduces =
                request.thumbnail != nil || request.scaleDownLimitBytes != nil || request.decodeSizeHint != nil || request.embeddedThumbnail
                || request.gainMap  // rows carry no gain map
            if effect == .none, !reduces, request.page == nil, configuration.streamsConversions,
                let streamed = try await streamed(fetched, info: info, request: request, context: context)
            {
                await fetched.commitWrite(wait: request.options.contains(.waitStoreCache))
                encodesStreamed.add(1, ordering: .relaxed)
                return streamed
            }
            // Nothing resamples: decode to the format that holds the source exactly.
            if request.pixelFormat == .argb32Premultiplied, !reduces, effect < .resamples {
                request.pixelFormat = DecodePlanner.pixelFormat(for: info, resamples: false)
                keys = self.keys(for: request)
                if let digest = given?.digest { keys = keys.fetched(digest: digest) }
            }
        }
        let processed = try await process(request, keys: keys, priority: context, events: false, fetched: fetched).value()
        return try await encode(
            processed.image, request: request, context: context, source: processed.source,
            revalidated: processed.revalidated, timings: processed.timings)
    }

    /// Encodes a finished image as the request's output asks, on the processing queue, ahead of
    /// work that starts something new: the bitmap is let go as soon as it can be.
    private func encode(
        _ image: Image, request: ImageRequest, context: EncodeContext, source: ImageLoadSource,
        revalidated: Bool, timings: ImageLoadTimings
    ) async throws -> EncodedImage {
        let coders = configuration.coders
        let output = request.output
        let encoded = try await configuration.processingQueue.measured("imago.encode", priority: context, continuing: true) {
            () throws -> EncodedImage in
            var out = image
            out.metadata = output.written(image.metadata)
            let format = output.format ?? coders.preferredEncodingFormat(for: out)
            var options = output.options
            do {
                var data = try coders.encode(out, as: format, options: options)
                // A byte budget: a lower quality until the result fits (lossy formats only).
                if let maxBytes = output.maxBytes, ImageRequest.Output.lossyFormats.contains(format) {
                    var quality = Int((options.quality * 100).rounded())
                    while let next = ImageRequest.Output.nextQuality(after: quality, bytes: data.count, budget: maxBytes) {
                        quality = next
                        options.quality = Double(quality) / 100
                        data = try coders.encode(out, as: format, options: options)
                    }
                }
                return EncodedImage(
                    contents: .data(data), format: format, pixelSize: out.pixelSize, source: source,
                    revalidated: revalidated, method: .rendered)
            } catch let error as ImageCodingError {
                throw ImageLoadingError.encodingFailed(error)
            }
        }
        var result = encoded.value
        result.timings = timings
        result.timings.queueWait += encoded.wait
        result.timings.encode += encoded.run
        return result
    }

    /// A conversion that leaves every pixel as decoded, in rows from decoder to encoder on one
    /// worker (`StreamedTranscoding`), or `nil` when this one cannot stream.
    private func streamed(
        _ fetched: FetchedData, info: ImageInfo, request: ImageRequest,
        context: EncodeContext
    ) async throws -> EncodedImage? {
        let output = request.output
        guard output.maxBytes == nil, info.frameCount == 1 else { return nil }
        let format = output.format ?? info.format
        guard format == .jpeg || format == .webp || format == .bmp,
            StreamedTranscoding.streams(info, to: format, options: output.options, coders: configuration.coders)
        else { return nil }
        var decodeOptions = DecodeOptions(colorManagement: request.colorManagement)
        decodeOptions.limits = request.limits ?? configuration.decodingLimits
        let decoding = decodeOptions, coders = configuration.coders, input = fetched.input
        let streamed = try await configuration.processingQueue.measured("imago.transcode", priority: context) { () throws -> Data? in
            try StreamedTranscoding.transcode(
                input, to: format, options: output.options, decodeOptions: decoding, coders: coders,
                metadata: { output.written($0) })
        }
        var timings = fetched.timings
        timings.queueWait += streamed.wait
        timings.decode += streamed.run
        return streamed.value.map {
            EncodedImage(
                contents: .data($0), format: format, pixelSize: info.pixelSize, source: fetched.source,
                revalidated: fetched.revalidated, method: .streamed, timings: timings)
        }
    }

    /// Whether the request leaves the decoded pixels as they are stored: no thumbnail, scale-down,
    /// hint, page, transformer or first-frame choice.
    static func changesNoPixels(_ request: ImageRequest) -> Bool {
        request.thumbnail == nil && request.scaleDownLimitBytes == nil && request.decodeSizeHint == nil && !request.embeddedThumbnail
            && request.transformers.isEmpty && request.page == nil && request.frames != .first
    }

    /// Whether the fetched bytes already are what the output asks for.
    static func passesThrough(_ request: ImageRequest, info: ImageInfo, byteCount: Int) -> Bool {
        let output = request.output
        let sameFormat = output.format == nil || output.format == info.format || (output.format == .png && info.format == .apng)
        return sameFormat && output.metadata == .keep && output.keepsColorProfile && (output.maxBytes.map { byteCount <= $0 } ?? true)
    }
}
