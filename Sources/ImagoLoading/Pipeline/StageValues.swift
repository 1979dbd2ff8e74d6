// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The original bytes of a request, and where they came from: the fetch stage's value.
struct FetchedData: Sendable {
    /// The bytes, or the file holding them (a ``ImageRequest/Source/file(_:key:)`` request, a
    /// disk-cache entry), decoded where it lies; its header is read once, by whoever asks first.
    var input: ImageInput
    var response: DataLoadResponse?
    var source: ImageLoadSource
    var revalidated: Bool
    /// The source's validators (`etag`, `last-modified`), from the response or the disk entry.
    var validators: [String: String] = [:]
    /// The bytes' digest (`CachedEntry.digest(of:)`): recorded by the cache, or computed from
    /// downloaded bytes; `nil` for bytes and files given in the request, until someone asks.
    var digest: UInt64?
    /// Downloaded bytes staged for the disk cache: whoever finds them good commits them.
    var write: PendingWrite?
    /// How long the disk read or the download took.
    var timings = ImageLoadTimings()
    /// The image an ``ImageRequest/Source/image(_:key:)`` request gave, decoded already: the
    /// decode stage prepares it instead of decoding ``input`` (which is empty).
    var image: Image?

    /// Commits the staged write, waiting for it when `wait` is set.
    func commitWrite(wait: Bool) async {
        guard let write else { return }
        if wait { await write.commitAndWait() } else { write.commit() }
    }
}

extension ImageInput {
    /// The bytes when they are in memory, or a disk-cache file mapped (no copy); `nil` for a file
    /// that would have to be read.
    var mappedData: Data? {
        switch storage {
        case .data(let data): data
        case .file(let file): file.mapsContents ? try? contents() : nil
        }
    }
}

/// What the fetch stage reports while it runs.
enum FetchEvent: Sendable {
    case progress(ImageDownloadProgress)
    case partialData(ReceivedBytes)
}

/// A decoded image and the bytes it came from: the decode stage's value.
struct DecodedImage: Sendable {
    var image: Image
    var fetched: FetchedData
    /// The fetch's timings and the decode's.
    var timings: ImageLoadTimings
}

/// What the decode and process stages report while they run.
enum ImageStageEvent: Sendable {
    case progress(ImageDownloadProgress)
    case partialImage(Image)
}

/// The finished image: the process stage's value, shared by every load of the same key.
struct ProcessedImage: Sendable {
    var image: Image
    /// The original bytes, or the processed image's encoded bytes when it came from disk; a file
    /// is mapped only when somebody asks for ``data`` (a library load's result), never for an
    /// encode that does not keep it.
    var bytes: ImageInput?
    var source: ImageLoadSource
    var revalidated: Bool
    /// Every stage's timings so far.
    var timings = ImageLoadTimings()

    /// ``bytes`` in memory, or mapped from their file.
    var data: Data? { bytes?.mappedData }
}

/// The encoded result: the encode stage's value, shared by every load of the same key and output.
struct EncodedImage: Sendable {
    var contents: EncodedImageResult.Contents
    var format: ImageFormat
    var pixelSize: PixelSize
    var source: ImageLoadSource
    var revalidated: Bool
    /// How it was made.
    var method: EncodedImageResult.Method
    /// Every stage's timings.
    var timings = ImageLoadTimings()
}

/// Accepts every stage event.
let acceptAll: @Sendable (ImageStageEvent) -> Bool = { _ in true }
