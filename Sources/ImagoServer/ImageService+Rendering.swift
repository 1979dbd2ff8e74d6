#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCoders
import ImagoCore
import ImagoDiskIO
import ImagoLoading
import ImagoProcessing
import ImagoServiceURL
import HTTPTypes

/// An encoded result, shared by identical requests in flight.
struct Rendered: Sendable {
    var data: Data
    var format: ImageFormat
}

/// What one request will produce, decided from the header before any pixel is decoded.
struct RenderPlan: Sendable {
    var format: ImageFormat
    /// Every frame of an animation is kept.
    var animated: Bool
    /// The response depends on `Accept`.
    var variesByAccept: Bool
    var autoRotate: Bool
    var stripMetadata: Bool
    var keepCopyright: Bool
    var stripColorProfile: Bool
    var quality: Int
    var flattenColor: RGBA8?
    var limits: DecodingLimits
    var maxResultDimension: Int?

    /// Everything besides the options and the source that changes the bytes: part of the ETag.
    var recipe: String {
        "\(format.rawValue);anim=\(animated);ar=\(autoRotate);sm=\(stripMetadata);kcr=\(keepCopyright);scp=\(stripColorProfile);"
            + "q=\(quality);mrd=\(maxResultDimension ?? 0)"
    }
}

extension ImageService {
    /// Formats whose encoders here write animations (AVIF as a libavif image sequence).
    static let animatedFormats: Set<ImageFormat> = [.gif, .webp, .apng, .jxl, .avif]

    /// Answers with the processed image (or `/info`'s JSON) for a loaded source.
    func answer(source: ServiceSource, options: ProcessingOptions, info wantsInfo: Bool, headers: HTTPFields) async throws -> ServiceResponse {
        let digest = source.digest
        if options.raw, !wantsInfo {
            let data = try Self.contents(of: source)
            let sniffed = (try? source.loaded.input.format()) ?? nil
            let type = source.contentType.flatMap { $0.hasPrefix("image/") ? $0 : nil } ?? sniffed?.mimeType ?? "application/octet-stream"
            return imageResponse(Rendered(data: data, format: sniffed ?? .jpeg), contentType: type,
                                 etag: Self.etag(digest, "raw"), source: source, options: options, varies: false, headers: headers)
        }
        let info: ImageInfo
        do {
            info = try source.loaded.info()
        } catch {
            if case .decodingFailed(.unsupportedFormat(nil)) = error { throw ServiceError.unprocessable("the source is not an image") }
            if case .decodingFailed(let coding) = error { throw ServiceError(coding) }
            throw ServiceError.unprocessable("the source is not an image")
        }
        guard coders.canDecode(info.format) else {
            throw ServiceError(status: 422, code: "unsupported_format", message: "\(info.format.rawValue) sources cannot be decoded here")
        }
        if wantsInfo {
            return try infoResponse(info, source: source, digest: digest, headers: headers)
        }
        // Sent untouched: checked before planning, so a format no encoder here writes (SVG) passes too.
        if options.skipProcessing.contains(info.format), options.format == nil || options.format == info.format {
            return imageResponse(Rendered(data: try Self.contents(of: source), format: info.format), contentType: info.format.mimeType,
                                 etag: Self.etag(digest, "skp"), source: source, options: options, varies: false, headers: headers)
        }
        let plan = try plan(for: info, options: options, accept: headers[.accept])

        let etag = Self.etag(digest, options.canonicalPath + "|" + plan.recipe)
        if Self.matches(headers[.ifNoneMatch], etag) {
            return notModified(etag: etag, source: source, varies: plan.variesByAccept)
        }
        let rendered = try await render(source: source, info: info, options: options, plan: plan)
        return imageResponse(rendered, contentType: Self.contentType(of: rendered.format), etag: etag, source: source, options: options,
                             varies: plan.variesByAccept, headers: headers)
    }

    // MARK: Planning

