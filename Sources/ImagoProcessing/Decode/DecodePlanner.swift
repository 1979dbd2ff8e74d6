// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

/// What a caller wants of a decode besides the input: the one description every decode in Imago
/// is planned from (the pipeline's decode stage, ``Thumbnailer``, ``ScaleDown``, the service and
/// the command-line tools).
public struct DecodeGoal: Sendable, Hashable {
    /// The size wanted.
    public enum Size: Sendable, Hashable {
        /// The image as it is stored.
        case full
        /// Fitting a box, as displayed (after orientation), upright: shrink-on-load where the
        /// format allows, then an exact resample (``Thumbnailer``). With `preserveAspectRatio`
        /// `false` the result is the box itself. A vector is drawn at the box's size.
        case fitting(PixelSize, preserveAspectRatio: Bool)
        /// At most this many bytes of ARGB32 pixels over all frames, aspect kept, orientation
        /// left to the viewer (``ScaleDown``).
        case scaledDown(limitBytes: Int)
        /// No smaller than this box (stored orientation), using only the decoder's own reduction
        /// (JPEG DCT scaling, WebP scaled decoding), never a resample: for callers that resample
        /// exactly themselves. A vector is drawn at this size.
        case atLeast(PixelSize)
    }

    /// The size wanted. Default ``Size/full``.
    public var size: Size
    /// The decoder's options: pixel format, page, frames, colour management, limits, scale.
    /// Their `thumbnailPixelSize` is the planner's to set. Default `DecodeOptions.default`.
    public var options: DecodeOptions
    /// The resample filter of ``Size/fitting(_:preserveAspectRatio:)``. Default
    /// ``ResamplingQuality/lanczos3``, the only one rows stream through.
    public var quality: ResamplingQuality

    /// Creates a goal; every parameter defaults as documented on its property.
    public init(size: Size = .full, options: DecodeOptions = .default, quality: ResamplingQuality = .lanczos3) {
        self.size = size
        self.options = options
        self.quality = quality
    }
}

/// Chooses how an input becomes pixels, from its header (read once, by the `ImageInput`) and a
/// ``DecodeGoal``, and carries it out:
///
/// - **streamed rows**: a still whose decoder hands rows (JPEG, a non-interlaced PNG) goes
///   through a ``StreamingResampler`` to its smaller size, so the full bitmap is never held;
///   a JPEG delivers its rows already DCT-scaled;
/// - **scaled whole**: other formats decode whole at the smallest scale the decoder can reach
///   that still covers the target (JPEG DCT, WebP scaled decoding, HEIF thumbnails, vectors drawn
///   at size), then resample exactly;
/// - **whole**: the image as stored, one page of it, or its frames on demand.
///
/// It is also where the exact-pixel-format rule lives (``pixelFormat(for:resamples:)``).
public enum DecodePlanner {
    /// A decision, for callers and tests that look before decoding.
    public enum Method: Sendable, Hashable {
        /// Rows streamed from the decoder through a resampler to `target` (stored orientation).
        case streamedRows(target: PixelSize)
        /// A whole decode, with the decoder's own reduction towards `hint` when set, then a
        /// resample to `resampleTo` when set (stored orientation). A thumbnail of a page other
        /// than the first is fitted to `hint` once decoded, by the page's own size, which the
        /// header does not give: its `resampleTo` is `nil`.
        case whole(hint: PixelSize?, resampleTo: PixelSize?)
    }

    /// How `goal` will decode `input`.
    ///
    /// - Throws: the header's errors (`ImageInput.info(coders:)`), `.invalidArgument` for a
    ///   box under 1×1 or a scale-down limit under one pixel.
    public static func method(for input: ImageInput, goal: DecodeGoal, coders: ImageCoderRegistry = .shared) throws -> Method {
        try plan(for: input, goal: goal, coders: coders).method
    }

    /// Decodes `input` as `goal` asks, by the method ``method(for:goal:coders:)`` names.
    ///
    /// - Throws: `ImageCodingError`: the header's and the decoder's errors, limits, and
    ///   `.invalidArgument` for an unusable goal. Any other failure (a file that cannot be read)
    ///   is reported as corrupt data of the input's format.
    public static func decode(_ input: ImageInput, goal: DecodeGoal, coders: ImageCoderRegistry = .shared) throws -> Image {
        do {
            let plan = try plan(for: input, goal: goal, coders: coders)
            return try plan.run(input, goal: goal, coders: coders)
        } catch let error as ImageCodingError {
            throw error
        } catch {
            guard let format = try? input.format() else { throw ImageCodingError.unsupportedFormat(nil) }
            throw ImageCodingError.corrupt(format, String(describing: error))
        }
    }

    /// The exact-pixel-format rule: work that neither resamples nor composites (a conversion to
    /// another format, crops, flips, quarter turns) decodes to the format that holds the
    /// source's pixels exactly (`PixelFormat.exact(for:)`: gray, RGB, or straight RGBA, which
    /// premultiplying would round where alpha is low); work that resamples gets the display
    /// format, premultiplied, which the resampler and compositing need.
    public static func pixelFormat(for info: ImageInfo, resamples: Bool) -> PixelFormat {
        resamples ? .argb32Premultiplied : .exact(for: info)
    }

    // MARK: Planning

