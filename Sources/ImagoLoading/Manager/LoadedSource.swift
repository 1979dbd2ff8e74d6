// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCache
public import ImagoCoders
public import ImagoCore

/// A request's source fetched, no pixel decoded (``ImageManager/loadSource(with:progress:)``): what a
/// caller needs to decide the output before asking for it (a service choosing a format from the
/// source's and the client's, checking limits, computing an `ETag`). Handed to
/// ``ImageManager/loadEncodedImage(with:source:)``, it is decoded without a second fetch or a
/// second reading of its header.
public struct LoadedSource: Sendable {
    /// The bytes, or the disk cache's file holding them, read where it lies. Its header is read
    /// once, by the first to ask (``info()``).
    public var input: ImageInput { fetched.input }
    /// Disk or network.
    public var source: ImageLoadSource { fetched.source }
    /// Whether a revalidation got 304 and kept the cached bytes.
    public var revalidated: Bool { fetched.revalidated }
    /// The response head, when the bytes came from the network.
    public var response: DataLoadResponse? { fetched.response }
    /// The source's `ETag`, from the response or the disk entry.
    public var etag: String? { fetched.validators["etag"] }
    /// The source's `Last-Modified`, from the response or the disk entry.
    public var lastModified: String? { fetched.validators["last-modified"] }
    /// The origin's `Cache-Control`, as it sent it (kept with a disk entry too), for a service
    /// that passes it on; `nil` when it sent none.
    public var originCacheControl: String? { fetched.validators["http-cache-control"] }
    /// The origin's `Expires`, as it sent it; `nil` when it sent none.
    public var originExpires: String? { fetched.validators["http-expires"] }
    /// A 64-bit digest of the bytes (`CachedEntry.digest(of:)`): the one the disk cache recorded,
    /// or computed once from bytes in hand. Equal bytes, equal digest.
    public let digest: UInt64

    let fetched: FetchedData
    let coders: ImageCoderRegistry

    init(fetched: FetchedData, coders: ImageCoderRegistry) throws {
        var fetched = fetched
        if fetched.digest == nil { fetched.digest = CachedEntry.digest(of: try fetched.input.contents()) }
        self.fetched = fetched
        self.coders = coders
        digest = fetched.digest ?? 0
    }

    /// The image an ``ImageRequest/Source/image(_:key:)`` request gave; `nil` for bytes.
    public var image: Image? { fetched.image }

    /// The size in bytes (0 for an image given decoded).
    public var byteCount: Int { fetched.input.byteCount }
    /// How long the disk read or the download took.
    public var timings: ImageLoadTimings { fetched.timings }

    /// The header's facts, read once by the decoder of its format (a file's first bytes only,
    /// for JPEG and PNG).
    ///
    /// - Throws: ``ImageLoadingError/decodingFailed(_:)`` when the bytes are not an image this
    ///   manager's coders read.
    public func info() throws(ImageLoadingError) -> ImageInfo {
        if let image = fetched.image { return Self.info(of: image) }
        do {
            return try fetched.input.info(coders: coders)
        } catch let error as ImageCodingError {
            throw .decodingFailed(error)
        } catch {
            guard let format = try? fetched.input.format() else { throw .decodingFailed(.unsupportedFormat(nil)) }
            throw .decodingFailed(.corrupt(format, String(describing: error)))
        }
    }

    /// The header facts of an image given decoded: its size, frames, alpha and orientation, and
    /// its format (BMP, uncompressed pixels, when it has none).
    static func info(of image: Image) -> ImageInfo {
        ImageInfo(
            format: image.format ?? .bmp, width: image.pixelSize.width, height: image.pixelSize.height, orientation: image.orientation,
            frameCount: image.frameCount, loopCount: image.loopCount, durations: image.frames.map(\.duration), hasAlpha: image.hasAlpha)
    }
}
