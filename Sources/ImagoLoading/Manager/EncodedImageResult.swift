// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An image loaded, processed and encoded as its request's ``ImageRequest/output`` asks
/// (``ImageManager/loadEncodedImage(with:source:)``).
public struct EncodedImageResult: Sendable {
    /// Where the encoded bytes are.
    public enum Contents: Sendable {
        /// In memory.
        case data(Data)
        /// In a file: the source itself, passed through from the disk cache or the request's
        /// file, or a result read from the result cache.
        // Indirect, as `ImageRequest.Source.file`: one layout wherever the enum is copied.
        indirect case file(ImageFile)
    }

    /// How the bytes were made.
    public enum Method: String, Sendable, Hashable {
        /// The fetched bytes as they are: nothing asked for changes them
        /// (``ImageRequest/Output/passesThroughUnchanged``).
        case passedThrough
        /// Decoded and encoded a band of rows at a time, no bitmap held: a conversion that leaves
        /// every pixel as decoded (JPEG or PNG to JPEG, PNG or lossy WebP).
        case streamed
        /// Decoded (shrinking on load where it could), transformed and encoded.
        case rendered
        /// Made earlier from the same source bytes and read from the result cache
        /// (``ImageManager/Configuration/resultCache``).
        case stored
    }

    /// The bytes, or the file holding them.
    public var contents: Contents
    /// Their format.
    public var format: ImageFormat
    /// The encoded image's size, as stored.
    public var pixelSize: PixelSize
    /// Where the source came from: memory (a finished image cached), disk or network.
    public var source: ImageLoadSource
    /// Whether a revalidation (``ImageRequest/Options/refreshCached``) got 304 and kept the cached bytes.
    public var revalidated: Bool
    /// How the bytes were made.
    public var method: Method
    /// The request.
    public var request: ImageRequest
    /// How long each stage took: disk read or download (unless the caller fetched the source
    /// with ``ImageManager/loadSource(with:progress:)``, whose ``LoadedSource/timings`` has them), queue
    /// wait, decode, transform, encode.
    public var timings = ImageLoadTimings()

    /// The size in bytes.
    public var byteCount: Int {
        switch contents {
        case .data(let data): data.count
        case .file(let file): file.size
        }
    }

    /// The bytes: those in memory, or the file's read (a disk-cache entry is mapped, not copied).
    ///
    /// - Throws: `CocoaError(.fileReadUnknown)` when the file cannot be read.
    public func data() throws -> Data {
        switch contents {
        case .data(let data): data
        case .file(let file): try file.contents()
        }
    }
}