    /// Checks the header against the limits and decides the output.
    ///
    /// - Throws: 422 ``ServiceError`` for a source over a limit or an output format that
    ///   cannot be written.
    func plan(for info: ImageInfo, options: ProcessingOptions, accept: String?) throws -> RenderPlan {
        let maxResolution = options.maxSourceResolution ?? configuration.maxSourceResolution
        let maxFrames = options.maxAnimationFrames ?? configuration.maxAnimationFrames
        let pixels = info.width.multipliedReportingOverflow(by: info.height)
        guard !pixels.overflow, Double(pixels.partialValue) <= maxResolution * 1_000_000 else {
            throw ServiceError(status: 422, code: "limit_exceeded",
                               message: "the source is \(info.width)x\(info.height), over the limit of \(maxResolution) megapixels")
        }
        let sourceAnimated = info.frameCount > 1 && options.page == nil

        var variesByAccept = false
        let format: ImageFormat
        if let asked = options.format {
            guard coders.canEncode(asked) else {
                throw ServiceError(status: 422, code: "unsupported_format", message: "\(asked.rawValue) results cannot be encoded here")
            }
            format = asked
        } else {
            var chosen: ImageFormat?
            if configuration.autoAVIF || configuration.autoWebP {
                variesByAccept = true
                let accepts = AcceptHeader(accept)
                if configuration.autoAVIF, !sourceAnimated, coders.canEncode(.avif), accepts.explicitlyAccepts("image/avif") {
                    chosen = .avif
                } else if configuration.autoWebP, coders.canEncode(.webp), accepts.explicitlyAccepts("image/webp") {
                    chosen = .webp
                }
            }
            if let chosen {
                format = chosen
            } else if coders.canEncode(info.format), !sourceAnimated || Self.animatedFormats.contains(info.format) {
                format = info.format
            } else if sourceAnimated {
                format = coders.canEncode(.webp) ? .webp : .gif
            } else {
                format = info.hasAlpha ? .png : .jpeg
            }
        }
        let animated = sourceAnimated && Self.animatedFormats.contains(format)
        if animated {
            guard info.frameCount <= maxFrames else {
                throw ServiceError(status: 422, code: "limit_exceeded",
                                   message: "the source has \(info.frameCount) frames, over the limit of \(maxFrames)")
            }
            let total = Double(pixels.partialValue) * Double(info.frameCount)
            guard total <= configuration.maxAnimationPixels * 1_000_000 else {
                throw ServiceError(status: 422, code: "limit_exceeded",
                                   message: "the animation's frames hold \(Int(total / 1_000_000)) megapixels, over the limit of \(configuration.maxAnimationPixels)")
            }
        }
        let quality = options.formatQuality[format] ?? (options.quality > 0 ? options.quality : nil)
            ?? configuration.formatQuality[format] ?? configuration.quality
        let limits = DecodingLimits(maxPixels: Int(min(Double(Int.max / 2), maxResolution * 1_000_000)),
                                    maxFrames: animated || options.page != nil ? maxFrames : 1_000_000,
                                    maxTotalFramePixels: Int(min(Double(Int.max / 2), configuration.maxAnimationPixels * 1_000_000)),
                                    maxBytes: Int.max,
                                    maxSourcePixels: Int(min(Double(Int.max / 2), maxResolution * 1_000_000)),
                                    // A vector render stops within the request's time.
                                    maxRenderSeconds: min(20, Self.seconds(configuration.requestTimeout)))
        return RenderPlan(format: format, animated: animated, variesByAccept: variesByAccept,
                          autoRotate: options.autoRotate ?? configuration.autoRotate,
                          stripMetadata: options.stripMetadata ?? configuration.stripMetadata,
                          keepCopyright: options.keepCopyright ?? configuration.keepCopyright,
                          stripColorProfile: options.stripColorProfile ?? configuration.stripColorProfile,
                          quality: quality,
                          flattenColor: options.background ?? (Self.hasAlpha(format) ? nil : RGBA8(r: 255, g: 255, b: 255)),
                          limits: limits,
                          maxResultDimension: options.maxResultDimension ?? configuration.maxResultDimension)
    }

    static func hasAlpha(_ format: ImageFormat) -> Bool { format != .jpeg }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    // MARK: Rendering

