// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every key of one request, computed once when the load starts.
///
/// The string keys name data (what is stored); the hashable stage keys name work (what can be
/// shared). Each stage key contains the one before it, so two loads share a stage exactly when
/// everything that stage and the stages under it depend on agrees.
struct ImageRequestKeys: Sendable {
    /// The original bytes on disk: the request's ``ImageRequest/cacheKey``, else the manager's
    /// filter applied to the URL, else the URL.
    let dataKey: String
    /// The finished image in the memory cache, and its encoded form on disk when processed images
    /// are stored: ``dataKey`` alone for an unprocessed request (as SDWebImage keys it), else
    /// ``dataKey`` plus a bracketed description of every setting that changes the pixels.
    /// A space separates them, which no URL contains, so no URL's key can equal another's
    /// processed key.
    let imageKey: String
    let fetch: FetchKey
    var decode: DecodeKey
    var process: ProcessKey
    var encode: EncodeKey

    /// What fetching the original bytes depends on.
    struct FetchKey: Hashable, Sendable {
        var dataKey: String
        var url: String?
        var headers: [String: String]
        var progressive: Bool
        var readsDisk: Bool
        var writesDisk: Bool
        var refresh: Bool
        var cacheOnly: Bool
        var waitsForDisk: Bool
    }

    /// What decoding depends on, besides the bytes.
    struct DecodeKey: Hashable, Sendable {
        var fetch: FetchKey
        var spec: DecodeSpec
        /// The source's digest, when the caller fetched it first.
        var sourceDigest: UInt64? = nil
    }

    /// What the encoded result depends on, besides the finished image.
    struct EncodeKey: Hashable, Sendable {
        var process: ProcessKey
        var output: ImageRequest.Output
        /// The source's digest, when the caller fetched it first (``ImageManager/loadSource(with:progress:)``):
        /// the result of other bytes under the same key is another result.
        var sourceDigest: UInt64?
    }

    /// What the finished image depends on, besides the decoded one.
    struct ProcessKey: Hashable, Sendable {
        var decode: DecodeKey
        var transformers: [String]
        var transformsAnimations: Bool
        var readsMemory: Bool
        var writesMemory: Bool
    }

    /// The data key of `request`.
    static func dataKey(of request: ImageRequest, cacheKeyFilter: (@Sendable (URL) -> String)?) -> String {
        switch request.source {
        case .url(let u): request.cacheKey ?? cacheKeyFilter?(u) ?? u.absoluteString
        case .data(_, let key), .file(_, let key), .image(_, let key): request.cacheKey ?? key
        }
    }

    /// The image key alone, as cheaply as it can be had: what a memory-cache hit needs. A plain
    /// request (no processing, default decoding) is keyed by its data key without building the rest.
    static func imageKey(of request: ImageRequest, cacheKeyFilter: (@Sendable (URL) -> String)?, limits: DecodingLimits) -> String {
        if request.thumbnail == nil, request.scaleDownLimitBytes == nil, request.decodeSizeHint == nil, !request.embeddedThumbnail,
            !request.gainMap, request.transformers.isEmpty, request.frames == .all, request.page == nil,
            request.pixelFormat == .argb32Premultiplied, request.colorManagement, request.scale == nil
        {
            return dataKey(of: request, cacheKeyFilter: cacheKeyFilter)
        }
        return ImageRequestKeys(request: request, cacheKeyFilter: cacheKeyFilter, limits: limits).imageKey
    }

