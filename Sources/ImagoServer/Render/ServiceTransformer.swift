// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoProcessing
import ImagoServiceURL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// imgproxy's processing pipeline as one transformer, so the image manager shares it between
/// identical requests: trim, crop, resize (fit, fill, fill-down, force, auto), extend, padding,
/// rotate, flip, blur, sharpen, pixelate, background. The geometry is decided on the first frame
/// and applied to every frame alike, so an animation stays one animation.
struct ServiceTransformer: ImageTransforming {
    private(set) var options: ProcessingOptions
    /// Apply the EXIF orientation first (`auto_rotate`, resolved against the service's default).
    let autoRotate: Bool
    /// The source's size as the pipeline sees it (upright when `autoRotate`, then turned by
    /// `rotate`), from its header.
    let sourceSize: PixelSize
    /// Flatten transparency over this colour at the end: the `background` option, or the colour
    /// an output format without alpha needs.
    let flattenColor: RGBA8?
    /// Results larger than this on either side, extension and padding included, are scaled
    /// down to fit (`max_result_dimension`, `IMAGO_MAX_RESULT_DIMENSION`).
    let maxResultDimension: Int?
    /// The source is a vector (SVG, PDF), drawn at any scale: `enlarge` does not apply.
    var vectorSource = false
    /// The service's watermark, when the options ask for it and the service has one.
    var watermark: ServiceWatermark?
    /// The faces smart and object gravities keep, when they are looked for.
    var faces: ServiceFaces?
    /// An Ultra HDR gain map in the decoded image is brought to the result's geometry and kept;
    /// otherwise it is dropped.
    var keepsGainMap = false
    /// The profile the result is converted into (`color_profile`).
    var colorProfile: ServiceColorProfile?
    /// The resize works in linear light (`IMAGO_USE_LINEAR_COLORSPACE`).
    var linearLight = false
    /// The orientation the image being transformed was stored in, when `autoRotate` turns it:
    /// set by ``transform(_:animated:)`` from the image, so that crops and trims land where
    /// imgproxy's, made on the stored picture, land (``ServiceTurns``).
    private(set) var storedOrientation = ImageOrientation.up

    /// The turns from the stored picture to the one the plan works on.
    var turns: ServiceTurns {
        ServiceTurns(
            orientation: autoRotate ? storedOrientation : .up, rotate: options.rotate, flipX: options.flipHorizontal,
            flipY: options.flipVertical)
    }

    /// The watermark's options when it is drawn.
    private var watermarkOptions: ProcessingOptions.Watermark? {
        guard watermark != nil, let w = options.watermark, w.opacity > 0 else { return nil }
        return w
    }

    /// What the result cache and the ETag know this transformer by. A `dpr` that folds into the
    /// sizes (``dprFolded()``) is named as the sizes it comes to, so `dpr:2` at width W and width
    /// 2W are one result when they are the same pixels.
    var key: String {
        "Service(\((dprFolded() ?? options).canonicalPath);ar=\(autoRotate ? 1 : 0);flat=\(flattenColor.map { "\($0.r),\($0.g),\($0.b)" } ?? "-");"
            + "max=\(maxResultDimension ?? 0);vec=\(vectorSource ? 1 : 0);wm=\(watermarkOptions == nil ? "-" : watermark?.digest ?? "-")"
            + (faces.map { ";\($0.key)" } ?? "") + (keepsGainMap ? ";hdr" : "") + (colorProfile.map { ";cp=\($0.name)" } ?? "")
            + (linearLight ? ";lin" : "") + ")"
    }

    var geometry: ServiceGeometry {
        ServiceGeometry(options: options, maxResultDimension: maxResultDimension, vectorSource: vectorSource)
    }

    /// The turn (`rotate`, clockwise) and then the flips: the picture as it will be shown,
    /// which every size and gravity after it means (imgproxy maps its gravities back to the
    /// stored orientation instead, to the same effect).
    func orient(_ buffer: PixelBuffer) throws -> PixelBuffer {
        // imgproxy turns clockwise; Imago's Rotate counter-clockwise.
        var out = options.rotate != 0 ? try ImageTransformers.Rotate(degrees: Double(-options.rotate)).transform(buffer) : buffer
        if options.flipHorizontal || options.flipVertical {
            out = try ImageTransformers.Flip(horizontal: options.flipHorizontal, vertical: options.flipVertical).transform(out)
        }
        return out
    }

