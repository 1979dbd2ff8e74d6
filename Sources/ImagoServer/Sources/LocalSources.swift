// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoDiskIO

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `local:///path` sources: files below `IMAGO_LOCAL_ROOT`, read on the service's file queue.
struct LocalSources {
    let sources: SourceSettings
    let security: SecuritySettings
    let reads: WorkQueue

    /// Reads `local:///path` below `IMAGO_LOCAL_ROOT`: no `..`, no symbolic links, nothing
    /// outside the root.
    func read(_ source: String, maxBytes: Int) async throws -> (Data, String) {
        guard let root = sources.localRoot else {
            throw ServiceError(.sourceNotAllowed, "local sources are not enabled on this service")
        }
        guard SourcePattern.permits(source, patterns: security.allowedSources) else { throw ServiceError.sourceNotAllowed }
        var path = Substring(source.dropFirst("local://".count))
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<q] }
        guard path.hasPrefix("/") else {
            throw ServiceError(.invalidSource, "a local source is local:///path")
        }
        let components = path.split(separator: "/").map(String.init)
        let data: Data
        do {
            data = try await reads.run {
                try ConfinedFile.read(root: root, components: components, maxBytes: maxBytes)
            }
        } catch let failure as ConfinedFile.Failure {
            switch failure {
            case .notFound:
                throw ServiceError(.sourceNotFound, "no such local source")
            case .invalidComponent, .notAllowed:
                throw ServiceError(.sourceNotAllowed, "the local path is not allowed")
            case .tooLarge(_, let limit):
                throw ServiceError(.sourceTooLarge, "the source is larger than \(limit) bytes")
            case .rootUnavailable, .io:
                throw ServiceError(.sourceNotFound, "the local source cannot be read")
            }
        }
        return (data, components.last ?? "image")
    }
}
