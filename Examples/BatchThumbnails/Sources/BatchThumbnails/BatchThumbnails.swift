// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing

/// `batch-thumbnails photos/ more.jpg --size 320 --format webp --output thumbs`
///
/// Finds the images under the given files and directories, makes a thumbnail of each (decoded
/// at reduced size where the format allows, orientation applied, Lanczos3), encodes it and
/// writes it atomically into the output directory. Runs one job per core; a file that fails is
/// reported and the rest go on. Exits 1 when any file failed.
@main
struct BatchThumbnails: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch-thumbnails",
        abstract: "Make thumbnails of many images at once, with a progress bar.")

    @Argument(help: "Image files, or directories searched recursively.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Where thumbnails are written.")
    var output: String = "thumbnails"

    @Option(help: "Longest side of a thumbnail, in pixels.")
    var size: Int = 256

    @Option(help: "jpeg, png or webp.")
    var format: String = "jpeg"

    @Option(help: "Encoder quality, 1-100 (JPEG and lossy WebP).")
    var quality: Int = 82

    @Option(help: "Images made at once. Default: the cores.")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard (16...8192).contains(size) else { throw ValidationError("--size must be 16-8192") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1-100") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        guard Self.formats[format.lowercased()] != nil else { throw ValidationError("--format must be jpeg, png or webp") }
    }

    static let formats: [String: (ImageFormat, String)] = ["jpeg": (.jpeg, "jpg"), "jpg": (.jpeg, "jpg"), "png": (.png, "png"), "webp": (.webp, "webp")]
    static let extensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "tif", "tiff", "heic", "heif", "avif", "bmp", "jp2", "ico"]

    func run() async throws {
        let files = try collect()
        guard !files.isEmpty else { throw ValidationError("no images found under \(inputs.joined(separator: ", "))") }
        let outputDirectory = URL(fileURLWithPath: output, isDirectory: true)
        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        let (imageFormat, fileExtension) = Self.formats[format.lowercased()] ?? (.jpeg, "jpg")
        let options = EncodeOptions(quality: Double(quality) / 100)
        let bounds = PixelSize(width: size, height: size)

        let progress = ProgressBar(total: files.count)
        var failures: [(String, String)] = []
        try await withThrowingTaskGroup(of: (String, String?).self) { group in
            var next = files.makeIterator()
            func startNext() {
                guard let file = next.next() else { return }
                group.addTask {
                    // Decoding and encoding block, so each job runs on a thread of its own
                    // rather than the cooperative pool.
                    await Blocking.run {
                        do {
                            let thumbnail = try Thumbnailer.thumbnail(of: ImageInput(contentsOf: file), fitting: bounds)
                            let data = try ImageCoderRegistry.shared.encode(thumbnail, as: imageFormat, options: options)
                            let name = file.deletingPathExtension().lastPathComponent + "." + fileExtension
                            try data.write(to: outputDirectory.appendingPathComponent(name), options: .atomic)
                            return (file.path, nil)
                        } catch {
                            return (file.path, error.localizedDescription)
                        }
                    }
                }
            }
            for _ in 0..<jobs { startNext() }
            while let (path, failure) = try await group.next() {
                if let failure { failures.append((path, failure)) }
                progress.advance(failed: failure != nil)
                startNext()
            }
        }
        progress.finish()
        for (path, reason) in failures { FileHandle.standardError.write(Data("\(path): \(reason)\n".utf8)) }
        print("\(files.count - failures.count) of \(files.count) thumbnails written to \(outputDirectory.path)")
        if !failures.isEmpty { throw ExitCode(1) }
    }

    /// The image files named, and those under the directories named, in a stable order.
    func collect() throws -> [URL] {
        var found: [URL] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw ValidationError("\(input): no such file or directory")
            }
            let url = URL(fileURLWithPath: input)
            if !isDirectory.boolValue {
                found.append(url)
                continue
            }
            let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)
            while let item = walker?.nextObject() as? URL {
                if Self.extensions.contains(item.pathExtension.lowercased()) { found.append(item) }
            }
        }
        return found.sorted { $0.path < $1.path }
    }
}
