#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoDiskIO
import ImagoLoading
import ImagoServiceURL

/// A source's bytes and what came with them.
struct LoadedSource: Sendable {
    /// Where a source's bytes are: in memory, or in the source cache's file, decoded where it lies.
    enum Bytes: Sendable {
        case data(Data)
        // Indirect, as `ImageRequest.Source.file`: one layout wherever the enum is copied.
        indirect case file(ImageFile)
    }

    /// The source as the URL named it: the cache and coalescing key.
    var name: String
    var bytes: Bytes
    /// `Checksum.fast64` of the bytes (the source cache records it when it stores them).
    var digest: UInt64
    var contentType: String?
    var lastModified: String?
    /// The host, for the access log (`local` for local files).
    var host: String?
    /// The file name the source suggests, without extension, for `Content-Disposition`.
    var baseName: String

    init(name: String, bytes: Bytes, digest: UInt64? = nil, contentType: String?, lastModified: String?, host: String?, baseName: String) {
        self.name = name
        self.bytes = bytes
        if let digest {
            self.digest = digest
        } else if case .data(let data) = bytes {
            self.digest = Checksum.fast64(data)
        } else {
            self.digest = 0
        }
        self.contentType = contentType
        self.lastModified = lastModified
        self.host = host
        self.baseName = baseName
    }

    /// The size in bytes.
    var count: Int {
        switch bytes {
        case .data(let data): data.count
        case .file(let file): file.size
        }
    }
}

extension ImageService {
    /// Loads the bytes of `source`: an `http(s)` URL through the image manager (the disk cache,
    /// else one download shared by every request for it, within the limits and the source
    /// guard), or a `local:///path` file under `IMAGO_LOCAL_ROOT`.
    ///
    /// - Throws: ``ServiceError``: 400 for an unusable source URL, 403 when it is not allowed,
    ///   the download's statuses (see ``ServiceError/init(_:)-(ImageLoadingError)``).
    /// Makes sure an `http(s)` source is in the disk cache, downloading it (once, however many
    /// requests ask) if it is not, without keeping its bytes: requests waiting for a render slot
    /// then hold nothing. Counts the source-cache metrics.
    ///
    /// - Returns: Whether it counted them (`false` for local sources, invalid URLs and a
    ///   service without a cache: ``loadSource(_:options:countsLoad:)`` does all).
    func fetchSource(_ source: String) async throws -> Bool {
        guard let cache = sourceCache, let url = URL(string: source), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host?.isEmpty == false else { return false }
        let request = ImageRequest(url: url, options: [.retryFailed, .waitStoreCache])
        if (try? cache.contains(manager.dataKey(for: request))) == true {
            metrics.sourceLoaded(bytes: 0, fromCache: true)
            return true
        }
        let result: DataLoadResult
        do {
            result = try await manager.loadData(with: request)
        } catch {
            throw ServiceError(error)
        }
        metrics.sourceLoaded(bytes: result.data.count, fromCache: result.source != .network)
        return true
    }

    func loadSource(_ source: String, options: ProcessingOptions, countsLoad: Bool = true) async throws -> LoadedSource {
        let maxBytes = min(options.maxSourceFileSize ?? configuration.maxSourceFileSize, configuration.maxSourceFileSize)
        if source.lowercased().hasPrefix("local://") {
            return try await loadLocal(source, maxBytes: maxBytes)
        }
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw ServiceError(status: 400, code: "invalid_source", message: "the source must be an http, https or local URL")
        }
        let request = ImageRequest(url: url, options: [.retryFailed])
        let last = url.lastPathComponent
        // Cached: opened where it lies, so a render reads it a piece at a time (JPEG, PNG) and the
        // request holds no more than a descriptor and a piece of it.
        if let cache = sourceCache, let opened = try? cache.openEntry(forKey: manager.dataKey(for: request)) {
            guard opened.entry.size <= maxBytes else {
                throw ServiceError(status: 422, code: "source_too_large", message: "the source is larger than \(maxBytes) bytes")
            }
            if countsLoad { metrics.sourceLoaded(bytes: opened.entry.size, fromCache: true) }
            let bytes: LoadedSource.Bytes
            switch opened.contents {
            case .bytes(let data): bytes = .data(data)
            case .file(let file):
                // Only JPEG and PNG decode from the file; anything else is mapped once, here,
                // rather than once for its header and again for its pixels.
                let head = (try? file.read(at: 0, maxLength: 64)) ?? Data()
                switch ImageFormat(sniffing: head) {
                case .jpeg?, .png?: bytes = .file(file)
                default: bytes = .data(try Self.contents(of: file))
                }
            }
            return LoadedSource(name: source, bytes: bytes, digest: opened.digest, contentType: nil,
                                lastModified: opened.entry.metadata["last-modified"], host: host, baseName: Self.baseName(last))
        }
        let result: DataLoadResult
        do {
            result = try await manager.loadData(with: request)
        } catch {
            throw ServiceError(error)
        }
        guard result.data.count <= maxBytes else {
            throw ServiceError(status: 422, code: "source_too_large", message: "the source is larger than \(maxBytes) bytes")
        }
        if countsLoad { metrics.sourceLoaded(bytes: result.data.count, fromCache: result.source != .network) }
        return LoadedSource(name: source, bytes: .data(result.data), contentType: result.response?.mimeType, lastModified: result.lastModified,
                            host: host, baseName: Self.baseName(last))
    }

    /// Reads `local:///path` below `IMAGO_LOCAL_ROOT`: no `..`, no symbolic links, nothing
    /// outside the root.
    private func loadLocal(_ source: String, maxBytes: Int) async throws -> LoadedSource {
        guard let root = configuration.localRoot else {
            throw ServiceError(status: 403, code: "source_not_allowed", message: "local sources are not enabled on this service")
        }
        guard SourcePattern.permits(source, patterns: configuration.allowedSources) else { throw ServiceError.sourceNotAllowed }
        var path = Substring(source.dropFirst("local://".count))
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<q] }
        guard path.hasPrefix("/") else {
            throw ServiceError(status: 400, code: "invalid_source", message: "a local source is local:///path")
        }
        let components = path.split(separator: "/").map(String.init)
        let data: Data
        do {
            data = try await fileReads.run {
                try ConfinedFile.read(root: root, components: components, maxBytes: maxBytes)
            }
        } catch let failure as ConfinedFile.Failure {
            switch failure {
            case .notFound:
                throw ServiceError(status: 404, code: "source_not_found", message: "no such local source")
            case .invalidComponent, .notAllowed:
                throw ServiceError(status: 403, code: "source_not_allowed", message: "the local path is not allowed")
            case .tooLarge(_, let limit):
                throw ServiceError(status: 422, code: "source_too_large", message: "the source is larger than \(limit) bytes")
            case .rootUnavailable, .io:
                throw ServiceError(status: 404, code: "source_not_found", message: "the local source cannot be read")
            }
        }
        return LoadedSource(name: source, bytes: .data(data), contentType: nil, lastModified: nil, host: "local",
                            baseName: Self.baseName(components.last ?? "image"))
    }

    /// A file name without its extension, reduced to safe characters.
    static func baseName(_ name: String) -> String {
        var base = Substring(name)
        if let dot = base.lastIndex(of: "."), dot > base.startIndex { base = base[..<dot] }
        let safe = String(base.unicodeScalars.filter { $0.value >= 0x20 && $0 != "\"" && $0 != "\\" && $0 != "/" && $0.value != 0x7F }
            .map(Character.init))
        return safe.isEmpty ? "image" : String(safe.prefix(120))
    }
}