    init(request: ImageRequest, cacheKeyFilter: (@Sendable (URL) -> String)?, limits: DecodingLimits) {
        let url = request.url
        let dataKey = Self.dataKey(of: request, cacheKeyFilter: cacheKeyFilter)
        let options = request.options
        let spec = DecodeSpec(
            thumbnail: request.thumbnail, scaleDownLimitBytes: request.scaleDownLimitBytes,
            sizeHint: request.decodeSizeHint, embeddedThumbnail: request.embeddedThumbnail, gainMap: request.gainMap,
            frames: request.frames, page: request.page, pixelFormat: request.pixelFormat,
            colorManagement: request.colorManagement,
            scale: request.scale ?? Double(PathName.displayScale(of: url?.absoluteString ?? dataKey)),
            limits: request.limits ?? limits)
        let transformers = request.transformers.map { $0.key }
        var parts = spec.keyParts(defaultScale: Double(PathName.displayScale(of: url?.absoluteString ?? dataKey)))
        if !transformers.isEmpty {
            parts.append(
                "transform=" + transformers.joined(separator: "|")
                    + (options.contains(.transformAnimatedImage) ? ",animated" : ""))
        }
        self.dataKey = dataKey
        imageKey = parts.isEmpty ? dataKey : dataKey + " [" + parts.joined(separator: "; ") + "]"
        fetch = FetchKey(
            dataKey: dataKey, url: url?.absoluteString, headers: request.headers,
            progressive: options.contains(.progressive), readsDisk: options.readsDisk, writesDisk: options.writesDisk,
            refresh: options.contains(.refreshCached), cacheOnly: options.contains(.fromCacheOnly),
            waitsForDisk: options.contains(.waitStoreCache))
        decode = DecodeKey(fetch: fetch, spec: spec)
        process = ProcessKey(
            decode: decode, transformers: transformers,
            transformsAnimations: options.contains(.transformAnimatedImage),
            readsMemory: options.readsMemory, writesMemory: options.writesMemory)
        encode = EncodeKey(process: process, output: request.output, sourceDigest: nil)
    }

    /// The key of the encoded result of these keys' request in the result cache, for the source
    /// whose bytes have `digest`: ``resultPrefix(dataKey:)``, the digest, the image key's
    /// settings and the output's. Limits are left out, as in the image key: they decide whether
    /// a result is made, and are checked before the cache is read.
    func resultKey(digest: UInt64, output: ImageRequest.Output) -> String {
        Self.resultPrefix(dataKey: dataKey) + resultIdentity(digest: digest, output: output)
    }

    /// What names the result's bytes, whatever the source's name: the digest of the source's
    /// bytes, the image key's settings and the output's. The result key is the source's prefix
    /// and this.
    func resultIdentity(digest: UInt64, output: ImageRequest.Output) -> String {
        let hex = String(digest, radix: 16)
        let settings = imageKey.dropFirst(dataKey.count)
        return String(repeating: "0", count: 16 - hex.count) + hex + settings + " {" + output.keyPart + "}"
    }

    /// What every result key of the source stored under `dataKey` starts with: what a purge of
    /// the source removes.
    static func resultPrefix(dataKey: String) -> String {
        dataKey + " => "
    }

    /// These keys for a source already fetched: every stage's key names its digest, so work on
    /// other bytes under the same name (the origin replaced them) is never shared with this.
    func fetched(digest: UInt64) -> ImageRequestKeys {
        var keys = self
        keys.decode.sourceDigest = digest
        keys.process.decode.sourceDigest = digest
        keys.encode.process.decode.sourceDigest = digest
        keys.encode.sourceDigest = digest
        return keys
    }
}

/// Everything that decides how bytes become pixels: the decode step's input besides the bytes.
struct DecodeSpec: Hashable, Sendable {
    var thumbnail: ImageRequest.Thumbnail?
    var scaleDownLimitBytes: Int?
    var sizeHint: PixelSize?
    var embeddedThumbnail = false
    var gainMap = false
    var frames: ImageRequest.Frames
    var page: Int? = nil
    var pixelFormat: PixelFormat
    var colorManagement: Bool
    var scale: Double
    var limits: DecodingLimits

    /// The settings that differ from a plain decode, for the image key. Limits are left out: they
    /// decide whether an image decodes, not what it looks like.
    func keyParts(defaultScale: Double) -> [String] {
        var parts: [String] = []
        if let t = thumbnail {
            parts.append("thumbnail=\(t.maxPixelSize.width)x\(t.maxPixelSize.height)" + (t.preserveAspectRatio ? "" : ",fill"))
        }
        if let s = scaleDownLimitBytes { parts.append("scaledown=\(s)") }
        if let h = sizeHint { parts.append("hint=\(h.width)x\(h.height)") }
        if embeddedThumbnail { parts.append("thumbnail=embedded") }
        if gainMap { parts.append("gainmap") }
        if frames != .all { parts.append("frames=\(frames.rawValue)") }
        if let page { parts.append("page=\(page)") }
        if pixelFormat != .argb32Premultiplied { parts.append("pixels=\(pixelFormat.rawValue)") }
        if !colorManagement { parts.append("color=off") }
        if scale != defaultScale { parts.append("scale=\(scale)") }
        return parts
    }
}
