#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCoders
import ImagoCore

/// The original bytes of a request, and where they came from: the fetch stage's value.
struct FetchedData: Sendable {
    /// The bytes; empty for a file, which is decoded where it lies.
    var data: Data
    /// The file of a ``ImageRequest/Source/file(_:key:)`` request.
    var file: ImageFile? = nil
    var response: DataLoadResponse?
    var source: ImageLoadSource
    var revalidated: Bool
    /// The source's validators (`etag`, `last-modified`), from the response or the disk entry.
    var validators: [String: String] = [:]
    /// Downloaded bytes staged for the disk cache: whoever finds them good commits them.
    var write: PendingWrite?

    /// Commits the staged write, waiting for it when `wait` is set.
    func commitWrite(wait: Bool) async {
        guard let write else { return }
        if wait { await write.commitAndWait() } else { write.commit() }
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
}

/// What the decode and process stages report while they run.
enum ImageStageEvent: Sendable {
    case progress(ImageDownloadProgress)
    case partialImage(Image)
}

/// The finished image: the process stage's value, shared by every load of the same key.
struct ProcessedImage: Sendable {
    var image: Image
    /// The original bytes, or the processed image's encoded bytes when it came from disk.
    var data: Data?
    var source: ImageLoadSource
    var revalidated: Bool
}

/// Accepts every stage event.
let acceptAll: @Sendable (ImageStageEvent) -> Bool = { _ in true }