    /// One buffer, for callers that hand frames one by one; the geometry is worked out for it.
    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        let turned = try orient(buffer)
        return try apply(try plan(for: turned), to: turned)
    }

    /// Takes lazy animations: each frame is decoded, turned and transformed in turn, so a
    /// request holds one full-size canvas and the (usually smaller) results, not every canvas.
    var acceptsLazyAnimations: Bool { true }

    func transform(_ image: Image, animated: Bool) throws -> Image {
        if let adjusted = try adjusted(for: image, animated: animated) {
            return try adjusted.transform(image, animated: animated)
        }
        let upright = autoRotate ? image.applyingOrientation() : image
        let indices = try frameIndices(count: upright.frameCount, animated: animated)
        var plan: Plan?
        var out: [ImageFrame] = []
        out.reserveCapacity(indices.count)
        var previous: (input: PixelBuffer, output: PixelBuffer)?
        var firstTurned: PixelSize?
        for index in indices {
            let frame = try upright.frame(at: index)
            let turned = try orient(frame.buffer)
            if firstTurned == nil { firstTurned = turned.size }
            let framePlan = try plan ?? self.plan(for: turned)
            plan = framePlan
            // Frames of an animation mostly repeat their predecessor: an equal frame gives the
            // equal result, and a resize recomputes only what the changed part reaches.
            let result: PixelBuffer
            if let previous, let changed = turned.changedRect(from: previous.input) {
                result =
                    try applyUpdating(framePlan, to: turned, previous: previous.output, changed: changed)
                    ?? apply(framePlan, to: turned)
            } else if let previous {
                result = previous.output
            } else {
                result = try apply(framePlan, to: turned)
            }
            if indices.count > 1 { previous = (turned, result) }
            out.append(ImageFrame(buffer: result, duration: frame.duration))
        }
        guard !out.isEmpty else { throw ImageCodingError.invalidArgument("an image without frames") }
        // The pixels are as they will be shown: any orientation left in EXIF would turn them again.
        var metadata = upright.metadata
        metadata.exif = metadata.exif.map { EXIF.settingOrientation(.up, in: EXIF.strippingPrefix($0)) }
        // The gain map takes the same geometry, or goes (a map that cannot follow is dropped,
        // never left to light the wrong parts).
        metadata.gainMap = nil
        if keepsGainMap, out.count == 1, let map = upright.metadata.gainMap, let plan, let firstTurned {
            metadata.gainMap = try? gainMap(map, plan: plan, from: firstTurned, to: out[0].buffer.size)
        }
        let result = try Image(
            frames: out, loopCount: out.count > 1 ? upright.loopCount : nil, orientation: .up, scale: upright.scale,
            format: upright.format, metadata: metadata,
            hasAlpha: flattenColor == nil && (upright.hasAlpha || out[0].buffer.format.hasAlphaChannel))
        return try colorProfile?.apply(to: result) ?? result
    }

    /// This transformer as `image` asks for it, or `nil` when it already is: the orientation
    /// the image was stored in (crops and trims are placed in the stored frame, as imgproxy
    /// places them), and no trim for an animation kept animated, as imgproxy leaves it (each
    /// frame has its own border, and one frame's would cut the others).
    ///
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` for a page the image does not have.
    private func adjusted(for image: Image, animated: Bool) throws -> ServiceTransformer? {
        var adjusted = self
        var changed = false
        if autoRotate, image.orientation != storedOrientation {
            adjusted.storedOrientation = image.orientation
            changed = true
        }
        if options.trim != nil, try frameIndices(count: image.frameCount, animated: animated).count > 1 {
            adjusted.options.trim = nil
            changed = true
        }
        return changed ? adjusted : nil
    }

    /// The frames of an image of `count` frames that make the result: the page asked for, else
    /// every frame of an animation kept animated, else the first. The decode usually delivers
    /// the page alone (`ImageRequest.page`); a caller that hands every frame gets page N here.
    ///
    /// - Throws: ``ImageCodingError/invalidArgument(_:)`` for a page the image does not have.
    private func frameIndices(count: Int, animated: Bool) throws -> Range<Int> {
        guard let page = options.page, count > 1 else { return 0..<(animated ? count : 1) }
        guard page < count else {
            throw ImageCodingError.invalidArgument("page \(page) does not exist: the image has \(count)")
        }
        return page..<(page + 1)
    }

    /// Every rectangle and size, decided on one frame.
    struct Plan {
        var trim: (x: Int, y: Int, width: Int, height: Int)?
        var crop: (x: Int, y: Int, width: Int, height: Int)?
        var resize: PixelSize?
        var fill: (x: Int, y: Int, width: Int, height: Int)?
        var extend: (top: Int, right: Int, bottom: Int, left: Int)?
        var aspect: (top: Int, right: Int, bottom: Int, left: Int)?
        var padding: (top: Int, right: Int, bottom: Int, left: Int)?
        /// The watermark, fitted and placed for this result.
        var watermark: ImageTransformers.Overlay?
        /// The detected objects to blur or outline, in the result's pixels before any extension.
        var detections: [DetectedObject] = []

        /// Whether the geometry computes pixels from others: a resize, an extension, padding.
        var resamples: Bool { resize != nil || extend != nil || aspect != nil || padding != nil }
    }

    func plan(for buffer: PixelBuffer) throws -> Plan {
        // Every step that looks at pixels has them.
        try plan(width: buffer.width, height: buffer.height, pixels: buffer) ?? Plan()
    }

    /// What these options do to this source's pixels: the one answer to "does this change
    /// pixels?", which the pipeline takes (how to decode, whether to stream rows) and
    /// ``apply(_:to:)`` follows (whether to premultiply). ``PixelEffect/none`` when every pixel
    /// stays as decoded (the pipeline then converts it in rows), ``PixelEffect/movesPixels``
    /// when whole pixels only move (it decodes to the exact format), else
    /// ``PixelEffect/resamples``.
    func pixelEffect(on info: ImageInfo) -> PixelEffect {
        let effect = Self.effect(of: options)
        guard effect == .movesPixels, leavesGeometryAlone(size: info.pixelSize, opaque: !info.hasAlpha, orientation: info.orientation)
        else { return effect }
        return .none
    }

    /// Whether a still of `size` comes out of the geometry as decoded: no turn, flip, trim, page,
    /// crop, resize, extension or padding, no watermark or profile conversion, no flattening
    /// (`opaque` sources need none), and the EXIF orientation `up`.
    private func leavesGeometryAlone(size: PixelSize, opaque: Bool, orientation: ImageOrientation) -> Bool {
        guard watermarkOptions == nil, colorProfile == nil, options.rotate == 0, !options.flipHorizontal, !options.flipVertical,
            options.trim == nil, options.page == nil, orientation == .up, flattenColor == nil || opaque,
            let plan = try? plan(width: size.width, height: size.height, pixels: nil)
        else { return false }
        return plan.trim == nil && plan.crop == nil && plan.fill == nil && !plan.resamples
    }

    /// The plan for a frame of `width` by `height`; `nil` when it needs to look at `pixels`
    /// (trim, smart gravity) and has none.
    private func plan(width: Int, height: Int, pixels: PixelBuffer?) throws -> Plan? {
        var draft = PlanDraft(pixels: pixels, w: width, h: height)
        // The decoder may have shrunk the source on load: sizes are worked out in the source's
        // pixels, and crop sizes and offsets brought to the decoded ones.
        let sourceScale = sourceSize.width > 0 ? Double(width) / Double(sourceSize.width) : 1
        guard try planTrim(&draft) else { return nil }
        let s = geometry.sizes(width: shown(draft.w, sourceSize.width, sourceScale), height: shown(draft.h, sourceSize.height, sourceScale))
        let cw = ServiceGeometry.minNonZero(ServiceGeometry.scale(s.cropWidth, sourceScale), draft.w)
        let ch = ServiceGeometry.minNonZero(ServiceGeometry.scale(s.cropHeight, sourceScale), draft.h)
        guard try planCrop(&draft, width: cw, height: ch, sourceScale: sourceScale) else { return nil }
        planResize(&draft, s)
        guard try planFill(&draft, s) else { return nil }
        // The objects to blur or outline, found in the trimmed frame and brought to the result's.
        guard try planDetections(&draft) else { return nil }
        // From here on sizes are the result's pixels.
        planExtensions(&draft, s)
        // Checked before any pixel of it is made: a zoom or dpr can ask for any size.
        try Self.checkResultSize(width: draft.w, height: draft.h)
        // Last, over everything, as imgproxy draws it: offsets in the result's pixels.
        try planWatermark(&draft, s)
        return draft.plan
    }

    /// A side of the frame in the source's pixels: `side` itself when the frame is the whole
    /// source shrunk on load by `scale` (a decoder's reduction rounds each side on its own, so
    /// dividing back can miss the source's side by a pixel, and the result's size with it: one
    /// URL would come out a pixel taller from a kept decode than from a fresh one), else the
    /// frame's side divided back (a trimmed frame, a page of another size).
    private func shown(_ frame: Int, _ side: Int, _ scale: Double) -> Int {
        let back = max(1, ServiceGeometry.round(Double(frame) / scale))
        guard side > 0, abs(Double(side) * scale - Double(frame)) < 1 else { return back }
        return side
    }

    /// `options` at `dpr` 1 with the sizes the `dpr` multiplies (width, height, minimum width
    /// and height, padding) multiplied out, when that makes the same pixels from this source:
    /// the same plan at the source's size and at every size a decoder may shrink it to on load,
    /// the same shrink-on-load hint, and nothing else that reads the `dpr` (rounded corners,
    /// detections, a watermark, faces, trim). `nil` otherwise, and for vectors and single
    /// pages, which are measured as they are drawn.
    func dprFolded() -> ProcessingOptions? {
        let o = options
        guard o.dpr != 1, !vectorSource, sourceSize.width > 0, sourceSize.height > 0, o.trim == nil, o.roundedCorners == 0,
            o.blurDetections == nil, o.drawDetections == nil, watermarkOptions == nil, faces == nil
        else { return nil }
        var folded = o
        folded.dpr = 1
        folded.width = ServiceGeometry.scale(o.width, o.dpr)
        folded.height = ServiceGeometry.scale(o.height, o.dpr)
        folded.minWidth = ServiceGeometry.scale(o.minWidth, o.dpr)
        folded.minHeight = ServiceGeometry.scale(o.minHeight, o.dpr)
        folded.padding = o.padding.map {
            func px(_ v: Int) -> Int { ServiceGeometry.scaleToEven(v, o.dpr) }
            return .init(top: px($0.top), right: px($0.right), bottom: px($0.bottom), left: px($0.left))
        }
        var twin = ServiceTransformer(
            options: folded, autoRotate: autoRotate, sourceSize: sourceSize, flattenColor: flattenColor,
            maxResultDimension: maxResultDimension, vectorSource: vectorSource, watermark: watermark, faces: faces,
            keepsGainMap: keepsGainMap, colorProfile: colorProfile)
        twin.linearLight = linearLight
        let (w, h) = (sourceSize.width, sourceSize.height)
        let hint = geometry.decodeHint(sourceWidth: w, sourceHeight: h)
        guard hint == twin.geometry.decodeHint(sourceWidth: w, sourceHeight: h) else { return nil }
        // The decoded frame: whole, a JPEG's DCT reductions, or the hint's size itself.
        let reductions = [1, 2, 4, 8].map { PixelSize(width: (w + $0 - 1) / $0, height: (h + $0 - 1) / $0) }
        for size in reductions + (hint.map { [$0] } ?? []) {
            guard let mine = try? signature(size), mine == (try? twin.signature(size)) else { return nil }
        }
        return folded
    }

    /// The plan for a frame of `size` as text, `nil` when it needs pixels or fails.
    private func signature(_ size: PixelSize) throws -> String? {
        guard let p = try plan(width: size.width, height: size.height, pixels: nil), p.watermark == nil, p.detections.isEmpty
        else { return nil }
        return "\(p.trim.map { "\($0)" } ?? "-")|\(p.crop.map { "\($0)" } ?? "-")|\(p.resize.map { "\($0)" } ?? "-")|"
            + "\(p.fill.map { "\($0)" } ?? "-")|\(p.extend.map { "\($0)" } ?? "-")|\(p.aspect.map { "\($0)" } ?? "-")|"
            + "\(p.padding.map { "\($0)" } ?? "-")"
    }

    /// The most pixels a result may have (256 megapixels, 1 GiB of RGBA), whatever the options ask.
    static let maxResultPixels = 1 << 28
    /// The longest side a result may have.
    static let maxResultSide = 1 << 18

    /// ``apply(_:to:)`` for a frame that differs from the one that gave `previous` only inside
    /// `changed`, when the plan is a resize alone: the resize recomputes only the output pixels
    /// the change reaches, and the bytes are ``apply(_:to:)``'s. `nil` for any other plan.
    func applyUpdating(
        _ plan: Plan, to buffer: PixelBuffer, previous: PixelBuffer,
        changed: (x0: Int, y0: Int, x1: Int, y1: Int)
    ) throws -> PixelBuffer? {
        // A resize alone: no other geometry, and nothing painted over the pixels after it.
        var rest = plan
        rest.resize = nil
        guard let size = plan.resize, rest.trim == nil, rest.crop == nil, rest.fill == nil, !rest.resamples, plan.watermark == nil,
            plan.detections.isEmpty, options.blurDetections == nil, options.drawDetections == nil, !Self.filters(options),
            options.adjustments.isIdentity, options.roundedCorners == 0, flattenColor == nil, !linearLight
        else { return nil }
        return try Resampler.resize(buffer, to: size, reusing: previous, changed: changed)
    }

    func apply(_ plan: Plan, to buffer: PixelBuffer) throws -> PixelBuffer {
        // Cropping, flipping and flattening move or blend whole pixels and take any format;
        // only resampling, padding and the filters need premultiplied alpha. A buffer decoded
        // with straight alpha (``effect(of:)`` moves pixels only) stays so, and loses nothing.
        let premultiply = plan.resamples || Self.filters(options)
        var out = premultiply ? buffer.converted(to: .argb32Premultiplied) : buffer
        out = try cut(out, plan.trim)
        out = try cut(out, plan.crop)
        if let size = plan.resize { out = try Resampler.resize(out, to: size, quality: linearLight ? .linearLight : .lanczos3) }
        out = try cut(out, plan.fill)
        // The filters see the picture alone, before any extension or padding (as imgproxy's).
        if options.blur > 0 { out = try ImageTransformers.Blur(radius: options.blur).transform(out) }
        if options.sharpen > 0 { out = try ImageTransformers.Sharpen(sigma: options.sharpen).transform(out) }
        if options.pixelate > 1 { out = try ImageTransformers.Pixelate(size: options.pixelate).transform(out) }
        // imgproxy Pro's colour adjustments, all in one pass over the pixels.
        if let adjust = colorAdjust { out = try adjust.transform(out) }
        if let d = options.blurDetections { out = try blurring(out, Self.chosen(plan.detections, d), sigma: d.sigma * options.dpr) }
        if let d = options.drawDetections { out = try outlining(out, Self.chosen(plan.detections, d), width: max(1, Int(2 * options.dpr))) }
        let padColor = options.background ?? RGBA8(r: 0, g: 0, b: 0, a: 0)
        for e in [plan.extend, plan.aspect, plan.padding] {
            guard let e else { continue }
            out = try ImageTransformers.Pad(top: e.top, right: e.right, bottom: e.bottom, left: e.left, color: padColor).transform(out)
        }
        // Rounded corners cut the whole result, then the background (or the format's) fills them.
        if options.roundedCorners > 0 {
            out = try ImageTransformers.RoundCorner(radius: options.roundedCorners * options.dpr).transform(out)
        }
        if let color = flattenColor, !out.isOpaque { out = out.flattened(over: color) }
        if let mark = plan.watermark { out = try mark.transform(out) }
        return out
    }

    /// What `options` alone do to pixels, before a source is known: ``PixelEffect/movesPixels``
    /// when they can only move whole pixels (no resize, zoom, padding, extension, filter, colour
    /// adjustment, rounded corner, watermark or detection drawn), so the source may be decoded in
    /// `PixelFormat.exact(for:)` and converted without touching a visible pixel; else
    /// ``PixelEffect/resamples``.
    static func effect(of options: ProcessingOptions) -> PixelEffect {
        let moves =
            options.width == 0 && options.height == 0 && options.minWidth == 0 && options.minHeight == 0
            && options.zoomX == 1 && options.zoomY == 1 && options.dpr == 1 && options.padding == nil && !filters(options)
            && options.rotate % 90 == 0 && options.adjustments.isIdentity && options.roundedCorners == 0
            && (options.watermark?.opacity ?? 0) == 0 && options.blurDetections == nil && options.drawDetections == nil
        return moves ? .movesPixels : .resamples
    }

    /// Whether `options` blur, sharpen or pixelate: filters that compute pixels from their neighbours.
    static func filters(_ options: ProcessingOptions) -> Bool {
        options.blur > 0 || options.sharpen > 0 || options.pixelate > 1
    }

    /// The colour adjustments the options ask for, `nil` when none.
    private var colorAdjust: ImageTransformers.ColorAdjust? {
        let a = options.adjustments
        guard !a.isIdentity else { return nil }
        return ImageTransformers.ColorAdjust(
            brightness: a.brightness, contrast: a.contrast, saturation: a.saturation,
            monochrome: (a.monochromeIntensity, a.monochromeColor),
            duotone: (a.duotoneIntensity, a.duotoneShadows, a.duotoneHighlights),
            colorizeOpacity: a.colorizeOpacity, colorizeColor: a.colorizeColor, colorizeKeepsAlpha: a.colorizeKeepsAlpha)
    }

    private func cut(_ buffer: PixelBuffer, _ rect: (x: Int, y: Int, width: Int, height: Int)?) throws -> PixelBuffer {
        guard let r = rect, r.x != 0 || r.y != 0 || r.width != buffer.width || r.height != buffer.height else { return buffer }
        return try ImageTransformers.Crop(x: r.x, y: r.y, width: r.width, height: r.height).transform(buffer)
    }
}

// MARK: - The plan's steps

extension ServiceTransformer {
    /// ``plan(width:height:pixels:)`` in progress: the rectangles and sizes decided so far, the
    /// frame's size after the last step, and the faces once they are looked for.
    private struct PlanDraft {
        /// The frame's pixels, when the caller has them (trim and smart gravity look at them).
        let pixels: PixelBuffer?
        /// The steps decided so far.
        var plan = Plan()
        /// The frame's width after the steps so far.
        var w: Int
        /// The frame's height after the steps so far.
        var h: Int
        /// Faces are looked for once, in the trimmed frame, and brought to each step's pixels.
        var found: [DetectedObject]?

        /// A draft of nothing done yet to a `w`×`h` frame.
        init(pixels: PixelBuffer?, w: Int, h: Int) {
            self.pixels = pixels
            self.w = w
            self.h = h
        }

        /// The faces `detector` finds in `region` (the trimmed frame): looked for on the first
        /// call, kept for the others.
        mutating func faces(in region: PixelBuffer, by detector: ServiceFaces?) -> [DetectedObject] {
            if let found { return found }
            let f = detector?.faces(in: region) ?? []
            found = f
            return f
        }

        /// The insets that put the frame in a `tw`×`th` canvas (0: the frame's side) at
        /// `gravity`, the frame then the canvas's size; `nil`, the frame left alone, when the
        /// canvas is no larger on either side.
        mutating func embed(
            _ tw: Int, _ th: Int, _ gravity: ProcessingOptions.Gravity, dprScale: Double
        ) -> (top: Int, right: Int, bottom: Int, left: Int)? {
            guard tw > w || th > h else { return nil }
            let cw = max(w, tw > 0 ? tw : w), ch = max(h, th > 0 ? th : h)
            let at = ServiceGeometry.place(w, h, in: cw, ch, gravity: gravity, pixelScale: dprScale)
            defer {
                w = cw
                h = ch
            }
            return (at.y, cw - w - at.x, ch - h - at.y, at.x)
        }
    }

    /// Trims the frame (`trim`), when asked: `false` when that needs pixels the draft has none of.
    /// A frame that is all border is left whole, as imgproxy leaves it (libvips finds nothing to
    /// keep and copies the image).
    private func planTrim(_ draft: inout PlanDraft) throws -> Bool {
        guard let t = options.trim else { return true }
        guard let buffer = draft.pixels else { return false }
        // imgproxy trims the stored picture: its top-left pixel is the border's colour, and
        // "horizontal" is the stored picture's, wherever the turns put them.
        let turns = self.turns
        guard
            let rect = ImageAnalysis.trimRect(
                buffer, color: t.color, threshold: t.threshold,
                equalHorizontal: turns.swapsAxes ? t.equalVertical : t.equalHorizontal,
                equalVertical: turns.swapsAxes ? t.equalHorizontal : t.equalVertical,
                colorAt: turns.storedOrigin(inTurned: buffer.width, buffer.height))
        else { return true }
        draft.plan.trim = rect
        draft.w = rect.width
        draft.h = rect.height
        return true
    }

    /// Crops the frame (`crop`) to `cw`×`ch`, when that is smaller, at the crop's gravity (or
    /// the image's): `false` when a smart or object gravity needs pixels the draft has none of.
    private func planCrop(_ draft: inout PlanDraft, width cw: Int, height ch: Int, sourceScale: Double) throws -> Bool {
        guard cw < draft.w || ch < draft.h else { return true }
        let gravity = options.crop?.gravity ?? options.gravity
        let origin: (x: Int, y: Int)
        if gravity.kind == .smart || gravity.kind == .objects {
            guard let buffer = draft.pixels else { return false }
            let region = try cut(buffer, draft.plan.trim)
            origin = keeping(gravity, region, draft.faces(in: region, by: self.faces), cw, ch)
        } else {
            // Crop offsets are the source's pixels, whatever the dpr; placed as imgproxy places
            // them on the stored picture, then turned.
            origin = turns.place(cw, ch, in: draft.w, draft.h, gravity: gravity, pixelScale: sourceScale)
        }
        draft.plan.crop = (origin.x, origin.y, cw, ch)
        draft.w = cw
        draft.h = ch
        return true
    }

    /// Resizes the frame to the scaled size (at least a pixel a side), when that is another size.
    private func planResize(_ draft: inout PlanDraft, _ s: ServiceGeometry.Sizes) {
        let size = PixelSize(width: max(1, s.scaledWidth), height: max(1, s.scaledHeight))
        if size.width != draft.w || size.height != draft.h { draft.plan.resize = size }
        draft.w = size.width
        draft.h = size.height
    }

    /// Crops the resized frame to the result's crop (fill, fill-down), when that is smaller, at
    /// the gravity: `false` when a smart or object gravity needs pixels the draft has none of.
    private func planFill(_ draft: inout PlanDraft, _ s: ServiceGeometry.Sizes) throws -> Bool {
        let w = draft.w, h = draft.h
        let fw = ServiceGeometry.minNonZero(s.resultCropWidth, w), fh = ServiceGeometry.minNonZero(s.resultCropHeight, h)
        guard fw < w || fh < h else { return true }
        let box = PixelSize(width: min(fw, w), height: min(fh, h))
        let origin: (x: Int, y: Int)
        if options.gravity.kind == .smart || options.gravity.kind == .objects {
            // Smart gravity looks at the picture as it will be cropped: the resized frame.
            guard let buffer = draft.pixels else { return false }
            let crop = draft.plan.crop
            let region = try cut(buffer, draft.plan.trim)
            let before = try cut(region, crop)
            let preview = try Resampler.resize(before, to: PixelSize(width: w, height: h), quality: .bilinear)
            // The faces, from the trimmed frame's pixels to the preview's.
            let boxes =
                self.faces == nil
                ? []
                : draft.faces(in: region, by: self.faces).map {
                    $0.mapped(dx: -(crop?.x ?? 0), dy: -(crop?.y ?? 0), scale: Double(w) / Double(max(1, before.width)))
                }
            origin = keeping(options.gravity, preview, boxes, box.width, box.height)
        } else {
            origin = ServiceGeometry.place(box.width, box.height, in: w, h, gravity: options.gravity, pixelScale: s.dprScale)
        }
        draft.plan.fill = (origin.x, origin.y, box.width, box.height)
        draft.w = box.width
        draft.h = box.height
        return true
    }

    /// The objects to blur or outline (`blur_detections`, `draw_detections`), found in the
    /// trimmed frame and brought to the result's pixels: `false` when they are asked for and
    /// the draft has no pixels to look in.
    private func planDetections(_ draft: inout PlanDraft) throws -> Bool {
        guard options.blurDetections != nil || options.drawDetections != nil else { return true }
        guard let buffer = draft.pixels else { return false }
        let crop = draft.plan.crop, fill = draft.plan.fill
        let region = try cut(buffer, draft.plan.trim)
        let before = crop.map { PixelSize(width: $0.width, height: $0.height) } ?? region.size
        let scale = Double(draft.plan.resize?.width ?? before.width) / Double(max(1, before.width))
        let found = draft.faces(in: region, by: self.faces)
        draft.plan.detections = found.map {
            $0.mapped(dx: -(crop?.x ?? 0), dy: -(crop?.y ?? 0), scale: scale)
                .mapped(dx: -(fill?.x ?? 0), dy: -(fill?.y ?? 0))
        }
        return true
    }

    /// The extension (`extend`), the aspect extension (`extend_aspect_ratio`) and the padding,
    /// in this order, in the result's pixels.
    private func planExtensions(_ draft: inout PlanDraft, _ s: ServiceGeometry.Sizes) {
        if options.extend {
            let extend = draft.embed(s.targetWidth, s.targetHeight, options.extendGravity, dprScale: s.dprScale)
            draft.plan.extend = extend
        }
        if options.extendAspectRatio, s.aspectWidth > 0, s.aspectHeight > 0 {
            let aspect = draft.embed(s.aspectWidth, s.aspectHeight, options.extendAspectRatioGravity, dprScale: s.dprScale)
            draft.plan.aspect = aspect
        }
        if let p = options.padding {
            func px(_ v: Int) -> Int { ServiceGeometry.scaleToEven(v, s.dprScale) }
            draft.plan.padding = (px(p.top), px(p.right), px(p.bottom), px(p.left))
            draft.w += px(p.left) + px(p.right)
            draft.h += px(p.top) + px(p.bottom)
        }
    }

    /// Checks a `w`×`h` result against ``maxResultPixels`` and ``maxResultSide``.
    ///
    /// - Throws: ``ImageCodingError/exceedsLimit(_:found:limit:)`` past either.
    private static func checkResultSize(width w: Int, height h: Int) throws {
        let pixels = w.multipliedReportingOverflow(by: h)
        guard !pixels.overflow, pixels.partialValue <= Self.maxResultPixels, w <= Self.maxResultSide, h <= Self.maxResultSide else {
            throw ImageCodingError.exceedsLimit(.maxPixels, found: pixels.overflow ? Int.max : pixels.partialValue, limit: Self.maxResultPixels)
        }
    }

    /// The watermark, fitted and placed on the `draft`'s result, when one is drawn.
    private func planWatermark(_ draft: inout PlanDraft, _ s: ServiceGeometry.Sizes) throws {
        if let wm = watermark, let o = watermarkOptions {
            draft.plan.watermark = try wm.overlay(
                for: o, width: draft.w, height: draft.h, dprScale: s.dprScale, box: options.watermarkSize, rotate: options.watermarkRotate,
                shadow: options.watermarkShadow)
        }
    }

    /// Where a `width`×`height` window of `frame` goes for a smart or object `gravity`: by the
    /// faces in `boxes` when faces are looked for, else the centre (objects) or smart crop.
    private func keeping(
        _ gravity: ProcessingOptions.Gravity, _ frame: PixelBuffer, _ boxes: [DetectedObject], _ width: Int, _ height: Int
    ) -> (x: Int, y: Int) {
        if let f = self.faces { return f.origin(gravity, in: frame, faces: boxes, width: width, height: height) }
        if gravity.kind == .objects { return ServiceGeometry.place(width, height, in: frame.width, frame.height, gravity: .center) }
        return ImageAnalysis.attentionCropOrigin(frame, width: width, height: height)
    }
}
