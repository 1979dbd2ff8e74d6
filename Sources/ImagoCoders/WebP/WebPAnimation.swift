// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CLCMS2
import CWebP
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An animated WebP's frames, decoded on demand: libwebp's demuxer locates each ANMF frame,
/// `WebPDecode` decodes it alone, and ``AnimationComposer`` applies its dispose and blend methods.
///
/// As browsers do, "dispose to background" clears to transparent (the ANIM background colour is a
/// hint the format lets viewers ignore), and durations of 10 ms or less show for 100 ms.
final class WebPAnimation: ComposedAnimation {
    let data: Data
    let container: WebPContainer
    let composer: AnimationComposer
    let frameCount: Int
    let canvasSize: PixelSize
    /// Each frame's bitstream (ALPH + VP8, or VP8L) as a range of `data`.
    let fragments: [Range<Int>]

    init(data: Data, container: WebPContainer, options: DecodeOptions) throws {
        let canvas = PixelSize(width: container.width, height: container.height)
        try options.limits.check(width: canvas.width, height: canvas.height, format: .webp)
        try options.limits.check(frameCount: container.frameCount, framePixels: 0)
        var layouts: [AnimationFrameLayout] = []
        var fragments: [Range<Int>] = []
        let wanted = options.firstFrameOnly ? 1 : container.frameCount
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var webpData = WebPData(bytes: base, size: raw.count)
            var state = WEBP_DEMUX_PARSING_HEADER
            guard let demux = WebPDemuxInternal(&webpData, 0, &state, Int32(WEBP_DEMUX_ABI_VERSION)) else { return }
            defer { WebPDemuxDelete(demux) }
            var iter = WebPIterator()
            guard WebPDemuxGetFrame(demux, 1, &iter) != 0 else { return }
            defer { WebPDemuxReleaseIterator(&iter) }
            repeat {
                guard let bytes = iter.fragment.bytes else { break }
                let start = bytes - base
                fragments.append(start..<(start + iter.fragment.size))
                let ms = Int(iter.duration)
                layouts.append(
                    AnimationFrameLayout(
                        x: Int(iter.x_offset), y: Int(iter.y_offset), width: Int(iter.width), height: Int(iter.height),
                        duration: FrameTiming.displayedDuration(Double(ms) / 1000),
                        disposal: iter.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND ? .background : .none,
                        blend: iter.blend_method == WEBP_MUX_BLEND ? .over : .source,
                        mayBeTransparent: iter.has_alpha != 0))
            } while layouts.count < wanted && WebPDemuxNextFrame(&iter) != 0
        }
        guard !layouts.isEmpty else { throw ImageCodingError.corrupt(.webp, "the animation has no readable frame") }
        for l in layouts { try options.limits.check(width: max(1, l.width), height: max(1, l.height), format: .webp) }
        self.data = data
        self.container = container
        self.fragments = fragments
        canvasSize = canvas
        frameCount = layouts.count
        let icc = options.colorManagement ? container.icc : nil
        let threads = CodecThreads.limit(options.maxThreads)
        composer = AnimationComposer(format: .webp, canvas: canvas, layouts: layouts) { [data, fragments, layouts] index in
            try Self.decodeFrame(data, range: fragments[index], layout: layouts[index], icc: icc, threads: threads)
        }
    }

    /// One frame's own pixels, premultiplied ARGB32 (colour managed when `icc` is given).
    private static func decodeFrame(
        _ data: Data, range: Range<Int>, layout: AnimationFrameLayout, icc: Data?, threads: Int
    ) throws -> PixelBuffer {
        var buffer = try PixelBuffer(uninitializedWidth: layout.width, height: layout.height, format: .argb32Premultiplied) { out in
            var config = WebPDecoderConfig()
            _ = WebPInitDecoderConfigInternal(&config, WEBP_DECODER_ABI_VERSION)
            config.output.colorspace = WebPOutputPlan.colorspace(display: true, convertsICC: icc != nil)
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(layout.width * 4)
            config.output.u.RGBA.size = out.count
            let status = data.withUnsafeBytes { raw -> VP8StatusCode in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return VP8_STATUS_NOT_ENOUGH_DATA }
                return WebPDecode(base + range.lowerBound, range.count, &config)
            }
            try WebPContainer.check(status, during: "an animation frame")
        }
        if let icc { WebPOutputPlan.applyICC(icc, to: &buffer, display: true, threads: threads) }
        return buffer
    }

    var loopCount: Int { frameCount > 1 ? container.loopCount : 1 }

    /// Every frame, frame 0 alone, or frame 0 and this source.
    func image(options: DecodeOptions) throws -> Image {
        let metadata = ImageMetadata(iccProfile: options.colorManagement ? nil : container.icc, exif: container.exif)
        let hasAlpha = container.hasAlpha || !composer.layouts.allSatisfy { $0.covers(canvasSize) }
        return try image(
            options: options, format: .webp, metadata: metadata,
            orientation: container.orientation, hasAlpha: hasAlpha)
    }
}