    private struct Plan {
        var method: Method
        var decoder: (any RowStreamingImageDecoding)?
        /// Turn the result upright (``DecodeGoal/Size/fitting(_:preserveAspectRatio:)``).
        var orients: Bool
        /// Scale the whole decode down to this budget afterwards (``DecodeGoal/Size/scaledDown(limitBytes:)``).
        var scaleDownLimit: Int?
        /// Fit the decode into this box (stored orientation) afterwards: a page other than the
        /// first, whose size the header does not give.
        var fitsAfterDecode: PixelSize?

        func run(_ input: ImageInput, goal: DecodeGoal, coders: ImageCoderRegistry) throws -> Image {
            var image: Image
            switch method {
            case .streamedRows(let target):
                guard let decoder else { throw ImageCodingError.invalidArgument("no decoder streams these rows") }
                var options = goal.options
                options.sourceFormat = try input.format()
                image = try StreamedDecoding.decode(from: input.makeByteSource(), decoder: decoder, to: target, options: options)
            case .whole(let hint, let resampleTo):
                var options = goal.options
                options.thumbnailPixelSize = hint
                if case .fitting(_, let preserve) = goal.size { options.preserveAspectRatio = preserve }
                image = try coders.decode(input, options: options)
                let fitted = fitsAfterDecode.map { box in
                    Thumbnailer.targetSize(
                        for: image.buffer.size, within: box, preserveAspectRatio: options.preserveAspectRatio,
                        enlarges: image.format?.isVector ?? false)
                }
                if let resampleTo = resampleTo ?? fitted.flatMap({ $0 == image.buffer.size ? nil : $0 }) {
                    let frames = try image.frames.map { frame in
                        ImageFrame(
                            buffer: try Resampler.resize(
                                frame.buffer, to: resampleTo, quality: goal.quality,
                                limits: goal.options.limits),
                            duration: frame.duration)
                    }
                    image = try Image(
                        frames: frames, loopCount: image.loopCount, orientation: image.orientation, scale: image.scale,
                        format: image.format, metadata: image.metadata, hasAlpha: image.hasAlpha)
                }
                if let limit = scaleDownLimit { image = try image.scaledDown(limitBytes: limit) }
            }
            // An Ultra HDR JPEG's gain map, at its stored size, whatever the decode's size: it
            // lies after the primary image, which every method above reads no further than.
            if goal.options.gainMap, image.metadata.gainMap == nil, (try? input.format()) == .jpeg, let data = try? input.contents() {
                image.metadata.gainMap = try? UltraHDR.gainMap(in: data, limits: goal.options.limits)
            }
            return orients ? image.applyingOrientation() : image
        }
    }

    private static func plan(for input: ImageInput, goal: DecodeGoal, coders: ImageCoderRegistry) throws -> Plan {
        switch goal.size {
        case .full:
            // The decoder reads the header itself: a whole decode needs nothing from it first.
            return Plan(method: .whole(hint: nil, resampleTo: nil), orients: false)
        case .atLeast(let hint):
            return Plan(method: .whole(hint: hint, resampleTo: nil), orients: false)
        case .fitting(let box, let preserve):
            guard box.width > 0, box.height > 0 else {
                throw ImageCodingError.invalidArgument("thumbnail size \(box) must be at least 1x1")
            }
            let info = try input.info(coders: coders)
            // The box is in display orientation; the decoder works on stored pixels.
            let storedBox = info.orientation.swapsDimensions ? PixelSize(width: box.height, height: box.width) : box
            let target = Thumbnailer.targetSize(
                for: info.pixelSize, within: storedBox, preserveAspectRatio: preserve,
                enlarges: info.format.isVector)
            if goal.quality == .lanczos3, info.frameCount == 1, goal.options.page == nil, target != info.pixelSize,
                let decoder = try streamingDecoder(for: input, info: info, coders: coders)
            {
                return Plan(method: .streamedRows(target: target), decoder: decoder, orients: true)
            }
            // The header gives the first page's or frame's size: another page's (a PDF's, a
            // TIFF's) is known once it is decoded.
            if let page = goal.options.page, page > 0 {
                return Plan(method: .whole(hint: storedBox, resampleTo: nil), orients: true, fitsAfterDecode: storedBox)
            }
            return Plan(method: .whole(hint: storedBox, resampleTo: target), orients: true)
        case .scaledDown(let limit):
            guard limit >= 4 else { throw ImageCodingError.invalidArgument("scale-down limit \(limit) is under one pixel") }
            let info = try input.info(coders: coders)
            let target = ScaleDown.targetSize(for: info.pixelSize, limitBytes: limit, frameCount: info.frameCount)
            if target != info.pixelSize, info.frameCount == 1, goal.options.page == nil,
                let decoder = try streamingDecoder(for: input, info: info, coders: coders)
            {
                return Plan(method: .streamedRows(target: target), decoder: decoder, orients: false)
            }
            return Plan(
                method: .whole(hint: target != info.pixelSize ? target : nil, resampleTo: nil), orients: false,
                scaleDownLimit: limit)
        }
    }

    /// The registry's row-streaming decoder for the input's format, when it can stream this input.
    static func streamingDecoder(
        for input: ImageInput, info: ImageInfo, coders: ImageCoderRegistry
    ) throws
        -> (any RowStreamingImageDecoding)?
    {
        guard let decoder = coders.decoder(for: info.format) as? any RowStreamingImageDecoding,
            decoder.canStreamRows(of: try input.head())
        else { return nil }
        return decoder
    }
}