    /// The request that makes the answer: the source, the imgproxy options as one transformer,
    /// the decode's shrink-on-load hint, and the output the plan chose. The pipeline's encode
    /// stage decodes, transforms and encodes it on the worker queue, shared by every identical
    /// request in flight (and, for 2 s, by those that follow), or converts it in rows when
    /// nothing changes a pixel.
    func renderRequest(source: ServiceSource, info: ImageInfo, options: ProcessingOptions, plan: RenderPlan) -> ImageRequest {
        var upright = plan.autoRotate ? info.orientation.orientedSize(info.pixelSize) : info.pixelSize
        if options.rotate % 180 == 90 { upright = PixelSize(width: upright.height, height: upright.width) }
        // A page is measured as decoded: the header gives only the first page's size, and a
        // TIFF's pages each have their own (so no shrink-on-load hint either).
        let pageAlone = options.page != nil
        let transformer = ServiceTransformer(options: options, autoRotate: plan.autoRotate,
                                             sourceSize: pageAlone ? PixelSize(width: 0, height: 0) : upright,
                                             flattenColor: plan.flattenColor, maxResultDimension: plan.maxResultDimension)
        var request = source.request
        request.transformers = [transformer]
        request.options = [.transformAnimatedImage, .retryFailed]
        // A vector (SVG, PDF) is drawn at the hint's size: crisp at any scale, enlarging too.
        if !pageAlone, var hint = ServiceGeometry(options: options).decodeHint(sourceWidth: upright.width, sourceHeight: upright.height,
                                                                               vector: info.format.isVector) {
            // The hint is in the decoder's (stored) orientation.
            if (plan.autoRotate && info.orientation.swapsDimensions) != (options.rotate % 180 == 90) {
                hint = PixelSize(width: hint.height, height: hint.width)
            }
            request.decodeSizeHint = info.format == .jpeg
                ? ServiceGeometry.reductionHint(hint, source: PixelSize(width: info.width, height: info.height)) : hint
        }
        // An animation's frames are decoded one at a time as the transformer takes them.
        request.frames = plan.animated ? .lazy : .first
        // One page alone: a TIFF page at its own size, an animation's frame composited on demand.
        request.page = options.page
        request.colorManagement = plan.stripColorProfile
        request.limits = plan.limits
        request.output = ImageRequest.Output(
            format: plan.format,
            options: EncodeOptions(quality: Double(plan.quality) / 100, backgroundColor: plan.flattenColor ?? RGBA8(r: 255, g: 255, b: 255)),
            metadata: !plan.stripMetadata ? .keep : plan.keepCopyright ? .copyrightOnly : .strip,
            keepsColorProfile: !plan.stripColorProfile, maxBytes: options.maxBytes > 0 ? options.maxBytes : nil,
            passesThroughUnchanged: false)
        return request
    }

    /// Decodes (shrinking on load where the result allows), transforms and encodes through the
    /// image manager's encode stage.
    private func render(source: ServiceSource, info: ImageInfo, options: ProcessingOptions, plan: RenderPlan) async throws -> Rendered {
        let request = renderRequest(source: source, info: info, options: options, plan: plan)
        do {
            let encoded = try await manager.loadEncodedImage(with: request, source: source.loaded)
            return Rendered(data: try encoded.data(), format: encoded.format)
        } catch let error as ImageLoadingError {
            throw ServiceError(error)
        } catch {
            throw ServiceError(status: 500, code: "source_unreadable", message: "the cached source cannot be read")
        }
    }

    /// All of a source's bytes, for the answers that send them as they are (a cached file mapped).
    ///
    /// - Throws: 500 ``ServiceError`` when the cached file cannot be read.
    static func contents(of source: ServiceSource) throws -> Data {
        do {
            return try source.loaded.input.contents()
        } catch {
            throw ServiceError(status: 500, code: "source_unreadable", message: "the cached source cannot be read")
        }
    }

    // MARK: Validators

    /// A strong ETag over the source's digest and everything that shapes the result.
    static func etag(_ digest: UInt64, _ recipe: String) -> String {
        let r = Checksum.fast64(Data((recipe + "|" + version).utf8))
        return "\"\(hex(digest))\(hex(r))\""
    }

    private static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// Whether `If-None-Match` names `etag` (or is `*`); weak comparison, as RFC 9110 asks for GET.
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        for item in header.split(separator: ",") {
            var tag = item.trimmingSpaces
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == etag { return true }
        }
        return false
    }

    static func contentType(of format: ImageFormat) -> String {
        format == .apng ? "image/png" : format.mimeType
    }
}
