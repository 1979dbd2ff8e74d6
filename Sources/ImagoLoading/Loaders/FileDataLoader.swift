// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `file` URLs, read 256 KiB at a time so progress is reported as for a download.
public struct FileDataLoader: DataLoading {
    /// Creates the loader.
    public init() {}

    /// `true` for `file`.
    public func canLoad(_ url: URL) -> Bool { url.isFileURL }

    /// Reads the file; the response has status 200 and the file's size as `Content-Length`.
    ///
    /// - Throws: ``ImageLoadingError/fileUnreadable(_:)``; ``ImageLoadingError/cancelled``; the
    ///   callbacks' errors.
    public func load(
        _ request: DataLoadRequest, response: (DataLoadResponse) throws -> Void,
        chunk: (Data) throws -> Void
    ) async throws {
        let source: FileByteSource
        let size: Int
        do {
            source = try FileByteSource(url: request.url)
            size = (try FileManager.default.attributesOfItem(atPath: request.url.path)[.size] as? Int) ?? 0
        } catch {
            throw ImageLoadingError.fileUnreadable("\(request.url.path): \(error)")
        }
        try response(DataLoadResponse(url: request.url, statusCode: 200, headers: ["Content-Length": String(size)]))
        while true {
            try Task.checkCancellation()
            let piece: Data
            do { piece = try source.read(maxLength: 256 << 10) } catch {
                throw ImageLoadingError.fileUnreadable("\(request.url.path): \(error)")
            }
            if piece.isEmpty { return }
            try chunk(piece)
        }
    }
}
