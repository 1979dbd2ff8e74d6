public import ImagoCore

/// One caller's share of a download: its events, its priority, and a way to leave.
///
/// Read the events either through ``events`` or through ``value(progress:partialImage:)``, not both.
public final class ImageDownloadTask: Sendable {
    /// Progress, partial images (progressive requests), then the result; the stream fails with
    /// ``ImageLoadingError`` when the download does.
    public let events: AsyncThrowingStream<ImageDownloadEvent, any Error>

    private let downloader: ImageDownloader
    private let transfer: Int
    private let subscriber: Int

    init(events: AsyncThrowingStream<ImageDownloadEvent, any Error>, downloader: ImageDownloader, transfer: Int, subscriber: Int) {
        self.events = events
        self.downloader = downloader
        self.transfer = transfer
        self.subscriber = subscriber
    }

    /// Changes this caller's priority; a queued transfer moves accordingly.
    public func setPriority(_ priority: ImageDownloadPriority) {
        downloader.setPriority(priority, transfer: transfer, subscriber: subscriber)
    }

    /// Leaves the download: this caller's events end with ``ImageLoadingError/cancelled``; the
    /// transfer goes on for any other callers and stops without them.
    public func cancel() {
        downloader.unsubscribe(transfer: transfer, subscriber: subscriber, finishing: true)
    }

    /// Waits for the result, passing progress and partial images to the closures.
    ///
    /// - Throws: ``ImageLoadingError``; ``ImageLoadingError/cancelled`` when the task was cancelled.
    public func value(progress: (@Sendable (ImageDownloadProgress) -> Void)? = nil,
                      partialImage: (@Sendable (Image) -> Void)? = nil) async throws -> ImageDownloadResult {
        do {
            for try await event in events {
                switch event {
                case .progress(let p): progress?(p)
                case .partialImage(let image): partialImage?(image)
                case .completed(let result): return result
                }
            }
        } catch {
            throw ImageDownloader.loadingError(error)
        }
        throw ImageLoadingError.cancelled
    }
}
