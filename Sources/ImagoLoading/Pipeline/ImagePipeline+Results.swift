// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
import ImagoCoders
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The result cache (``ImageManager/Configuration/resultCache``): encoded results on disk, read
/// before anything is decoded, written in the background once made.
extension ImagePipeline {
    /// The result key of `request` for the bytes fetched, or `nil` when results are not stored:
    /// no result cache, a request that skips the disk, or bytes whose digest is not known
    /// without reading a file.
    func resultKey(_ request: ImageRequest, keys: ImageRequestKeys, fetched: FetchedData) -> String? {
        guard configuration.resultCache != nil, keys.fetch.readsDisk || keys.fetch.writesDisk else { return nil }
        guard let digest = fetched.digest ?? fetched.input.inMemoryData.map(CachedEntry.digest(of:)) else { return nil }
        return keys.resultKey(digest: digest, output: request.output)
    }

    /// The result stored under `key`, as an encoded image, or `nil` when there is none or the
    /// entry lacks what an answer needs (its format and
    /// size). A cache that cannot be read counts as a miss (logged).
    func storedResult(_ key: String, fetched: FetchedData, context: EncodeContext) async throws -> EncodedImage? {
        guard let cache = configuration.resultCache else { return nil }
        PipelineProbe.record(ProbeEvent.resultLookup)
        let metadata: [String: String]
        let contents: EncodedImageResult.Contents
        if let pending = resultWriter?.pending(forKey: key) {
            (metadata, contents) = (pending.metadata, .data(pending.data))
        } else if let entry = try await openDisk(key, in: cache, priority: context, strict: false) {
            metadata = entry.metadata
            switch entry.contents {
            case .data(let data): contents = .data(data)
            case .file(let file): contents = .file(file)
            }
        } else if let shared = await sharedResult(key) {
            (metadata, contents) = (shared.metadata, .data(shared.data))
            // Kept here too, so the next ask is local.
            resultWriter?.store(shared, forKey: key)
        } else {
            return nil
        }
        guard let format = metadata[Self.resultFormat].flatMap(ImageFormat.init(rawValue:)),
            let width = metadata[Self.resultWidth].flatMap(Int.init), let height = metadata[Self.resultHeight].flatMap(Int.init)
        else { return nil }
        return EncodedImage(
            contents: contents, format: format, pixelSize: PixelSize(width: width, height: height), source: fetched.source,
            revalidated: fetched.revalidated, method: .stored, timings: fetched.timings)
    }

    /// Queues `result` for the result cache under `key`, unless it is the source passed through
    /// or a stored result already.
    func store(_ result: EncodedImage, forKey key: String) {
        guard let resultWriter, result.method == .rendered || result.method == .streamed, case .data(let data) = result.contents
        else { return }
        let metadata = [
            Self.resultFormat: result.format.rawValue, Self.resultWidth: String(result.pixelSize.width),
            Self.resultHeight: String(result.pixelSize.height)
        ]
        let value = CachedData(data: data, metadata: metadata)
        resultWriter.store(value, forKey: key)
        if let shared = configuration.sharedResults { share(value, forKey: key, in: shared) }
    }

    /// The result under `key` in the shared results, or `nil` (none, none configured, or the
    /// store failed: logged).
    private func sharedResult(_ key: String) async -> CachedData? {
        guard let shared = configuration.sharedResults else { return nil }
        do {
            let found = try await shared.result(forKey: key)
            if found != nil { sharedHits.add(1, ordering: .relaxed) }
            return found
        } catch {
            logger.warning("shared results read failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Uploads `value` to `shared` (the shared results or sources) in the background, unless 16
    /// uploads are under way; then, with `releasing`, gives up this caller's claim on `key`.
    /// Returns whether the upload was queued (a caller whose upload was not releases its claim).
    @discardableResult
    func share(_ value: CachedData, forKey key: String, in shared: any SharedResultStoring, releasing: Bool = false) -> Bool {
        guard sharedUploads.wrappingAdd(1, ordering: .relaxed).newValue <= Self.maxSharedUploads else {
            sharedUploads.subtract(1, ordering: .relaxed)
            return false
        }
        let logger = self.logger
        Task.detached(priority: .utility) { [self] in
            defer { sharedUploads.subtract(1, ordering: .relaxed) }
            do {
                try await shared.store(value, forKey: key)
            } catch {
                logger.warning("shared store write failed", metadata: ["error": "\(error)"])
            }
            if releasing { await shared.release(key) }
        }
        return true
    }

    static let resultFormat = "format"
    static let resultWidth = "width"
    static let resultHeight = "height"
}

extension ImageInput {
    /// The bytes when they are in memory; `nil` for a file.
    fileprivate var inMemoryData: Data? {
        if case .data(let data) = storage { data } else { nil }
    }
}

extension ImageManager {
    /// The key the encoded result of `request` made from `source`'s bytes is stored under in the
    /// result cache: the source's data key, then ``resultIdentity(for:source:)``.
    package func resultKey(for request: ImageRequest, source: LoadedSource) -> String {
        pipeline.keys(for: request).resultKey(digest: source.digest, output: request.output)
    }

    /// What names the bytes of `request`'s result made from `source`'s bytes, whatever the
    /// source is called: the digest of its bytes, every setting that changes the pixels and the
    /// output's settings (the result key without the source's name). Two requests have the same
    /// identity exactly when they make the same bytes, so an HTTP service derives its `ETag`
    /// from it.
    public func resultIdentity(for request: ImageRequest, source: LoadedSource) -> String {
        pipeline.keys(for: request).resultIdentity(digest: source.digest, output: request.output)
    }

    /// Whether the encoded result of `request` made from `source`'s bytes is at hand without
    /// making it: kept in memory (``Configuration/resultRetention``), waiting to be written, or
    /// in the result cache (``Configuration/resultCache``). A service asks before deciding to
    /// answer with a slower format now or a faster one while the slow one is made.
    ///
    /// - Returns: `false` without a result cache or retention, or when the cache cannot be read.
    public func hasStoredResult(for request: ImageRequest, source: LoadedSource) async -> Bool {
        let keys = pipeline.keys(for: request).fetched(digest: source.digest)
        if pipeline.results?.value(forKey: keys.encode) != nil { return true }
        guard let cache = configuration.resultCache else { return false }
        let key = resultKey(for: request, source: source)
        PipelineProbe.record(ProbeEvent.resultLookup)
        if pipeline.resultWriter?.pending(forKey: key) != nil { return true }
        let found = try? await configuration.dataCacheQueue.run(priority: PriorityCell(request.priority)) { try cache.contains(key) }
        return found ?? false
    }
}

extension ImageManager {
    /// Stores `result`, made for `request` from `source`'s bytes with
    /// ``ImageRequest/Options/disableDiskCacheWrites``, in the result cache under the key
    /// `request` has without that option, as the encode stage would have stored it: for a
    /// result kept only once its maker has compared it with another (a service's background
    /// encode kept when it is smaller than the answer it would replace). Nothing happens
    /// without a result cache, or for a result held in a file.
    package func storeResult(_ result: EncodedImageResult, for request: ImageRequest, source: LoadedSource) {
        var stored = request
        stored.options.remove(.disableDiskCacheWrites)
        let made = EncodedImage(
            contents: result.contents, format: result.format, pixelSize: result.pixelSize, source: result.source,
            revalidated: false, method: result.method)
        pipeline.store(made, forKey: resultKey(for: stored, source: source))
    }
}
