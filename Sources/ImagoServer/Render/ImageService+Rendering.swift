// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoServiceURL
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An answer's image: encoded bytes, or the source sent as it is.
struct Rendered: Sendable {
    var body: ServiceResponse.Body
    var format: ImageFormat
    /// How long its decode, transform and encode took (none for a source sent as it is).
    var timings = ImageLoadTimings()

    /// The body's length in bytes.
    var byteCount: Int { body.count }
}

extension Rendered {
    /// The pipeline's encoded result as an answer's image.
    init(_ encoded: EncodedImageResult) {
        switch encoded.contents {
        case .data(let data): self.init(body: .bytes(ByteBuffer(bytes: data)), format: encoded.format, timings: encoded.timings)
        case .file(let file): self.init(body: .file(file), format: encoded.format, timings: encoded.timings)
        }
    }
}

extension ImageService {
    /// Answers with the processed image (or `/info`'s JSON) for a loaded source.
    /// `info` is what `/info` asks for, `nil` for an image.
    func answer(source: ServiceSource, options: ProcessingOptions, info wanted: InfoOptions?, headers: HTTPFields) async throws -> ServiceResponse {
        var timings = source.loaded.timings
        var response = try await answer(source: source, options: options, info: wanted, headers: headers, timings: &timings)
        if configuration.http.serverTiming, !timings.stages.isEmpty { response.headers[.serverTiming] = timings.serverTimingValue }
        return response
    }

    /// ``answer(source:options:info:headers:)``'s body, adding the render's stages to `timings`.
    private func answer(
        source: ServiceSource, options: ProcessingOptions, info wanted: InfoOptions?, headers: HTTPFields,
        timings: inout ImageLoadTimings
    ) async throws -> ServiceResponse {
        if options.raw, wanted == nil {
            return rawResponse(source: source, options: options, headers: headers)
        }
        if let wanted, let answer = try await videoInfoResponse(wanted, source: source, options: options, headers: headers) {
            return answer
        }
        let info = try decodableInfo(of: source)
        if let wanted {
            return try await infoResponse(info, wanted, source: source, options: options, headers: headers)
        }
        if let untouched = try await untouchedResponse(info, source: source, options: options, headers: headers) {
            return untouched
        }
        return try await renderedResponse(info, source: source, options: options, headers: headers, timings: &timings)
    }

    /// The source as it is (`raw`), typed by its own image content type, else by its bytes; a
    /// `Range` of it answered with its part (``ServiceRange``), as players ask for video.
    private func rawResponse(source: ServiceSource, options: ProcessingOptions, headers: HTTPFields) -> ServiceResponse {
        let sniffed = (try? source.loaded.input.format()) ?? nil
        let type = source.contentType.flatMap { $0.hasPrefix("image/") ? $0 : nil } ?? sniffed?.mimeType ?? "application/octet-stream"
        var response = imageResponse(
            Rendered(body: Self.body(of: source), format: sniffed ?? .jpeg), contentType: type,
            etag: ServiceHeaders.etag(source.digest, "raw"), source: source, options: options, varies: false, headers: headers)
        guard response.status == .ok else { return response }
        response.headers[.acceptRanges] = "bytes"
        let length = response.bodyCount
        ServiceRange.requested(headers, length: length, etag: response.headers[.eTag], lastModified: response.headers[.lastModified])?
            .apply(to: &response, length: length)
        return response
    }

    /// The source's header facts, for a format the coders here decode.
    ///
    /// - Throws: ``ServiceError`` when the bytes are not an image, or are one of a format not
    ///   decoded here.
    private func decodableInfo(of source: ServiceSource) throws -> ImageInfo {
        let info: ImageInfo
        do {
            info = try source.loaded.info()
        } catch {
            if case .decodingFailed(let coding) = error { throw ServiceError(coding) }
            throw ServiceError.notAnImage
        }
        guard coders.canDecode(info.format) else {
            throw ServiceError(.unsupportedFormat, "\(info.format.rawValue) sources cannot be decoded here")
        }
        return info
    }

    /// The source sent without processing: an SVG as SVG, or a format `skip_processing` names;
    /// `nil` when it is rendered.
    private func untouchedResponse(
        _ info: ImageInfo, source: ServiceSource, options: ProcessingOptions, headers: HTTPFields
    ) async throws -> ServiceResponse? {
        // A video's frame has no bytes of its own to send.
        guard source.loaded.image == nil else { return nil }
        // SVG sent as SVG (imgproxy's default when no format is asked): no processing, sanitised.
        // Not held to the resolution limit, as imgproxy does not hold it: nothing here draws it.
        if info.format == .svg, Self.sendsSVG(options, output: configuration.output) {
            return try await svgResponse(source: source, options: options, headers: headers)
        }
        // Sent untouched: checked before planning, so a format no encoder here writes passes too.
        let skipped = options.skipProcessing.union(configuration.output.skipProcessingFormats)
        if skipped.contains(info.format), options.format == nil || options.format == info.format {
            return imageResponse(
                Rendered(body: Self.body(of: source), format: info.format), contentType: info.format.mimeType,
                etag: ServiceHeaders.etag(source.digest, "skp"), source: source, options: options, varies: false, headers: headers)
        }
        return nil
    }

