// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One caller's share of a download: its events, its priority, and a way to leave.
///
/// Read the events either through ``events`` or through ``value(progress:partialData:)``, not both.
public final class ImageDownloadTask: Sendable {
    /// Progress, partial bytes (progressive requests), then the result; the sequence fails with
    /// ``ImageLoadingError`` when the download does.
    public let events: ImageDownloadEvents

    private let priorityCell: PriorityCell
    private let subscription: ImageDownloader.Transfers.Subscription

    init(subscription: ImageDownloader.Transfers.Subscription, priority: PriorityCell) {
        self.subscription = subscription
        priorityCell = priority
        events = ImageDownloadEvents(base: subscription.stream)
    }

    /// This caller's priority. Raising it moves a queued transfer up; the transfer runs at its
    /// most urgent caller's priority.
    public var priority: ImagePriority {
        get { priorityCell.currentPriority }
        set { priorityCell.set(newValue) }
    }

    /// Changes this caller's priority; a queued transfer moves accordingly.
    public func setPriority(_ priority: ImagePriority) {
        priorityCell.set(priority)
    }

    /// Leaves the download: this caller's events end with ``ImageLoadingError/cancelled``; the
    /// transfer goes on for any other callers and stops without them.
    public func cancel() {
        subscription.cancel()
    }

    /// Waits for the result, passing progress and partial bytes to the closures. Cancelling the
    /// calling task leaves the download.
    ///
    /// - Throws: ``ImageLoadingError``; ``ImageLoadingError/cancelled`` when this caller left.
    public func value(
        progress: (@Sendable (ImageDownloadProgress) -> Void)? = nil,
        partialData: (@Sendable (Data) -> Void)? = nil
    ) async throws(ImageLoadingError) -> ImageDownloadResult {
        do {
            return try await subscription.value { event in
                switch event {
                case .progress(let p): progress?(p)
                case .partialData(let d): partialData?(d.snapshot)
                }
            }
        } catch {
            throw ImageLoadingError(error)
        }
    }
}

/// The events of one ``ImageDownloadTask``: progress, partial bytes, then the result.
public struct ImageDownloadEvents: AsyncSequence, Sendable {
    /// One download event.
    public typealias Element = ImageDownloadEvent
    /// `any Error` in the type; every error thrown is an ``ImageLoadingError``.
    public typealias Failure = any Error

    let base: ImageDownloader.Transfers.Stream

    /// Iterates the events; the iteration throws ``ImageLoadingError``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: ImageDownloader.Transfers.Stream.AsyncIterator

        /// The next event; `nil` after ``ImageDownloadEvent/completed(_:)``.
        ///
        /// - Throws: ``ImageLoadingError`` when the download fails; ``ImageLoadingError/cancelled``
        ///   when this caller left.
        public mutating func next() async throws -> ImageDownloadEvent? {
            do {
                switch try await base.next() {
                case .event(.progress(let p))?: return .progress(p)
                case .event(.partialData(let d))?: return .partialData(d.snapshot)
                case .value(let r)?: return .completed(r)
                case nil: return nil
                }
            } catch {
                throw ImageLoadingError(error)
            }
        }
    }

    /// An iterator over the events; read them through one iterator only.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator())
    }
}
