// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoCoders
import ImagoCommandLine
import ImagoCore
import ImagoProcessing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--all-frames` and `--frames`: several pages or frames, each written to a file of its own.
extension ConvertCommand {
    /// Writes the pages or frames asked for, each to ``frameOutput(_:digits:)``: pages side by
    /// side, one per core (each decoded alone, at its own size: a PDF page, a TIFF page); an
    /// animation's frames from one decode, in order. Every page is tried; the failures are reported together.
    func convertFrames(of source: ImageInput) throws {
        let target = try outputFormat(), options = encodeOptions
        let jobs = min(frames?.indices.count ?? Int.max, ProcessInfo.processInfo.activeProcessorCount)
        // PDF, TIFF, … pages (and their count) are read in sandboxed workers
        // (IMAGO_ISOLATED_FORMATS), one a job.
        let coders = try CLIDecoders.registry(for: try? source.format(), workers: jobs)
        let info = try source.info(coders: coders)
        let count = max(info.frameCount, info.pageCount)
        let chosen = frames?.indices ?? Array(0..<count)
        if let beyond = chosen.first(where: { $0 >= count }) { throw Self.outOfRange(beyond, count) }
        let digits = String(max(0, count - 1)).count
        // An animation's frames are composited from one decode; pages (a PDF's, a TIFF's, at
        // their own sizes) are decoded alone.
        guard info.format.supportsAnimation, info.frameCount > 1 else {
            let bytes = try source.contents()
            let failures = SharedWork.forEach(chosen.count, jobs: jobs) { i in
                let encoded = try convert(ImageInput(bytes), info: info, chosenFrame: chosen[i], to: target, options: options, coders: coders)
                try OutputFile.write(encoded, to: frameOutput(chosen[i], digits: digits))
            }
            // Each failure on a line of its own (`imago: IN: frame N: what went wrong`), then status 1.
            for failure in failures {
                Console.error("imago: \(input): frame \(chosen[failure.index]): \(CLIFailure.describe(failure.error))\n")
            }
            if !failures.isEmpty { throw ExitCode(1) }
            return
        }
        try convertAnimationFrames(of: source, info: info, chosen, digits: digits, to: target, options: options, coders: coders)
    }

    /// An animation's frames `chosen`, from one decode of the whole (composited on demand).
    private func convertAnimationFrames(
        of source: ImageInput, info: ImageInfo, _ chosen: [Int], digits: Int, to target: ImageFormat, options: EncodeOptions,
        coders: ImageCoderRegistry
    ) throws {
        let goal = try decodeGoal(info: info, decodeOptions: decodeOptions, chosenFrame: nil)
        var image = try DecodePlanner.decode(source, goal: goal, coders: coders)
        if let pipeline = try transformers() { image = try pipeline.transform(image) }
        for index in chosen {
            guard index < image.frameCount else { throw Self.outOfRange(index, image.frameCount) }
            let frame = try image.frame(at: index)
            let still = try Image(
                frames: [ImageFrame(buffer: frame.buffer)], loopCount: 1, orientation: image.orientation,
                scale: image.scale, format: image.format, metadata: image.metadata, hasAlpha: image.hasAlpha)
            try OutputFile.write(ImageCoderRegistry.shared.encode(still, as: target, options: options), to: frameOutput(index, digits: digits))
        }
    }

    /// OUT with `index` (zero-padded to `digits`) before its extension: `page.jpg` → `page-07.jpg`.
    func frameOutput(_ index: Int, digits: Int) -> URL {
        let url = URL(fileURLWithPath: output)
        let number = String(repeating: "0", count: max(0, digits - String(index).count)) + String(index)
        let name = url.deletingPathExtension().lastPathComponent + "-" + number
        let ext = url.pathExtension
        return url.deletingLastPathComponent().appendingPathComponent(ext.isEmpty ? name : name + "." + ext)
    }
}