    /// The processed image (or a 304 when the client holds it), adding the render's stages to
    /// `timings`.
    private func renderedResponse(
        _ info: ImageInfo, source: ServiceSource, options: ProcessingOptions, headers: HTTPFields,
        timings: inout ImageLoadTimings
    ) async throws -> ServiceResponse {
        let digest = source.digest
        var plan = try RenderPlan(info: info, options: options, accept: headers[.accept], settings: render, coders: coders)

        // The watermark's pixels are part of the answer: a new watermark is a new ETag.
        let watermark = try await self.watermark(for: options)
        let request = { (plan: RenderPlan) in plan.request(from: source, info: info, options: options, watermark: watermark) }
        // The ETag names the bytes: it comes from the result's key in the pipeline (without the
        // source's name), which names everything that changes them.
        let etag = { (request: ImageRequest) in ServiceHeaders.etag(digest, self.manager.resultIdentity(for: request, source: source.loaded)) }
        var provisional = false
        // The efficient policy's smaller answer: made now and sent when smaller, or made in the
        // background once this one is sent. Neither for a client's private source: nothing of it is kept.
        var later: LaterAnswer?
        if !source.isPrivate,
            let efficient = EfficientDelivery(
                plan: plan, info: info, options: options, accept: headers[.accept], output: configuration.output, coders: coders)
        {
            (plan, provisional, later) = await efficientPlan(efficient, source: source, request: request, etag: etag)
        } else if !source.isPrivate, configuration.output.avifLater, plan.format == .avif, plan.negotiated {
            // Negotiated AVIF not made yet: a fast AVIF (or the next format) now, the AVIF in the background.
            let first = try await avifLaterPlan(
                plan, info: info, source: source, options: options, headers: headers, request: request, etag: etag)
            plan = first.plan
            provisional = first.provisional
        }
        var chosen = request(plan)
        // The smaller answer made now encodes this one's pixels: no second decode and transform.
        chosen.holdsProcessedImage = later?.now == true
        let tag = etag(chosen)
        if ServiceHeaders.isNotModified(headers, etag: tag, lastModified: source.lastModified) {
            return notModified(etag: tag, source: source, varies: plan.variesByAccept, expires: options.expires, provisional: provisional)
        }
        var rendered = try await render(chosen, source: source)
        var answered = (etag: tag, provisional: provisional)
        if let later, later.now,
            let made = await backgroundEncodes.make(
                etag(later.request), request: later.request, source: source.loaded, manager: manager, smallerThan: rendered.byteCount,
                family: later.family)
        {
            rendered = Rendered(made)
            answered = (etag(later.request), later.provisional)
        } else if let later {
            if later.now { manager.dropHeldImage(for: chosen, source: source.loaded) }
            backgroundEncodes.start(
                etag(later.request), request: later.request, source: source.loaded, manager: manager, smallerThan: rendered.byteCount,
                family: later.family)
        }
        timings = timings.adding(rendered.timings)
        return imageResponse(
            rendered, contentType: ServiceHeaders.contentType(of: rendered.format), etag: answered.etag, source: source,
            options: options, varies: plan.variesByAccept, headers: headers, provisional: answered.provisional)
    }

    /// `IMAGO_FORMAT_POLICY=efficient`: the plan answered now, whether that answer is
    /// provisional, and the smaller answer to make: `now`, on this request, to be sent instead
    /// when it is smaller (provisional as said), or in the background once this one is sent.
    ///
    /// The hot answer when the result is hot and it is stored; else the quick AVIF when it is
    /// stored (provisional while a hot one may still come); else the first, with the quick AVIF
    /// made on this request once the result or its source was asked before, and the hot answer
    /// made in the background once the result is hot. An answer made and found no smaller than
    /// the one it would replace is declined: never made again, and the one before it is final.
    /// A quick AVIF that lost more often than it won on this source is not tried at its other
    /// sizes (``BackgroundEncodes/losing(_:)``).
    private func efficientPlan(
        _ delivery: EfficientDelivery, source: ServiceSource, request: (RenderPlan) -> ImageRequest, etag: (ImageRequest) -> String
    ) async -> (plan: RenderPlan, provisional: Bool, later: LaterAnswer?) {
        guard let hotPlan = delivery.hot else { return (delivery.first, false, nil) }
        let hot = request(hotPlan), quick = delivery.later.map(request)
        let asks = backgroundEncodes.ask(etag(request(delivery.first)))
        let sourceAsks = backgroundEncodes.ask("source \(source.digest)")
        // A hot answer may still come (the hot plan differs from the quick one and was not
        // declined); it is due once the result is hot.
        let hotPossible = (quick.map { etag(hot) != etag($0) } ?? true) && !backgroundEncodes.declined(etag(hot))
        let hotDue = hotPossible && asks >= configuration.output.efficientHotAsks
        if hotDue, await manager.hasStoredResult(for: hot, source: source.loaded) { return (hotPlan, false, nil) }
        let hotLater = hotDue ? LaterAnswer(request: hot, now: false, provisional: false) : nil
        if let quickPlan = delivery.later, let quick, !backgroundEncodes.declined(etag(quick)) {
            if await manager.hasStoredResult(for: quick, source: source.loaded) { return (quickPlan, hotPossible, hotLater) }
            let family = "\(source.digest) \(quickPlan.format.rawValue)"
            if !backgroundEncodes.losing(family) {
                let due = asks >= 2 || sourceAsks >= 2
                return (delivery.first, true, due ? LaterAnswer(request: quick, now: true, provisional: hotPossible, family: family) : nil)
            }
        }
        // No quick answer for this client, or it was no smaller than the JPEG here (or mostly at
        // the source's other sizes): only the hot one may be.
        return (delivery.first, hotPossible, hotLater)
    }

