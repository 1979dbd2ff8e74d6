#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore
import ImagoDiskIO
import ImagoLoading
import ImagoServiceURL

/// A source fetched for one request, and what the service adds to it.
struct ServiceSource: Sendable {
    /// The source as the pipeline fetched it: its bytes or cached file, digest, validators.
    var loaded: LoadedSource
    /// The request it was fetched with, which the render starts from.
    var request: ImageRequest
    /// The source as the URL named it.
    var name: String
    var contentType: String?
    var lastModified: String?
    /// The host, for the access log (`local` for local files).
    var host: String?
    /// The file name the source suggests, without extension, for `Content-Disposition`.
    var baseName: String

    /// `CachedEntry.digest(of:)` of the bytes: the one the source cache recorded, or computed once.
    var digest: UInt64 { loaded.digest }
    /// The size in bytes.
    var count: Int { loaded.byteCount }
}

extension ImageService {
    /// Fetches `source` through the image manager: an `http(s)` URL from the disk cache (opened
    /// where it lies, not read), else one download shared by every request for it, within the
    /// limits and the source guard, stored before the request goes on; or a `local:///path` file
    /// under `IMAGO_LOCAL_ROOT`. Counts the source-cache metrics.
    ///
    /// - Throws: ``ServiceError``: 400 for an unusable source URL, 403 when it is not allowed,
    ///   422 when it is larger than the limit, the download's statuses (see
    ///   ``ServiceError/init(_:)-(ImageLoadingError)``).
    func loadSource(_ source: String, options: ProcessingOptions) async throws -> ServiceSource {
        let maxBytes = min(options.maxSourceFileSize ?? configuration.maxSourceFileSize, configuration.maxSourceFileSize)
        let request: ImageRequest
        let host: String
        let baseName: String
        if source.lowercased().hasPrefix("local://") {
            let (data, name) = try await readLocal(source, maxBytes: maxBytes)
            request = ImageRequest(data: data, key: source)
            host = "local"
            baseName = Self.baseName(name)
        } else {
            guard let url = URL(string: source), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let h = url.host, !h.isEmpty else {
                throw ServiceError(status: 400, code: "invalid_source", message: "the source must be an http, https or local URL")
            }
            request = ImageRequest(url: url, options: [.retryFailed, .waitStoreCache])
            host = h
            baseName = Self.baseName(url.lastPathComponent)
        }
        let loaded: LoadedSource
        do {
            loaded = try await manager.loadSource(with: request)
        } catch {
            throw ServiceError(error)
        }
        guard loaded.byteCount <= maxBytes else {
            throw ServiceError(status: 422, code: "source_too_large", message: "the source is larger than \(maxBytes) bytes")
        }
        if host != "local" { metrics.sourceLoaded(bytes: loaded.byteCount, fromCache: loaded.source != .network) }
        return ServiceSource(loaded: loaded, request: request, name: source, contentType: loaded.response?.mimeType, lastModified: loaded.lastModified,
                             host: host, baseName: baseName)
    }

    /// Reads `local:///path` below `IMAGO_LOCAL_ROOT`: no `..`, no symbolic links, nothing
    /// outside the root.
    private func readLocal(_ source: String, maxBytes: Int) async throws -> (Data, String) {
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
        return (data, components.last ?? "image")
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
