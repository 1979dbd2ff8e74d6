// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoProcessing

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension FuzzTargets {
    /// Whatever the bytes are, as an application decodes them through
    /// `ImageCoderRegistry.shared`: the format told and the header read (by the registry and by
    /// `ImageInput`), frame 0 as a thumbnail with the gain map, page 1 composited, every frame
    /// lazily, progressively, and row by row where the format's decoder streams rows. This
    /// reaches every coder and the C glue behind it (libjpeg's and libpng's trampolines,
    /// libtiff's accessors, the loaders of libheif, libavif, libjxl, librsvg and poppler).
    public static func decode(_ data: Data) {
        let coders = ImageCoderRegistry.shared
        attempt { try coders.detectFormat(of: data, limits: limits) }
        attempt { try coders.info(of: data) }
        attempt { try ImageInput(data).info() }
        var still = stillOptions
        still.gainMap = true
        attempt { try coders.decode(data, options: still) }
        var page = stillOptions
        page.page = 1
        attempt { try coders.decode(data, options: page) }
        attempt {
            let image = try coders.decode(data, options: lazyOptions)
            for index in 0..<min(image.frameCount, 4) { _ = try image.frame(at: index) }
        }
        if let progressive = coders.makeProgressiveDecoder(for: data.prefix(64), options: stillOptions) {
            feed(progressive, data)
        }
        guard let format = ImageFormat(sniffing: data), let decoder = coders.decoder(for: format) else { return }
        if let rows = decoder as? any RowStreamingImageDecoding, rows.canStreamRows(of: data.prefix(1 << 16)) {
            attempt { try rows.decodeRows(data, options: stillOptions, into: RowSink()) }
        }
        if format == .jxl {
            attempt { try JXLCoder().reconstructedJPEG(from: data, maxBytes: limits.maxBytes) }
        }
    }

    /// libjpeg-turbo behind the C glue (the error trampoline, the source managers, scan and
    /// marker limits): header, DCT-scaled thumbnail, full decode, rows, progressive passes.
    public static func jpeg(_ data: Data) {
        exercise(JPEGCoder(), data)
    }

    /// libpng behind the C glue (the push reader and its row sink), with Imago's APNG frames
    /// decoded and composited: header, thumbnail, every frame, rows, progressive passes.
    public static func png(_ data: Data) {
        exercise(PNGCoder(), data)
    }

    /// libtiff behind the C glue (the memory reader, the variadic tag accessors, the error
    /// handler): header, every page, page 1 alone.
    public static func tiff(_ data: Data) {
        exercise(TIFFCoder(), data)
        var page = stillOptions
        page.page = 1
        attempt { try TIFFCoder().decode(data, options: page) }
    }

    /// An SVG document: Imago's preflight (size, elements, nesting, entities), then librsvg and
    /// cairo behind the C glue, rendered as a 64-pixel thumbnail.
    public static func svg(_ data: Data) {
        let coder = SVGCoder()
        attempt { try coder.info(of: data) }
        attempt { try coder.decode(data, options: stillOptions) }
    }

    /// A PDF document through poppler behind the C glue: its pages counted and measured, pages
    /// 0 and 1 rendered as 64-pixel thumbnails.
    public static func pdf(_ data: Data) {
        let coder = PDFCoder()
        attempt { try coder.info(of: data) }
        attempt { try coder.decode(data, options: stillOptions) }
        var page = stillOptions
        page.page = 1
        attempt { try coder.decode(data, options: page) }
    }

    /// A video through FFmpeg behind the C glue: the keyframe at the start and the exact frame
    /// at one second, within ``limits`` and 200 packets.
    public static func video(_ data: Data) {
        _ = VideoFrames.looksLikeVideo(data)
        attempt { try VideoFrames.frame(of: data, at: 0, keyframesOnly: true, limits: limits, maxPackets: 200) }
        attempt { try VideoFrames.frame(of: data, at: 1, limits: limits, maxPackets: 200) }
    }

    /// `watermark_text`'s markup through Pango behind the C glue: as markup, wrapped at 200
    /// pixels, and escaped as plain text, each within a megapixel.
    public static func textMarkup(_ data: Data) {
        let markup = text(data.prefix(TextRenderer.maxMarkupBytes))
        attempt { try TextRenderer.render(markup, width: 200, maxPixels: 1_000_000) }
        attempt { try TextRenderer.render(TextRenderer.escaped(markup), font: "sans 8", maxPixels: 1_000_000) }
    }

    /// A decoder worker's reply as the host reads it (`IsolationReplyFuzzing`): the bytes are a
    /// reply file whose first line is its header, which is also read as a worker's start-up
    /// message and as an error. A worker an exploit has taken over may send anything: the host
    /// must refuse it with a typed error, read nothing outside the file, and make no frame past
    /// its limits.
    public static func isolationReply(_ data: Data) {
        IsolationReplyFuzzing.read(data)
    }
}
