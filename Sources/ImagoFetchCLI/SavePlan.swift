// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Imago
import ImagoCommandLine
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where and how `imago fetch` saves what it loads.
struct SavePlan: Sendable {
    /// A folder, or a file name for a single URL; `nil` saves nothing.
    var output: String?
    /// `--format`.
    var format: ImageFormat?
    /// `--quality`, 0-100.
    var quality: Int
    /// Whether a thumbnail or a resize was asked for.
    var processed: Bool

    /// Whether `output` names a file (it has an image extension and is not a folder).
    var isFile: Bool {
        guard let output else { return false }
        return !Console.isDirectory(output) && ImageFormat(fileExtension: PathName.pathExtension(output)) != nil
    }

    /// The format to write: `--format`, else a file name's extension, else none (the bytes as they came).
    var wanted: ImageFormat? { Self.wanted(format: format, output: output) }

    /// `--format`, else the extension of `output` when it names a file.
    static func wanted(format: ImageFormat?, output: String?) -> ImageFormat? {
        guard format == nil, let output, !Console.isDirectory(output) else { return format }
        return ImageFormat(fileExtension: PathName.pathExtension(output))
    }

    /// Whether the loads must decode: processing was asked for, or a format to write.
    var needsPixels: Bool { processed || (output != nil && wanted != nil) }

    /// Saves the original bytes when they can be kept as they are, else `image` encoded; returns
    /// the path written, or `nil` without an output. (The progressive load's way: the others
    /// save what the pipeline encoded, with ``save(_:url:index:written:writes:)``.)
    ///
    /// Original bytes keep the URL's own file name (`photo.jpeg` stays `photo.jpeg`, an APNG
    /// served as `.png` stays `.png`); a name without an extension gets the format's.
    func save(image: Image?, data: Data?, url: URL, index: Int, written: WrittenFiles) throws -> String? {
        guard output != nil else { return nil }
        let original = data.flatMap { ImageFormat(sniffing: $0) }
        if !processed, let data, wanted == nil || wanted == original || (wanted == .png && original == .apng) {
            let target = destination(for: url, index: index, format: original ?? image?.format ?? .png, original: true, written: written)
            try OutputFile.write(data, to: target)
            return target.path
        }
        guard let image else { throw ImageLoadingError.decodingFailed(.unsupportedFormat(original)) }
        let format = wanted ?? ImageCoderRegistry.shared.preferredEncodingFormat(for: image)
        let bytes = try ImageCoderRegistry.shared.encode(image, as: format, options: EncodeOptions(quality: Double(quality) / 100))
        let target = destination(for: url, index: index, format: format, original: false, written: written)
        try OutputFile.write(bytes, to: target)
        return target.path
    }

    /// Writes what the pipeline encoded (or passed through) on `writes`, off the cooperative
    /// pool; returns the path written, or `nil` without an output.
    func save(_ encoded: EncodedImageResult, url: URL, index: Int, written: WrittenFiles, writes: WorkQueue) async throws -> String? {
        guard output != nil else { return nil }
        let target = destination(for: url, index: index, format: encoded.format, original: encoded.method == .passedThrough, written: written)
        try await writes.run(continuing: true) {
            try OutputFile.write(encoded.data(), to: target)
        }
        return target.path
    }

    /// The file to write for `url`: `output` itself when it names a file, else a name in the
    /// folder that no other URL has taken. Original bytes keep the URL's own file name (an
    /// extension added when it has none); encoded ones get the format's extension.
    func destination(for url: URL, index: Int, format: ImageFormat, original: Bool, written: WrittenFiles) -> URL {
        var name: String
        if original {
            name = url.scheme == "data" ? "" : url.lastPathComponent
            if PathName.pathExtension(name).isEmpty, !name.isEmpty || url.scheme == "data" {
                name = (name.isEmpty ? "image-\(index + 1)" : name) + "." + format.preferredFileExtension
            }
        } else {
            var stem = url.scheme == "data" ? "" : PathName.deletingPathExtension(url.lastPathComponent)
            if stem.isEmpty || stem == "/" { stem = "image-\(index + 1)" }
            name = stem + "." + format.preferredFileExtension
        }
        if name.isEmpty || name == "/" { name = "image-\(index + 1)" }
        if isFile, let output { return URL(fileURLWithPath: output) }
        let dir = URL(fileURLWithPath: output ?? ".")
        return written.claim(name, in: dir, for: url.absoluteString)
    }
}

/// File names already taken in the output folder, so different URLs with one name get
/// numbered suffixes.
final class WrittenFiles: Sendable {
    private let taken = Mutex<[String: String]>([:])

    /// A path in `dir` for `name` that no other URL has taken.
    func claim(_ name: String, in dir: URL, for url: String) -> URL {
        let (stem, ext) = PathName.splitExtension(name)
        return taken.withLock { taken in
            var candidate = dir.appendingPathComponent(name)
            var n = 2
            while let owner = taken[candidate.path], owner != url {
                candidate = dir.appendingPathComponent(ext.isEmpty ? "\(stem)-\(n)" : "\(stem)-\(n).\(ext)")
                n += 1
            }
            taken[candidate.path] = url
            return candidate
        }
    }
}
