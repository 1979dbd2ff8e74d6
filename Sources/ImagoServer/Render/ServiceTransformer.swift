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
    let options: ProcessingOptions
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

    /// The watermark's options when it is drawn.
    private var watermarkOptions: ProcessingOptions.Watermark? {
        guard watermark != nil, let w = options.watermark, w.opacity > 0 else { return nil }
        return w
    }

    var key: String {
        "Service(\(options.canonicalPath);ar=\(autoRotate ? 1 : 0);flat=\(flattenColor.map { "\($0.r),\($0.g),\($0.b)" } ?? "-");"
            + "max=\(maxResultDimension ?? 0);vec=\(vectorSource ? 1 : 0);wm=\(watermarkOptions == nil ? "-" : watermark?.digest ?? "-")"
            + (faces.map { ";\($0.key)" } ?? "") + (keepsGainMap ? ";hdr" : "") + (colorProfile.map { ";cp=\($0.name)" } ?? "") + ")"
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
        let upright = autoRotate ? image.applyingOrientation() : image
        // The decode usually delivers the page alone (`ImageRequest.page`); a caller that hands
        // every frame gets page N picked here.
        let indices: Range<Int>
        if let page = options.page, upright.frameCount > 1 {
            guard page < upright.frameCount else {
                throw ImageCodingError.invalidArgument("page \(page) does not exist: the image has \(upright.frameCount)")
            }
            indices = page..<(page + 1)
        } else {
            indices = 0..<(animated ? upright.frameCount : 1)
        }
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
        var plan = Plan()
        var w = width, h = height
        // The decoder may have shrunk the source on load: sizes are worked out in the source's
        // pixels, and crop sizes and offsets brought to the decoded ones.
        let sourceScale = sourceSize.width > 0 ? Double(w) / Double(sourceSize.width) : 1
        if let t = options.trim {
            guard let buffer = pixels else { return nil }
            guard
                let rect = ImageAnalysis.trimRect(
                    buffer, color: t.color, threshold: t.threshold,
                    equalHorizontal: t.equalHorizontal, equalVertical: t.equalVertical)
            else {
                throw ImageCodingError.invalidArgument("trim would leave nothing of the image")
            }
            plan.trim = rect
            w = rect.width
            h = rect.height
        }
        let s = geometry.sizes(
            width: max(1, ServiceGeometry.round(Double(w) / sourceScale)), height: max(1, ServiceGeometry.round(Double(h) / sourceScale)))
        let cw = ServiceGeometry.minNonZero(ServiceGeometry.scale(s.cropWidth, sourceScale), w)
        let ch = ServiceGeometry.minNonZero(ServiceGeometry.scale(s.cropHeight, sourceScale), h)
        // Faces are looked for once, in the trimmed frame, and brought to each step's pixels.
        var found: [DetectedObject]?
        func faces(_ region: PixelBuffer) -> [DetectedObject] {
            if let found { return found }
            let f = self.faces?.faces(in: region) ?? []
            found = f
            return f
        }
        func keeping(
            _ gravity: ProcessingOptions.Gravity, _ frame: PixelBuffer, _ boxes: [DetectedObject], _ width: Int, _ height: Int
        )
            -> (x: Int, y: Int)
        {
            if let f = self.faces { return f.origin(gravity, in: frame, faces: boxes, width: width, height: height) }
            if gravity.kind == .objects { return ServiceGeometry.place(width, height, in: frame.width, frame.height, gravity: .center) }
            return ImageAnalysis.smartCropOrigin(frame, width: width, height: height)
        }
        if cw < w || ch < h {
            let gravity = options.crop?.gravity ?? options.gravity
            let origin: (x: Int, y: Int)
            if gravity.kind == .smart || gravity.kind == .objects {
                guard let buffer = pixels else { return nil }
                let region = try cut(buffer, plan.trim)
                origin = keeping(gravity, region, faces(region), cw, ch)
            } else {
                // Crop offsets are the source's pixels, whatever the dpr.
                origin = ServiceGeometry.place(cw, ch, in: w, h, gravity: gravity, pixelScale: sourceScale)
            }
            plan.crop = (origin.x, origin.y, cw, ch)
            w = cw
            h = ch
        }
        let size = PixelSize(width: max(1, s.scaledWidth), height: max(1, s.scaledHeight))
        if size.width != w || size.height != h { plan.resize = size }
        w = size.width
        h = size.height
        let fw = ServiceGeometry.minNonZero(s.resultCropWidth, w), fh = ServiceGeometry.minNonZero(s.resultCropHeight, h)
        if fw < w || fh < h {
            let box = PixelSize(width: min(fw, w), height: min(fh, h))
            let origin: (x: Int, y: Int)
            if options.gravity.kind == .smart || options.gravity.kind == .objects {
                // Smart gravity looks at the picture as it will be cropped: the resized frame.
                guard let buffer = pixels else { return nil }
                let region = try cut(buffer, plan.trim)
                let before = try cut(region, plan.crop)
                let preview = try Resampler.resize(before, to: PixelSize(width: w, height: h), quality: .bilinear)
                // The faces, from the trimmed frame's pixels to the preview's.
                let boxes =
                    self.faces == nil
                    ? []
                    : faces(region).map {
                        $0.mapped(dx: -(plan.crop?.x ?? 0), dy: -(plan.crop?.y ?? 0), scale: Double(w) / Double(max(1, before.width)))
                    }
                origin = keeping(options.gravity, preview, boxes, box.width, box.height)
            } else {
                origin = ServiceGeometry.place(box.width, box.height, in: w, h, gravity: options.gravity, pixelScale: s.dprScale)
            }
            plan.fill = (origin.x, origin.y, box.width, box.height)
            w = box.width
            h = box.height
        }
        // The objects to blur or outline, found in the trimmed frame and brought to the result's.
        if options.blurDetections != nil || options.drawDetections != nil {
            guard let buffer = pixels else { return nil }
            let region = try cut(buffer, plan.trim)
            let before = plan.crop.map { PixelSize(width: $0.width, height: $0.height) } ?? region.size
            let scale = Double(plan.resize?.width ?? before.width) / Double(max(1, before.width))
            plan.detections = faces(region).map {
                $0.mapped(dx: -(plan.crop?.x ?? 0), dy: -(plan.crop?.y ?? 0), scale: scale)
                    .mapped(dx: -(plan.fill?.x ?? 0), dy: -(plan.fill?.y ?? 0))
            }
        }
        // From here on sizes are the result's pixels.
        func embed(_ tw: Int, _ th: Int, _ gravity: ProcessingOptions.Gravity) -> (top: Int, right: Int, bottom: Int, left: Int)? {
            guard tw > w || th > h else { return nil }
            let cw = max(w, tw > 0 ? tw : w), ch = max(h, th > 0 ? th : h)
            let at = ServiceGeometry.place(w, h, in: cw, ch, gravity: gravity, pixelScale: s.dprScale)
            defer {
                w = cw
                h = ch
            }
            return (at.y, cw - w - at.x, ch - h - at.y, at.x)
        }
        if options.extend { plan.extend = embed(s.targetWidth, s.targetHeight, options.extendGravity) }
        if options.extendAspectRatio, s.aspectWidth > 0, s.aspectHeight > 0 {
            plan.aspect = embed(s.aspectWidth, s.aspectHeight, options.extendAspectRatioGravity)
        }
        if let p = options.padding {
            func px(_ v: Int) -> Int { ServiceGeometry.scaleToEven(v, s.dprScale) }
            plan.padding = (px(p.top), px(p.right), px(p.bottom), px(p.left))
            w += px(p.left) + px(p.right)
            h += px(p.top) + px(p.bottom)
        }
        // Checked before any pixel of it is made: a zoom or dpr can ask for any size.
        let pixels = w.multipliedReportingOverflow(by: h)
        guard !pixels.overflow, pixels.partialValue <= Self.maxResultPixels, w <= Self.maxResultSide, h <= Self.maxResultSide else {
            throw ImageCodingError.exceedsLimit(.maxPixels, found: pixels.overflow ? Int.max : pixels.partialValue, limit: Self.maxResultPixels)
        }
        // Last, over everything, as imgproxy draws it: offsets in the result's pixels.
        if let wm = watermark, let o = watermarkOptions {
            plan.watermark = try wm.overlay(
                for: o, width: w, height: h, dprScale: s.dprScale, box: options.watermarkSize, rotate: options.watermarkRotate,
                shadow: options.watermarkShadow)
        }
        return plan
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
            options.adjustments.isIdentity, options.roundedCorners == 0, flattenColor == nil
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
        if let size = plan.resize { out = try Resampler.resize(out, to: size) }
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
