// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoServiceURL

/// `IMAGO_FORMAT_POLICY=efficient` for one result: the plans of its cheap first answer, of the
/// smaller one made at the encoder's usual effort once the result is asked again, and of the
/// smallest one made at the encoder's highest useful effort once the result is hot (see
/// ``OutputSettings/FormatPolicy/efficient``).
struct EfficientDelivery: Sendable {
    /// The first answer: a progressive JPEG with optimised Huffman tables and N. Robidoux's
    /// quantisation tables, at the visual quality the imgproxy answer would have had.
    var first: RenderPlan
    /// The answer made on the request once the result or its source is asked again: an AVIF at
    /// speed 9, at that quality; `nil` for a client that does not take AVIF. (A quick WebP is not
    /// made: at method 4 it is about as large as the progressive JPEG, 1.07x its bytes by the
    /// encoder table, for six times its CPU, so WebP clients wait for the hot WebP.)
    var later: RenderPlan?
    /// The answer made once the result is hot (`IMAGO_EFFICIENT_HOT_ASKS`): the same format at
    /// its slowest useful effort (AVIF at `IMAGO_EFFICIENT_AVIF_SPEED`, WebP at
    /// `IMAGO_EFFICIENT_WEBP_EFFORT`); `nil` for a client that takes neither.
    var hot: RenderPlan?

    /// The two plans for a result whose imgproxy answer is `plan`, or `nil` when the policy
    /// leaves the result as imgproxy makes it: the policy is off, the URL names the format, or
    /// the result is animated, may be transparent, keeps a gain map or is written in a format
    /// with no visual quality mapping (PNG, GIF and the like keep their lossless answers).
    init?(
        plan: RenderPlan, info: ImageInfo, options: ProcessingOptions, accept: String?, output: OutputSettings,
        coders: ImageCoderRegistry
    ) {
        guard output.formatPolicy == .efficient, options.format == nil || plan.negotiated, !plan.animated, !plan.keepsGainMap,
            !RenderPlan.mayBeTransparent(info: info, options: options),
            let visual = OutputSettings.QualityMapping.jpegQuality(
                scoringAs: plan.quality, in: plan.format, avifSpeed: plan.avifSpeed ?? AVIFCoder.defaultSpeed)
        else { return nil }
        var first = plan
        first.format = .jpeg
        first.quality = OutputSettings.QualityMapping.robidouxQuality(visual)
        first.progressive = true
        first.jpegQuantization = .robidoux
        first.avifSpeed = nil
        first.webpEffort = nil
        first.qualityFollowsSpeed = false
        first.flattenColor = plan.flattenColor ?? RGBA8(r: 255, g: 255, b: 255)
        first.variesByAccept = true
        first.negotiated = true
        self.first = first
        let accepts = AcceptHeader(accept)
        later = Self.smallest(first, visual: visual, accept: accepts, efforts: (OutputSettings.fastAVIFSpeed, nil), coders: coders)
        hot = Self.smallest(
            first, visual: visual, accept: accepts, efforts: (output.efficientAVIFSpeed, output.efficientWebPEffort), coders: coders)
    }

    /// `first` re-planned in the format of fewest bytes at the JPEG quality `visual`'s score
    /// that the client accepts: AVIF at libavif's speed `efforts.avif`, else WebP at libwebp's
    /// method `efforts.webp` (none when `nil`); `nil` for a client that takes neither. On one
    /// thread: a background encode takes its lane of the workers and no more.
    private static func smallest(
        _ first: RenderPlan, visual: Int, accept: AcceptHeader, efforts: (avif: Int, webp: Int?), coders: ImageCoderRegistry
    ) -> RenderPlan? {
        let mapping = OutputSettings.QualityMapping.visual
        var later = first
        later.progressive = false
        later.jpegQuantization = .standard
        later.encoderThreads = 1
        if coders.canEncode(.avif), accept.explicitlyAccepts("image/avif") {
            later.format = .avif
            later.avifSpeed = efforts.avif
            later.quality = mapping.quality(visual, for: .avif, avifSpeed: efforts.avif)
        } else if let effort = efforts.webp, coders.canEncode(.webp), accept.explicitlyAccepts("image/webp") {
            later.format = .webp
            later.webpEffort = effort
            later.quality = mapping.quality(visual, for: .webp, avifSpeed: efforts.avif)
        } else {
            return nil
        }
        return later
    }
}
