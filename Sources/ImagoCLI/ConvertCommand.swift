// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoCache
import ImagoCoders
import ImagoCommandLine
import ImagoCore
import ImagoProcessing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode an image and encode it again, in the format of --format or of OUT's extension.",
        discussion: """
            EXIF orientation is applied to the pixels unless --no-orientation is given (then the \
            orientation is kept in the output's EXIF). Embedded ICC profiles are converted to sRGB \
            unless --no-color-management is given (then the profile is kept).

            A JPEG converted to JPEG XL with --lossless is recompressed without decoding (about 20% \
            smaller), keeping what is needed to give the JPEG back: converting that JPEG XL to JPEG, \
            with no resize, crop or other change asked for, writes the original JPEG's bytes.

            --all-frames and --frames write several pages or frames, each to a file of its own \
            named after OUT with its 0-based number before the extension, padded to the same \
            width: `imago convert --all-frames --dpi 150 doc.pdf page.jpg` writes page-0.jpg, \
            page-1.jpg, ... (page-00.jpg, ... from 11 pages). Pages are converted side by side, \
            one per core.
            """
    )

    @Argument(help: "The input image.")
    var input: String

    @Argument(help: "The output file; written atomically.")
    var output: String

    @Option(
        help:
            "Output format: jpeg, png, apng, gif, webp, jxl, avif, heic, tiff or bmp. Default: from OUT's extension. An animation stays animated when the format can animate (GIF, APNG, WebP, JPEG XL; an animation written as PNG is an APNG)."
    )
    var format: String?

    @Option(help: "Lossy quality, 0-100 (JPEG, lossy WebP, JPEG XL, AVIF, HEIC).")
    var quality: Int = 90

    @Flag(help: "Lossless WebP, JPEG XL, AVIF or HEIC; a JPEG to JPEG XL is recompressed losslessly, reversibly.")
    var lossless = false

    @Option(help: "Encoder effort, 1 (fastest) to 9 (smallest): JPEG XL (default 7), AVIF (libavif speed 11-N; default speed 9).")
    var effort: Int?

    @Flag(help: "Keep the stored pixel orientation and record it in EXIF instead of turning the pixels.")
    var noOrientation = false

    @Flag(help: "Keep pixel values and the embedded ICC profile instead of converting to sRGB.")
    var noColorManagement = false

    @Option(help: "Frame of an animation (composited), or page of a multi-page TIFF or a PDF (at its own size), to convert, 0-based.")
    var frame: Int?

    @Flag(help: "Write only the first frame of an animation (same as --frame 0).")
    var firstFrame = false

    @Flag(help: "Write every page of a PDF or multi-page TIFF, or every frame of an animation, each to its own file (OUT-N.ext).")
    var allFrames = false

    @Option(help: "Write these pages or frames (0-based numbers and ranges, such as 0,2-4), each to its own file (OUT-N.ext).")
    var frames: FrameList?

    @Option(
        help:
            "Make a thumbnail whose longest side is at most N pixels (shrink-on-load, then Lanczos3; never upscales a raster; SVG and PDF are drawn at that size)."
    )
    var thumbnail: Int?

    @Option(help: "Render SVG or PDF at this resolution in dots per inch (default: SVG's own size, 96 dpi; PDF's points, 72 dpi).")
    var dpi: Double?

    @Option(help: "Scale down so the decoded pixels fit in BYTES (SDWebImage's scale-down; 60 MB is its default).")
    var scaleDownLimit: Int?

    @OptionGroup var sizing: ResizeArguments

    @Option(help: "Crop to X,Y,W,H (after any resize).")
    var crop: String?

    @Option(help: "Rotate by DEG degrees counter-clockwise, growing the canvas to fit.")
    var rotate: Double?

    @Option(help: "Flip: h (horizontal), v (vertical) or hv.")
    var flip: String?

    @Option(help: "Round the corners with radius R pixels.")
    var roundCorner: Double?

    @Option(help: "Gaussian blur with radius (sigma) R pixels.")
    var blur: Double?

    @Option(help: "Tint with RRGGBB or RRGGBBAA (hex).")
    var tint: String?

    func validate() throws {
        guard (0...100).contains(quality) else { throw ValidationError("--quality must be between 0 and 100") }
        if let frame, frame < 0 { throw ValidationError("--frame must be 0 or more") }
        if frame != nil, firstFrame { throw ValidationError("--frame and --first-frame cannot be used together") }
        if allFrames || frames != nil, frame != nil || firstFrame || allFrames && frames != nil {
            throw ValidationError("choose one of --frame, --first-frame, --frames and --all-frames")
        }
        if let thumbnail, thumbnail < 1 { throw ValidationError("--thumbnail must be at least 1") }
        if let scaleDownLimit, scaleDownLimit < 4 { throw ValidationError("--scale-down-limit must be at least 4 bytes") }
        if let effort, !(1...9).contains(effort) { throw ValidationError("--effort must be between 1 and 9") }
        if let dpi, !(dpi > 0 && dpi <= 10_000) { throw ValidationError("--dpi must be more than 0 and at most 10000") }
    }

    func run() throws {
        do {
            let source = try ImageInput(contentsOf: URL(fileURLWithPath: input))
            if allFrames || frames != nil {
                try convertFrames(of: source)
                return
            }
            let target = try outputFormat(), options = encodeOptions, decodeOptions = self.decodeOptions
            let chosenFrame = frame ?? (firstFrame ? 0 : nil)
            // PDF, SVG, TIFF, HEIF, … decode in a sandboxed worker (IMAGO_ISOLATED_FORMATS).
            let coders = try CLIDecoders.registry(for: try? source.format())
            if let direct = try directOutput(
                source, to: target, options: options, decodeOptions: decodeOptions, chosenFrame: chosenFrame, coders: coders)
            {
                try OutputFile.write(direct, to: URL(fileURLWithPath: output))
                return
            }
            // The header, when a frame is chosen or the pixel format depends on it.
            let needsInfo = chosenFrame != nil || thumbnail == nil && scaleDownLimit == nil
            let info = needsInfo ? try? source.info(coders: coders) : nil
            let encoded = try convert(source, info: info, chosenFrame: chosenFrame, to: target, options: options, coders: coders)
            try OutputFile.write(encoded, to: URL(fileURLWithPath: output))
        } catch {
            throw CLIFailure.exit(error, file: input)
        }
    }

    var decodeOptions: DecodeOptions {
        var options = DecodeOptions(colorManagement: !noColorManagement)
        options.renderDPI = dpi
        return options
    }

    var encodeOptions: EncodeOptions {
        var options = EncodeOptions(quality: Double(quality) / 100, lossless: lossless, orientation: noOrientation ? .writeEXIF : .bake)
        options.effort = effort
        return options
    }

    /// `source` (or its frame or page `chosenFrame`) decoded, transformed and encoded as `target`.
    func convert(
        _ source: ImageInput, info: ImageInfo?, chosenFrame: Int?, to target: ImageFormat, options: EncodeOptions,
        coders: ImageCoderRegistry
    ) throws -> Data {
        let goal = try decodeGoal(info: info, decodeOptions: decodeOptions, chosenFrame: chosenFrame)
        var image = try DecodePlanner.decode(source, goal: goal, coders: coders)
        if let pipeline = try transformers() {
            image = try pipeline.transform(image)
        }
        image = try Self.keepingChosenFrame(of: image, chosenFrame: chosenFrame, decodedPage: goal.options.page)
        return try ImageCoderRegistry.shared.encode(image, as: target, options: options)
    }

    /// The output made without decoding a whole bitmap, when nothing but the format changes: a
    /// lossless JPEG ⇄ JPEG XL move, or a conversion streamed in rows; `nil` when neither applies.
    private func directOutput(
        _ source: ImageInput, to target: ImageFormat, options: EncodeOptions, decodeOptions: DecodeOptions, chosenFrame: Int?,
        coders: ImageCoderRegistry
    ) throws -> Data? {
        if thumbnail == nil, scaleDownLimit == nil, chosenFrame == nil, try transformers() == nil,
            let moved = try losslessJPEGMove(source, to: target)
        {
            return moved
        }
        // A plain conversion to JPEG, PNG or lossy WebP flows from decoder to encoder in rows when the source allows.
        if thumbnail == nil, scaleDownLimit == nil, chosenFrame == nil, try transformers() == nil,
            let streamed = try StreamedTranscoding.transcode(source, to: target, options: options, decodeOptions: decodeOptions, coders: coders)
        {
            return streamed
        }
        return nil
    }

    /// What to decode: the one frame or page asked for (checked against the header's count),
    /// and a thumbnail's or scale-down's size, or else the pixel format the work needs.
    func decodeGoal(info: ImageInfo?, decodeOptions: DecodeOptions, chosenFrame: Int?) throws -> DecodeGoal {
        var goal = DecodeGoal(options: decodeOptions)
        // One frame or page is decoded alone: a TIFF page at its own size, a PDF page, an
        // animation's frame composited from frames decoded on demand.
        if let chosenFrame, let info {
            if chosenFrame >= max(info.frameCount, info.pageCount) {
                throw Self.outOfRange(chosenFrame, max(info.frameCount, info.pageCount))
            }
            goal.options.page = chosenFrame
        }
        // Thumbnails and scale-downs stream their rows where the source allows; the planner chooses.
        if let thumbnail {
            goal.size = .fitting(PixelSize(width: thumbnail, height: thumbnail), preserveAspectRatio: true)
        } else if let scaleDownLimit {
            goal.size = .scaledDown(limitBytes: scaleDownLimit)
        } else if let info {
            // Work that only moves whole pixels decodes in a format that holds them exactly
            // (straight alpha, gray as gray), so a conversion changes no visible pixel.
            let effect = try transformers()?.pixelEffect(on: info) ?? PixelEffect.none
            goal.options.pixelFormat = DecodePlanner.pixelFormat(for: info, resamples: effect == .resamples)
        }
        return goal
    }

    /// The chosen frame alone, when the decoded image still holds several (or the frame was not
    /// decoded as a page of its own); the image unchanged otherwise.
    private static func keepingChosenFrame(of image: Image, chosenFrame: Int?, decodedPage: Int?) throws -> Image {
        if let frame = chosenFrame, image.frames.count > 1 || frame > 0 && decodedPage == nil {
            guard frame < image.frames.count else { throw Self.outOfRange(frame, image.frames.count) }
            let chosen = image.frames[frame]
            return try Image(
                frames: [ImageFrame(buffer: chosen.buffer)], loopCount: 1, orientation: image.orientation,
                scale: image.scale, format: image.format, metadata: image.metadata, hasAlpha: image.hasAlpha)
        }
        return image
    }

    /// A JPEG recompressed into JPEG XL (with `--lossless`), or the JPEG a JPEG XL was
    /// recompressed from given back, without decoding pixels; `nil` when neither applies.
    private func losslessJPEGMove(_ source: ImageInput, to target: ImageFormat) throws -> Data? {
        guard target == .jpeg || (target == .jxl && lossless) else { return nil }
        // The first bytes tell the format; the file is read whole only when it is a match, and
        // libjxl (whose start-up alone costs milliseconds) is loaded only then.
        let format = try source.format()
        guard (format, target) == (.jpeg, .jxl) || (format, target) == (.jxl, .jpeg) else { return nil }
        let jxl = JXLCoder()
        guard jxl.canDecode(.jxl) else { return nil }
        switch (format, target) {
        case (.jpeg?, .jxl):
            return try jxl.recompress(jpeg: try source.contents(), effort: effort ?? JXLCoder.defaultEffort)
        case (.jxl?, .jpeg):
            return try jxl.reconstructedJPEG(from: try source.contents())
        default:
            return nil
        }
    }

    static func outOfRange(_ frame: Int, _ count: Int) -> ImageCodingError {
        .invalidArgument("frame \(frame) is out of range: the image has \(count) frame(s) or page(s)")
    }

    /// The transformers the options ask for, in a fixed order: resize, crop, rotate, flip, round corner, blur, tint.
    func transformers() throws -> ImageTransformers.Pipeline? {
        var steps: [any ImageTransforming] = []
        func ints(_ text: String, _ separator: Character, count: Int, _ option: String) throws -> [Int] {
            let parts = text.split(separator: separator).map { Int(PathName.trimmed($0)) }
            guard parts.count == count, parts.allSatisfy({ $0 != nil }) else {
                throw ImageCodingError.invalidArgument("\(option) '\(text)' is not \(count) integers separated by '\(separator)'")
            }
            return parts.compactMap { $0 }
        }
        if let resize = try sizing.transformer() { steps.append(resize) }
        if let crop {
            let r = try ints(crop, ",", count: 4, "--crop")
            steps.append(ImageTransformers.Crop(x: r[0], y: r[1], width: r[2], height: r[3]))
        }
        if let rotate { steps.append(ImageTransformers.Rotate(degrees: rotate)) }
        if let flip {
            let f = flip.lowercased()
            guard !f.isEmpty, f.allSatisfy({ $0 == "h" || $0 == "v" }) else {
                throw ImageCodingError.invalidArgument("--flip '\(flip)' is not h, v or hv")
            }
            steps.append(ImageTransformers.Flip(horizontal: f.contains("h"), vertical: f.contains("v")))
        }
        if let roundCorner { steps.append(ImageTransformers.RoundCorner(radius: roundCorner)) }
        if let blur { steps.append(ImageTransformers.Blur(radius: blur)) }
        if let tint {
            let hex = tint.hasPrefix("#") ? String(tint.dropFirst()) : tint
            guard hex.count == 6 || hex.count == 8, let v = UInt32(hex, radix: 16) else {
                throw ImageCodingError.invalidArgument("--tint '\(tint)' is not RRGGBB or RRGGBBAA")
            }
            let rgba = hex.count == 6 ? v << 8 | 0xFF : v
            steps.append(
                ImageTransformers.Tint(
                    color: RGBA8(
                        r: UInt8(rgba >> 24), g: UInt8(rgba >> 16 & 0xFF),
                        b: UInt8(rgba >> 8 & 0xFF), a: UInt8(rgba & 0xFF))))
        }
        return steps.isEmpty ? nil : ImageTransformers.Pipeline(steps)
    }

    func outputFormat() throws -> ImageFormat {
        if let format {
            guard let f = ImageFormat(cliName: format) else {
                throw ImageCodingError.invalidArgument("unknown output format '\(format)'")
            }
            return f
        }
        let ext = URL(fileURLWithPath: output).pathExtension
        guard !ext.isEmpty, let f = ImageFormat(fileExtension: ext) else {
            throw ImageCodingError.invalidArgument("cannot tell the output format from '\(output)'; pass --format")
        }
        return f
    }
}
