#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore
import ImagoCoders
import Synchronization

/// Partial images for one transfer: at most one decode in flight; bytes that arrive meanwhile
/// replace any older bytes waiting, so the next decode always uses the newest. Each distinct set
/// of decode options keeps its own progressive decoder.
final class ProgressiveDecoding: Sendable {
    typealias Targets = [DecodeOptions: [AsyncThrowingStream<ImageDownloadEvent, any Error>.Continuation]]

    private struct State {
        var inFlight: Task<Void, Never>?
        var pending: (Data, Targets)?
        var closed = false
    }

    /// The progressive decoders, used only by the one decode in flight.
    private final class Decoders: @unchecked Sendable {
        var byOptions: [DecodeOptions: any ProgressiveImageDecoding] = [:]
        var failed: Set<DecodeOptions> = []
    }

    private let state = Mutex(State())
    private let decoders = Decoders()
    private let coders: ImageCoders

    init(coders: ImageCoders) {
        self.coders = coders
    }

    /// Decodes `data` (everything received so far) for `targets`, now or after the decode in flight.
    func offer(_ data: Data, to targets: Targets) {
        state.withLock { s in
            guard !s.closed else { return }
            if s.inFlight != nil {
                s.pending = (data, targets)
                return
            }
            s.inFlight = Task.detached(priority: .utility) { [self] in self.drain(data, targets) }
        }
    }

    /// Stops taking bytes and waits for the decode in flight, so every partial image is delivered
    /// before the result.
    func close() async {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.closed = true
            s.pending = nil
            return s.inFlight
        }
        await task?.value
    }

    private func drain(_ data: Data, _ targets: Targets) {
        var job: (Data, Targets)? = (data, targets)
        while let (bytes, to) = job {
            decode(bytes, for: to)
            job = state.withLock { s -> (Data, Targets)? in
                if !s.closed, let next = s.pending {
                    s.pending = nil
                    return next
                }
                s.inFlight = nil
                return nil
            }
        }
    }

    private func decode(_ data: Data, for targets: Targets) {
        for (options, continuations) in targets where !decoders.failed.contains(options) {
            let decoder: any ProgressiveImageDecoding
            if let existing = decoders.byOptions[options] {
                decoder = existing
            } else if let made = coders.makeProgressiveDecoder(for: data, options: options) {
                decoders.byOptions[options] = made
                decoder = made
            } else {
                continue   // not enough bytes to tell the format yet, or no progressive decoder for it
            }
            do {
                try decoder.update(data, isFinal: false)
                if let image = try decoder.currentImage() {
                    for c in continuations { c.yield(.partialImage(image)) }
                }
            } catch {
                decoders.failed.insert(options)   // the final one-shot decode reports the error
            }
        }
    }
}
