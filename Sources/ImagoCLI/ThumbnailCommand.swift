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

struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make thumbnails of files and folders (recursively), in parallel.",
        discussion: """
            Each thumbnail's longest side is at most --size pixels (never upscaled), decoded with \
            shrink-on-load where the format allows and reduced with Lanczos3, EXIF orientation applied. \
            Folders are searched recursively for image files and mirrored under --output. A file that \
            fails is reported and skipped; the exit status is 1 if any failed.
            """
    )

    @Argument(help: "Image files and folders.")
    var inputs: [String]

    @Option(help: "Longest side of each thumbnail, in pixels.")
    var size: Int

    @Option(help: "The folder to write thumbnails into (created if needed).")
    var output: String

    @Option(help: "Output format: jpeg, png or webp. Default: the input's when Imago can write it, else PNG with alpha, JPEG without.")
    var format: String?

    @Option(help: "Lossy quality, 0-100.")
    var quality: Int = 85

    @Option(help: "Files processed at once. Default: all cores.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "For a video (MP4, MOV, WebM, Matroska; FFmpeg): the time in seconds of the frame to thumbnail.")
    var videoSecond: Double = 1

    func validate() throws {
        guard size >= 1 else { throw ValidationError("--size must be at least 1") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard videoSecond.isFinite, videoSecond >= 0 else { throw ValidationError("--video-second must be 0 or more") }
        guard (0...100).contains(quality) else { throw ValidationError("--quality must be between 0 and 100") }
        if let format, ImageFormat(cliName: format) == nil { throw ValidationError("unknown --format '\(format)'") }
    }

    /// One file to do: where it is and where its thumbnail goes (without extension).
    struct Job: Sendable {
        var input: URL
        var outputStem: URL
    }

    /// The thumbnail of an image, or of a video's frame at `--video-second`.
    func thumbnail(of input: ImageInput, fitting box: PixelSize, decoders: CLIDecoders.OnDemand) throws -> Image {
        guard let head = try? input.head(), VideoFrames.looksLikeVideo(head) else {
            return try Thumbnailer.thumbnail(of: input, fitting: box, coders: decoders.registry(for: try? input.format()))
        }
        let frame = try decoders.registry(for: nil, video: true).videoFrame(of: try input.contents(), at: videoSecond).image
        let size = Thumbnailer.targetSize(for: frame.pixelSize, within: box)
        return Image(buffer: try Resampler.resize(frame.buffer, to: size), hasAlpha: false)
    }

    func run() throws {
        let outputDir = URL(fileURLWithPath: output)
        try FileManager.default.createDirectory(at: outputDir, withIntermediateDirectories: true)
        // Largest files first: the long jobs start early and the short ones fill in at the end.
        let work = collect(into: outputDir).map { ($0, Console.fileSize($0.input.path)) }.sorted { $0.1 > $1.1 }.map(\.0)
        let forced = format.flatMap(ImageFormat.init(cliName:))
        let box = PixelSize(width: size, height: size)
        let options = EncodeOptions(quality: Double(quality) / 100)
        let progress = Console.errorIsTerminal
        let total = work.count
        // One worker process a job for the isolated formats (IMAGO_ISOLATED_FORMATS): a decoder
        // that crashes or hangs fails its file, and the others go on.
        let decoders: CLIDecoders.OnDemand
        do {
            decoders = try CLIDecoders.OnDemand(workers: min(jobs, max(1, total)), present: Self.formats(of: work))
        } catch {
            throw CLIFailure.exit(error, file: "IMAGO_ISOLATED_FORMATS")
        }

        let failures = SharedWork.forEach(total, jobs: jobs, progress: progress ? Self.drawProgress(total: total) : nil) { i in
            let job = work[i]
            let thumb = try thumbnail(of: ImageInput(contentsOf: job.input), fitting: box, decoders: decoders)
            let target = forced ?? ImageCoderRegistry.shared.preferredEncodingFormat(for: thumb)
            let encoded = try ImageCoderRegistry.shared.encode(thumb, as: target, options: options)
            try FileManager.default.createDirectory(
                at: job.outputStem.deletingLastPathComponent(), withIntermediateDirectories: true)
            try OutputFile.write(encoded, to: job.outputStem.appendingPathExtension(target.preferredFileExtension))
        }
        if progress { Console.error("\n") }
        let failed = failures.map { "imago: \(work[$0.index].input.path): \(CLIFailure.describe($0.error))" }
        for line in failed.sorted() { Console.error(line + "\n") }
        print("\(total - failed.count) thumbnails written to \(outputDir.path), \(failed.count) failed")
        if !failed.isEmpty { throw ExitCode(1) }
    }

    /// A progress bar on standard error, redrawn after each file.
    static func drawProgress(total: Int) -> @Sendable (Int, Int) -> Void {
        { done, failed in
            let width = 30, filled = total == 0 ? width : done * width / total
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            Console.error("\r[\(bar)] \(done)/\(total)\(failed > 0 ? " (\(failed) failed)" : "")")
        }
    }

    /// The formats the files are (their first bytes), and whether one is a video: what the
    /// decoder workers load, so that they load no other library.
    static func formats(of work: [Job]) -> (formats: Set<ImageFormat>, video: Bool) {
        var formats: Set<ImageFormat> = [], video = false
        for job in work {
            guard let input = try? ImageInput(contentsOf: job.input), let head = try? input.head() else { continue }
            if VideoFrames.looksLikeVideo(head) {
                video = true
            } else if let format = try? input.format() {
                formats.insert(format)
            }
        }
        return (formats, video)
    }

    /// Named files as they are; folders searched recursively for files with image extensions.
    private func collect(into outputDir: URL) -> [Job] {
        var jobs: [Job] = []
        let fm = FileManager.default
        for path in inputs {
            let url = URL(fileURLWithPath: path)
            guard Console.isDirectory(url.path) else {
                jobs.append(Job(input: url, outputStem: outputDir.appendingPathComponent(url.deletingPathExtension().lastPathComponent)))
                continue
            }
            // Relative paths below the folder, sorted, hidden files and folders skipped.
            let subpaths = ((try? fm.subpathsOfDirectory(atPath: url.path)) ?? []).sorted()
            for relativePath in subpaths where !relativePath.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                let file = url.appendingPathComponent(relativePath)
                guard Console.isRegularFile(file.path),
                    ImageFormat(fileExtension: PathName.pathExtension(relativePath)) != nil
                else { continue }
                jobs.append(
                    Job(
                        input: file,
                        outputStem: outputDir.appendingPathComponent(url.lastPathComponent)
                            .appendingPathComponent(PathName.deletingPathExtension(relativePath))))
            }
        }
        return jobs
    }
}