    /// A negotiated AVIF with `IMAGO_AVIF_LATER`: the plan answered now, and whether that answer
    /// is provisional. The AVIF itself when it is stored already; else a fast AVIF (or the next
    /// format), with the AVIF made in the background.
    private func avifLaterPlan(
        _ plan: RenderPlan, info: ImageInfo, source: ServiceSource, options: ProcessingOptions, headers: HTTPFields,
        request: (RenderPlan) -> ImageRequest, etag: (ImageRequest) -> String
    ) async throws -> (plan: RenderPlan, provisional: Bool) {
        var later = plan
        later.setAVIFSpeed(configuration.output.avifLaterSpeed)
        // On one thread: the background takes its lane of the workers and no more.
        later.encoderThreads = 1
        let avif = request(later)
        if await manager.hasStoredResult(for: avif, source: source.loaded) {
            return (later, false)
        }
        backgroundEncodes.start(etag(avif), request: avif, source: source.loaded, manager: manager)
        switch configuration.output.avifLaterFirst {
        case .avif:
            return (later.fastAVIF(speed: OutputSettings.fastAVIFSpeed), true)
        case .next:
            let next = try RenderPlan(
                info: info, options: options, accept: headers[.accept], settings: render, coders: coders,
                excluding: [.avif])
            return (next, true)
        }
    }

    /// Decodes (shrinking on load where the result allows), transforms and encodes through the
    /// image manager's encode stage, which reads a stored result first and admits at most
    /// workers + 1 renders at once (``ImageManager/Configuration/maxConcurrentRenders``).
    private func render(_ request: ImageRequest, source: ServiceSource) async throws -> Rendered {
        do {
            return Rendered(try await manager.loadEncodedImage(with: request, source: source.loaded))
        } catch {
            throw ServiceError(error)
        }
    }

    /// Whether an SVG source goes out as SVG, as imgproxy decides: `f:svg`, or no format asked
    /// unless `IMAGO_ALWAYS_RASTERIZE_SVG` (which `skp:svg` overrides).
    static func sendsSVG(_ options: ProcessingOptions, output: OutputSettings) -> Bool {
        options.format == .svg
            || (options.format == nil
                && (!output.alwaysRasterizeSVG || options.skipProcessing.contains(.svg) || output.skipProcessingFormats.contains(.svg)))
    }

    /// The SVG source itself, sanitised (`IMAGO_SANITIZE_SVG`) on the work queue, in a decoder
    /// worker when SVG is isolated.
    private func svgResponse(source: ServiceSource, options: ProcessingOptions, headers: HTTPFields) async throws -> ServiceResponse {
        let sanitize = configuration.output.sanitizeSVG
        let etag = ServiceHeaders.etag(source.digest, sanitize ? "svg-sanitized" : "svg")
        if ServiceHeaders.isNotModified(headers, etag: etag, lastModified: source.lastModified) {
            return notModified(etag: etag, source: source, varies: false, expires: options.expires)
        }
        var body = Self.body(of: source)
        if sanitize {
            let input = source.loaded.input
            let limits = manager.configuration.decodingLimits
            do {
                let coders = self.coders
                let clean = try await workers.run { try coders.sanitizedSVG(try input.contents(), limits: limits) }
                body = .bytes(ByteBuffer(bytes: clean))
            } catch let error as ImageCodingError {
                throw ServiceError(error)
            }
        }
        // Every answer carries imgproxy's Content-Security-Policy, which forbids scripts too.
        return imageResponse(
            Rendered(body: body, format: .svg), contentType: ImageFormat.svg.mimeType, etag: etag, source: source, options: options,
            varies: false, headers: headers)
    }

    /// A source sent as it is: the cache's file streamed from where it lies, or the bytes in hand.
    static func body(of source: ServiceSource) -> ServiceResponse.Body {
        switch source.loaded.input.storage {
        case .file(let file): .file(file)
        case .data(let data): .bytes(ByteBuffer(bytes: data))
        }
    }
}

/// The efficient policy's smaller answer for a request: made `now`, on the request, and sent
/// instead when smaller (then `provisional` while a hotter one may come), or in the background
/// once the request's answer is sent; its trial counted for `family` (a source and a format).
struct LaterAnswer {
    var request: ImageRequest
    var now: Bool
    var provisional: Bool
    var family: String?
}
