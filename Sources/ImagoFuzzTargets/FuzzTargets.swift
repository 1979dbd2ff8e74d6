// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// libFuzzer targets for Imago's own parsers and for the C glue behind its coders: one function
/// per target, which feeds the bytes it is given to a parser and discards the result.
///
/// Every error a parser throws is caught: bad input must end in an error, never in a trap, a
/// sanitiser report or a hang. Decoding is held to small ``limits`` so that a fuzzer spends its
/// time on parsing, not on allocating huge canvases.
///
/// The `imago-fuzz` executable (`scripts/fuzz`, built with libFuzzer and address sanitising)
/// runs the target `IMAGO_FUZZ_TARGET` names; the tests replay every input kept in
/// `Fuzz/regressions/<target>/` through its target and run each target over a few hundred
/// inputs of their own.
public enum FuzzTargets {
    /// Every target by name, in the order `scripts/fuzz` runs them.
    public static let all: [(name: String, run: @Sendable (Data) -> Void)] = [
        ("url", { url($0) }),
        ("presets", { presets($0) }),
        ("signature", { signature($0) }),
        ("infoOptions", { infoOptions($0) }),
        ("cookies", { cookies($0) }),
        ("header", { header($0) }),
        ("tiffHeader", { tiffHeader($0) }),
        ("pngChunks", { pngChunks($0) }),
        ("isoBoxes", { isoBoxes($0) }),
        ("gif", { gif($0) }),
        ("bmp", { bmp($0) }),
        ("ico", { ico($0) }),
        ("icns", { icns($0) }),
        ("webp", { webp($0) }),
        ("ultraHDR", { ultraHDR($0) }),
        ("svgSanitizer", { svgSanitizer($0) }),
        ("svgFixes", { svgFixes($0) }),
        ("dataURL", { dataURL($0) }),
        ("exif", { exif($0) }),
        ("iptc", { iptc($0) }),
        ("xmp", { xmp($0) }),
        ("metadataBlocks", { metadataBlocks($0) }),
        ("iccProfile", { iccProfile($0) }),
        ("decode", { decode($0) }),
        ("jpeg", { jpeg($0) }),
        ("png", { png($0) }),
        ("tiff", { tiff($0) }),
        ("svg", { svg($0) }),
        ("pdf", { pdf($0) }),
        ("video", { video($0) }),
        ("textMarkup", { textMarkup($0) }),
        ("isolationReply", { isolationReply($0) })
    ]

    /// The target called `name`, or `nil` when there is none.
    public static func named(_ name: String) -> (@Sendable (Data) -> Void)? {
        all.first { $0.name == name }?.run
    }

    /// Limits small enough that no input makes a target allocate or render for long: 4
    /// megapixels a frame, 64 frames, 16 megapixels over all frames, 8 MiB of input, 4 pages,
    /// 100 000 elements nested 256 deep, and 2 seconds of vector rendering.
    static let limits = DecodingLimits(
        maxPixels: 4_000_000, maxFrames: 64, maxTotalFramePixels: 16_000_000, maxBytes: 8 << 20,
        maxSourcePixels: 64_000_000, maxPages: 4, maxElements: 100_000, maxNestingDepth: 256, maxRenderSeconds: 2)

    /// Frame 0 alone, shrunk while decoding where the decoder can (a 64-pixel thumbnail).
    static let stillOptions = DecodeOptions(
        firstFrameOnly: true, thumbnailPixelSize: PixelSize(width: 64, height: 64), limits: limits)

    /// Every frame at full size, later frames decoded on demand.
    static let lazyOptions = DecodeOptions(decodesFramesLazily: true, limits: limits)

    /// A registry without decoders: its header reads go to the container walkers that stand in
    /// for missing decoders (`HeaderProbe`: GIF blocks, BMP and ICO headers, TIFF IFDs, JPEG 2000
    /// boxes).
    static let headerOnly = ImageCoderRegistry()

    /// Runs `body` and discards its result and whatever it throws.
    static func attempt<T>(_ body: () throws -> T) {
        _ = try? body()
    }

    /// The bytes as text, invalid UTF-8 repaired, as a server receives a request's path.
    static func text(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self)
    }

    /// `decoder` through every entry point, each within ``limits``: the header, frame 0 as a
    /// thumbnail, a full decode with up to four frames taken from its lazy animation, a row by
    /// row decode when the decoder streams rows (on one thread and with a helper thread), and a progressive decode fed in three pieces.
    static func exercise(_ decoder: any ImageDecoding, _ data: Data) {
        attempt { try decoder.info(of: data) }
        attempt { try decoder.decode(data, options: stillOptions) }
        attempt {
            let image = try decoder.decode(data, options: lazyOptions)
            for index in 0..<min(image.frameCount, 4) { _ = try image.frame(at: index) }
        }
        if let rows = decoder as? any RowStreamingImageDecoding, rows.canStreamRows(of: data.prefix(1 << 16)) {
            attempt { try rows.decodeRows(data, options: stillOptions, into: RowSink()) }
            // The rows finished on a helper thread, as streamed conversions do.
            var helped = stillOptions
            helped.rowHelperThread = true
            attempt { try rows.decodeRows(data, options: helped, into: RowSink()) }
        }
        if let progressive = decoder.makeProgressiveDecoder(options: stillOptions) {
            feed(progressive, data)
        }
    }

    /// Feeds `data` to `decoder` in three growing prefixes, the last one final, asking for the
    /// image after each; stops at the first error.
    static func feed(_ decoder: any ProgressiveImageDecoding, _ data: Data) {
        let cuts = [data.count / 3, data.count * 2 / 3, data.count]
        for (index, cut) in cuts.enumerated() {
            do {
                try decoder.update(data.prefix(cut), isFinal: index == cuts.count - 1)
                _ = try decoder.currentImage()
            } catch {
                return
            }
        }
    }
}

/// Takes the rows of a streamed decode and keeps none of them.
final class RowSink: DecodedRowConsuming {
    func begin(size: PixelSize) throws {}

    func consume(row: UnsafeRawBufferPointer, y: Int) throws {}
}
