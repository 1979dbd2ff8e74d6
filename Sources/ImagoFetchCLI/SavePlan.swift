#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imago
import ImagoCommandLine
import Synchronization

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
    var wanted: ImageFormat? {
        format ?? (isFile ? output.flatMap { ImageFormat(fileExtension: PathName.pathExtension($0)) } : nil)
    }

    /// Whether the loads must decode: processing was asked for, or a format to write.
    var needsPixels: Bool { processed || (output != nil && wanted != nil) }

    /// Saves the original bytes when they can be kept as they are, else `image` encoded; returns
    /// the path written, or `nil` without an output.
    ///
    /// Original bytes keep the URL's own file name (`photo.jpeg` stays `photo.jpeg`, an APNG
    /// served as `.png` stays `.png`); a name without an extension gets the format's.
    func save(image: Image?, data: Data?, url: URL, index: Int, written: WrittenFiles) throws -> String? {
        guard let output else { return nil }
        let original = data.flatMap { ImageFormat(sniffing: $0) }
        let bytes: Data
        var name: String
        if !processed, let data, wanted == nil || wanted == original || (wanted == .png && original == .apng) {
            bytes = data
            name = url.scheme == "data" ? "" : url.lastPathComponent
            if PathName.pathExtension(name).isEmpty, !name.isEmpty || url.scheme == "data" {
                name = (name.isEmpty ? "image-\(index + 1)" : name) + "." + (original ?? image?.format ?? .png).preferredFileExtension
            }
        } else {
            guard let image else { throw ImageLoadingError.decodingFailed(.unsupportedFormat(original)) }
            let target = wanted ?? ImageCoderRegistry.shared.preferredEncodingFormat(for: image)
            bytes = try ImageCoderRegistry.shared.encode(image, as: target, options: EncodeOptions(quality: Double(quality) / 100))
            var stem = url.scheme == "data" ? "" : PathName.deletingPathExtension(url.lastPathComponent)
            if stem.isEmpty || stem == "/" { stem = "image-\(index + 1)" }
            name = stem + "." + target.preferredFileExtension
        }
        if name.isEmpty || name == "/" { name = "image-\(index + 1)" }
        let target: URL
        if isFile {
            target = URL(fileURLWithPath: output)
        } else {
            let dir = URL(fileURLWithPath: output)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            target = written.claim(name, in: dir, for: url.absoluteString)
        }
        try bytes.write(to: target, options: .atomic)
        return target.path
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
