// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoProcessing
import ImagoServiceURL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    /// The embedded thumbnail decoded instead of the image (`enforce_thumbnail`), its size.
    var embeddedThumbnail: PixelSize?
    /// libavif's speed for an AVIF result (`IMAGO_AVIF_SPEED`, or `IMAGO_AVIF_LATER_SPEED` for
    /// one made in the background).
    var avifSpeed: Int?
    /// The AVIF quality was mapped from JPEG's (`IMAGO_QUALITY_MAPPING=visual`), so another
    /// speed takes another quality (see ``setAVIFSpeed(_:)``).
    var qualityFollowsSpeed = false
    /// libwebp's method for a WebP result (`IMAGO_WEBP_EFFORT`).
    var webpEffort: Int?
    /// The encoder's threads (`EncodeOptions.maxThreads`): 1 for a background encode, which
    /// must not take more than its lane. Not in the result key or the ETag: the bytes are the same.
    var encoderThreads: Int?
    /// A progressive JPEG (`IMAGO_JPEG_PROGRESSIVE`, the efficient policy's first answers).
    var progressive = false
    /// A JPEG's quantisation tables (`IMAGO_JPEG_QUANTIZATION`, the efficient policy's first answers).
    var jpegQuantization = EncodeOptions.JPEGQuantization.standard
    /// The format was chosen by `Accept` (`IMAGO_AUTO_*`, `IMAGO_ENFORCE_*`), not named by the URL.
    var negotiated = false
    /// The faces the crop keeps (`g:obj`, and `g:sm` with `IMAGO_SMART_CROP_FACE_DETECTION`).
    var faces: ServiceFaces?
    /// A JPEG source's Ultra HDR gain map is read and kept in the JPEG result (`preserve_hdr`,
    /// `IMAGO_PRESERVE_HDR`).
    var keepsGainMap = false
    /// The resize works in linear light (`IMAGO_USE_LINEAR_COLORSPACE`).
    var linearLight = false
    /// The profile the result is converted into and carries (`color_profile`), for formats that
    /// embed one.
    var colorProfile: ServiceColorProfile?
    /// A vector source larger than the resolution limit, drawn as though it were this size
    /// (its own shrunk to the limit, imgproxy's `vectorGuardScale`); `nil` otherwise.
    var vectorBase: PixelSize?

    /// Encodes an AVIF at libavif's `speed`, its quality moved with it when it was mapped from
    /// JPEG's, so the score stays the same.
    mutating func setAVIFSpeed(_ speed: Int) {
        let old = avifSpeed ?? AVIFCoder.defaultSpeed
        avifSpeed = speed
        if qualityFollowsSpeed {
            let offset = OutputSettings.QualityMapping.avifSpeedOffset
            quality = min(100, max(1, quality + offset(speed) - offset(old)))
        }
    }

    /// The fast AVIF answered while this one is made in the background: the same result at
    /// libavif's `speed`, its quality raised by as much as that speed needs for the same score
    /// (`QualityMapping.avifSpeedOffset`), on the encoder's usual threads.
    func fastAVIF(speed: Int) -> RenderPlan {
        let offset = OutputSettings.QualityMapping.avifSpeedOffset
        var fast = self
        fast.quality = min(100, quality + offset(speed) - offset(avifSpeed ?? AVIFCoder.defaultSpeed))
        fast.avifSpeed = speed
        fast.encoderThreads = nil
        return fast
    }

    /// Formats whose encoders here write animations (AVIF as a libavif image sequence).
    static let animatedFormats: Set<ImageFormat> = [.gif, .webp, .apng, .jxl, .avif]

    /// The memberwise initialiser.
    init(
        format: ImageFormat, animated: Bool, variesByAccept: Bool, autoRotate: Bool, stripMetadata: Bool, keepCopyright: Bool,
        stripColorProfile: Bool, quality: Int, flattenColor: RGBA8?, limits: DecodingLimits, maxResultDimension: Int?
    ) {
        self.format = format
        self.animated = animated
        self.variesByAccept = variesByAccept
        self.autoRotate = autoRotate
        self.stripMetadata = stripMetadata
        self.keepCopyright = keepCopyright
        self.stripColorProfile = stripColorProfile
        self.quality = quality
        self.flattenColor = flattenColor
        self.limits = limits
        self.maxResultDimension = maxResultDimension
    }

    /// Checks the header against the limits and decides the output.
    ///
    /// - Throws: 422 ``ServiceError`` for a source over a limit or an output format that
    ///   cannot be written.
    /// `excluding` names formats negotiation may not choose (AVIF while it is made in the background).
    init(
        info: ImageInfo, options: ProcessingOptions, accept: String?, settings: Settings,
        coders: ImageCoderRegistry, excluding: Set<ImageFormat> = []
    ) throws {
        // 0 in the URL: the service's limit.
        let sourceAnimated = info.frameCount > 1 && options.page == nil
        let chosen = try Self.choose(
            info: info, options: options, accept: accept, settings: settings, coders: coders, excluding: excluding)
        let format = chosen.format
        let variesByAccept = settings.output.negotiatesByAccept
        let animated = sourceAnimated && Self.animatedFormats.contains(format)
        // An animation kept animated is held to the frame limit when there is one (imgproxy's
        // max_animation_frame_resolution), else every source to the resolution limit.
        let frameLimit =
            animated
            ? options.maxAnimationFrameResolution.flatMap { $0 > 0 ? $0 : nil } ?? settings.security.maxAnimationFrameResolution : nil
        let maxResolution = frameLimit ?? options.maxSourceResolution.flatMap { $0 > 0 ? $0 : nil } ?? settings.security.maxSourceResolution
        let maxFrames = options.maxAnimationFrames ?? settings.security.maxAnimationFrames
        // A vector is drawn at any size: one over the limit is drawn at the limit, not refused.
        let pixels =
            info.format.isVector
            ? info.width.multipliedReportingOverflow(by: info.height)
            : try Self.checkResolution(info, limit: maxResolution, frames: frameLimit != nil)
        if animated {
            try Self.checkAnimation(info, framePixels: pixels.partialValue, maxFrames: maxFrames, settings: settings)
        }
        let mapping = settings.output.qualityMapping
        let mapped = { (q: Int) in mapping.quality(q, for: format, avifSpeed: settings.output.avifSpeed) }
        // imgproxy's order: the URL's `q`, then its `fq` for the format, then the settings'.
        let explicit = options.quality > 0 ? nil : options.formatQuality[format] ?? settings.output.formatQuality[format]
        let quality = explicit ?? mapped(options.quality > 0 ? options.quality : settings.output.quality)
        let limits = Self.decodingLimits(
            maxResolution: maxResolution, maxFrames: animated || options.page != nil ? maxFrames : 1_000_000, settings: settings)
        self.init(
            format: format, animated: animated, variesByAccept: variesByAccept,
            autoRotate: options.autoRotate ?? settings.output.autoRotate,
            stripMetadata: options.stripMetadata ?? settings.output.stripMetadata,
            keepCopyright: options.keepCopyright ?? settings.output.keepCopyright,
            stripColorProfile: options.stripColorProfile ?? settings.output.stripColorProfile,
            quality: quality,
            flattenColor: options.background ?? (Self.hasAlpha(format) ? nil : RGBA8(r: 255, g: 255, b: 255)),
            limits: limits,
            maxResultDimension: Self.maxResultDimension(options: options, settings: settings, format: format))
        negotiated = chosen.negotiated
        vectorBase = info.format.isVector ? Self.vectorGuard(info, limit: maxResolution) : nil
        decideExtras(info: info, options: options, settings: settings, explicitQuality: explicit, mapping: mapping)
    }

    /// The size a vector source over `limit` megapixels is drawn as: its own, both sides divided
    /// by the square root of how far over it is (rounded down, at least 1); `nil` within it.
    static func vectorGuard(_ info: ImageInfo, limit: Double) -> PixelSize? {
        let pixels = Double(info.width) * Double(info.height), most = limit * 1_000_000
        guard info.width > 0, info.height > 0, pixels > most, most >= 1 else { return nil }
        let shrink = (pixels / most).squareRoot()
        return PixelSize(
            width: max(1, Int((Double(info.width) / shrink).rounded(.down))), height: max(1, Int((Double(info.height) / shrink).rounded(.down))))
    }

    /// Checks an animation kept animated against the frame count and total pixel limits, each
    /// of its frames holding `framePixels`.
    ///
    /// - Throws: 422 ``ServiceError`` (`limit_exceeded`) past either.
    private static func checkAnimation(_ info: ImageInfo, framePixels: Int, maxFrames: Int, settings: Settings) throws {
        guard info.frameCount <= maxFrames else {
            throw ServiceError(
                .limitExceeded,
                "the source has \(info.frameCount) frames, over the limit of \(maxFrames)")
        }
        let total = Double(framePixels) * Double(info.frameCount)
        guard total <= settings.security.maxAnimationPixels * 1_000_000 else {
            throw ServiceError(
                .limitExceeded,
                "the animation's frames hold \(Int(total / 1_000_000)) megapixels, over the limit of \(settings.security.maxAnimationPixels)")
        }
    }

    /// The decode's limits: `maxResolution` megapixels a source (or frame), `maxFrames` frames,
    /// the service's animation pixels, and a vector render's time.
    private static func decodingLimits(maxResolution: Double, maxFrames: Int, settings: Settings) -> DecodingLimits {
        DecodingLimits(
            maxPixels: Int(min(Double(Int.max / 2), maxResolution * 1_000_000)),
            maxFrames: maxFrames,
            maxTotalFramePixels: Int(min(Double(Int.max / 2), settings.security.maxAnimationPixels * 1_000_000)),
            maxBytes: Int.max,
            maxSourcePixels: Int(min(Double(Int.max / 2), maxResolution * 1_000_000)),
            // A vector render stops within the request's time.
            maxRenderSeconds: min(20, Self.seconds(settings.renderTime)))
    }

    /// What follows from the chosen format and the options: the faces a crop keeps, the profile
    /// to convert into, the gain map, the encoders' speed and effort (and whether the quality
    /// follows the speed, for a quality `mapping` applied to no `explicitQuality`), and the
    /// embedded thumbnail.
    private mutating func decideExtras(
        info: ImageInfo, options: ProcessingOptions, settings: Settings, explicitQuality explicit: Int?,
        mapping: OutputSettings.QualityMapping
    ) {
        faces = ServiceFaces(options: options, drawing: settings.drawing)
        if let name = options.colorProfile, ServiceColorProfile.formats.contains(format) {
            colorProfile = ServiceColorProfile(name: name, directory: settings.output.colorProfilesDirectory)
        }
        linearLight = settings.output.useLinearColorspace
        keepsGainMap = format == .jpeg && info.hasGainMap && !animated && (options.preserveHDR ?? settings.output.preserveHDR)
        avifSpeed = format == .avif ? settings.output.avifSpeed : nil
        qualityFollowsSpeed = format == .avif && explicit == nil && mapping == .visual
        webpEffort = format == .webp ? settings.output.webpEffort : nil
        progressive = format == .jpeg && settings.output.jpegProgressive
        jpegQuantization = format == .jpeg ? settings.output.jpegQuantization : .standard
        // imgproxy's enforce_thumbnail: the stored thumbnail is the source, when there is one.
        if options.enforceThumbnail ?? settings.output.enforceThumbnail, options.page == nil {
            embeddedThumbnail = info.embeddedThumbnailSize
        }
    }

    static func hasAlpha(_ format: ImageFormat) -> Bool { format != .jpeg }

    /// The source's (or each frame's) pixels against `limit` megapixels, before anything is
    /// decoded or sent.
    ///
    /// - Throws: 422 `limit_exceeded` past it.
    @discardableResult
    static func checkResolution(_ info: ImageInfo, limit: Double, frames: Bool = false) throws -> (partialValue: Int, overflow: Bool) {
        let pixels = info.width.multipliedReportingOverflow(by: info.height)
        guard !pixels.overflow, Double(pixels.partialValue) <= limit * 1_000_000 else {
            throw ServiceError(
                .limitExceeded,
                "the source\(frames ? "'s frames" : "") \(info.width)x\(info.height), over the limit of \(limit) megapixels")
        }
        return pixels
    }

    /// The longer side a result may have: `max_result_dimension` (0 or less: none), else the
    /// service's; at most what the output format holds (`ImageFormat.maxEncodedSide`: an icon
    /// 256, a WebP 16383), where imgproxy scales a larger result down to fit too.
    static func maxResultDimension(options: ProcessingOptions, settings: Settings, format: ImageFormat) -> Int? {
        let limit = options.maxResultDimension.map { $0 > 0 ? $0 : nil } ?? settings.security.maxResultDimension
        guard let side = format.maxEncodedSide else { return limit }
        return min(limit ?? side, side)
    }

    /// The output format as imgproxy chooses it. Asked for (`format`, the extension): that one,
    /// unless an `IMAGO_ENFORCE_*` format the client's `Accept` takes overrides it. Not asked
    /// for: a format `IMAGO_AUTO_*` (or `_ENFORCE_*`) negotiates with `Accept` (JPEG XL, then
    /// AVIF for stills, then WebP); else the source's own format when it is one of
    /// `IMAGO_PREFERRED_FORMATS` (or with `IMAGO_KEEP_SOURCE_FORMAT`, any it can be written in);
    /// else the first preferred format that holds what the result needs (an animation,
    /// transparency); else the first preferred one.
    ///
    /// - Throws: 422 ``ServiceError`` for a format that cannot be written here.
    static func format(
        info: ImageInfo, options: ProcessingOptions, accept: String?, settings: Settings, coders: ImageCoderRegistry
    ) throws -> ImageFormat {
        try choose(info: info, options: options, accept: accept, settings: settings, coders: coders, excluding: []).format
    }

    /// ``format(info:options:accept:settings:coders:)``, never negotiating a format in
    /// `excluding`, and whether `Accept` chose it.
    static func choose(
        info: ImageInfo, options: ProcessingOptions, accept: String?, settings: Settings, coders: ImageCoderRegistry,
        excluding: Set<ImageFormat>
    ) throws -> (format: ImageFormat, negotiated: Bool) {
        let animated = info.frameCount > 1 && options.page == nil
        let accepts = AcceptHeader(accept)
        func negotiated(enforcedOnly: Bool) -> ImageFormat? {
            guard settings.output.negotiatesByAccept else { return nil }
            let candidates: [(ImageFormat, String, Bool, Bool)] = [
                (.jxl, "image/jxl", settings.output.enforceJXL, settings.output.autoJXL && !animated),
                (.avif, "image/avif", settings.output.enforceAVIF, settings.output.autoAVIF),
                (.webp, "image/webp", settings.output.enforceWebP, settings.output.autoWebP)
            ]
            for (format, type, enforced, auto) in candidates where (enforced || (!enforcedOnly && auto)) && !excluding.contains(format) {
                // AVIF and JPEG XL are offered for stills only, as imgproxy does.
                if format != .webp, animated { continue }
                if coders.canEncode(format), accepts.explicitlyAccepts(type) { return format }
            }
            return nil
        }
        if let asked = options.format {
            let enforced = negotiated(enforcedOnly: true)
            let format = enforced ?? asked
            guard coders.canEncode(format) else {
                throw ServiceError(.unsupportedFormat, "\(format.rawValue) results cannot be encoded here")
            }
            return (format, enforced != nil)
        }
        if let chosen = negotiated(enforcedOnly: false) { return (chosen, true) }
        let source = info.format
        if settings.output.keepSourceFormat, coders.canEncode(source), !animated || animatedFormats.contains(source) { return (source, false) }
        let preferred = settings.output.preferredFormats.filter(coders.canEncode)
        if preferred.contains(source) { return (source, false) }
        let transparent = mayBeTransparent(info: info, options: options)
        if let fit = preferred.first(where: { (!animated || animatedFormats.contains($0)) && (!transparent || hasAlpha($0)) }) {
            return (fit, false)
        }
        if let first = preferred.first { return (first, false) }
        return (transparent ? .png : .jpeg, false)
    }

    /// Whether the result may have transparent pixels: a source with alpha, or padding or an
    /// extension, with no background colour to flatten onto. Not `extend_aspect_ratio`, as
    /// imgproxy chooses: its added sides are flattened onto white in a JPEG.
    static func mayBeTransparent(info: ImageInfo, options: ProcessingOptions) -> Bool {
        options.background == nil && (info.hasAlpha || options.padding != nil || options.extend)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// The request that makes the answer: the source, the imgproxy options as one transformer,
    /// the decode's shrink-on-load hint, and the output the plan chose. The pipeline's encode
    /// stage decodes, transforms and encodes it on the worker queue, shared by every identical
    /// request in flight (for 2 s by those that follow, and from the result cache after), or
    /// converts it in rows when nothing changes a pixel.
    func request(from source: ServiceSource, info: ImageInfo, options: ProcessingOptions, watermark: ServiceWatermark?) -> ImageRequest {
        let plan = self
        let stored = plan.embeddedThumbnail ?? plan.vectorBase ?? info.pixelSize
        var upright = plan.autoRotate ? info.orientation.orientedSize(stored) : stored
        if options.rotate % 180 == 90 { upright = PixelSize(width: upright.height, height: upright.width) }
        // A page is measured as decoded: the header gives only the first page's size, and a
        // TIFF's pages each have their own (so no shrink-on-load hint either).
        let pageAlone = options.page != nil
        var transformer = ServiceTransformer(
            options: options, autoRotate: plan.autoRotate,
            sourceSize: pageAlone ? PixelSize(width: 0, height: 0) : upright,
            // A trimmed vector is drawn at its own size and then measured as pixels: no longer
            // enlarged without `el:1`, as imgproxy treats it once trimmed.
            flattenColor: plan.flattenColor, maxResultDimension: plan.maxResultDimension,
            vectorSource: info.format.isVector && options.trim == nil,
            watermark: watermark, faces: plan.faces, keepsGainMap: plan.keepsGainMap, colorProfile: plan.colorProfile)
        transformer.linearLight = plan.linearLight
        var request = source.request
        request.transformers = [transformer]
        // A source fetched with a client's cookies is that client's: nothing made from it is cached.
        request.options = ImageRequest.Options([.transformAnimatedImage, .retryFailed]).union(source.request.options.intersection(ClientCookies.cacheBypass))
        request.embeddedThumbnail = plan.embeddedThumbnail != nil
        request.gainMap = plan.keepsGainMap && plan.embeddedThumbnail == nil
        if !pageAlone, plan.embeddedThumbnail == nil {
            request.decodeSizeHint = decodeSizeHint(transformer, info: info, upright: upright, rotate: options.rotate)
        }
        // An animation's frames are decoded one at a time as the transformer takes them.
        request.frames = plan.animated ? .lazy : .first
        // One page alone: a TIFF page at its own size, an animation's frame composited on demand.
        request.page = options.page
        // A profile to convert into starts from the source's own pixels and profile: the
        // conversion goes straight from one to the other, never through sRGB's smaller gamut.
        request.colorManagement = plan.colorProfile == nil && plan.stripColorProfile
        request.limits = plan.limits
        var encoding = EncodeOptions(quality: Double(plan.quality) / 100, backgroundColor: plan.flattenColor ?? RGBA8(r: 255, g: 255, b: 255))
        // libavif's speed s is the effort 11 - s.
        if plan.format == .avif, let speed = plan.avifSpeed { encoding.effort = 11 - speed }
        // libwebp's method m is the effort m + 3.
        if plan.format == .webp, let method = plan.webpEffort { encoding.effort = method + 3 }
        encoding.maxThreads = plan.encoderThreads
        encoding.progressive = plan.progressive
        encoding.jpegQuantization = plan.jpegQuantization
        request.output = ImageRequest.Output(
            format: plan.format,
            options: encoding,
            metadata: !plan.stripMetadata ? .keep : plan.keepCopyright ? .copyrightOnly : .strip,
            keepsColorProfile: !plan.stripColorProfile || plan.colorProfile != nil, maxBytes: options.maxBytes > 0 ? options.maxBytes : nil,
            passesThroughUnchanged: false)
        return request
    }

    /// The size the decoder is asked for, in its (stored) orientation: the transformer's hint
    /// (a JPEG's as its DCT reductions reach it), or for a vector over the resolution limit, the
    /// limit's size (a vector is drawn at the hint's size: crisp at any scale, enlarging too).
    /// In linear light a raster is reduced only as JPEG's DCT reduces it (imgproxy's
    /// scale-on-load): a decoder's own resampling would work on the encoded values.
    private func decodeSizeHint(_ transformer: ServiceTransformer, info: ImageInfo, upright: PixelSize, rotate: Int) -> PixelSize? {
        guard var hint = transformer.geometry.decodeHint(sourceWidth: upright.width, sourceHeight: upright.height) ?? (vectorBase != nil ? upright : nil)
        else { return nil }
        if (autoRotate && info.orientation.swapsDimensions) != (rotate % 180 == 90) {
            hint = PixelSize(width: hint.height, height: hint.width)
        }
        if info.format == .jpeg { return ServiceGeometry.reductionHint(hint, source: PixelSize(width: info.width, height: info.height)) }
        return !linearLight || info.format.isVector ? hint : nil
    }
}
