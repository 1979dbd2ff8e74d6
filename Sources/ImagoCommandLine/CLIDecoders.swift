// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ImagoCoders
package import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The decoders of `imago` and `imago-fetch`: the formats `IMAGO_ISOLATED_FORMATS` names (by
/// default `DecoderIsolation.Selection.commandLineDefault`: `imago-server`'s but PNG, whose rows
/// stream in process) decoded in sandboxed worker processes, so that a decoder that crashes or hangs on a file fails that
/// file (a typed error, exit status 1; the next file of a `thumbnail` run goes on) instead of
/// the whole command.
package enum CLIDecoders {
    /// The longest one decode may take in a worker (and, with 2 s more, its CPU time). Longer
    /// than the service's default: a command line has no request deadline, but an endless loop
    /// still ends.
    package static let timeout = Duration.seconds(120)

    /// The isolation for a command that decodes up to `workers` files at once: the selected
    /// formats, or of them only those in `only` when given (a worker loads the libraries of its
    /// formats before it takes work: about 10–30 ms each); `nil` when nothing is left, or when
    /// this program cannot start workers (its `main` did not call `DecoderWorker.runIfRequested()`,
    /// as when a test runs a command in process).
    ///
    /// - Throws: `ImageCodingError.invalidArgument` for a list that names no known format.
    package static func isolation(
        workers: Int, only: (formats: Set<ImageFormat>, video: Bool)? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> DecoderIsolation? {
        var selection = try DecoderIsolation.Selection(environment: environment, fallback: .commandLineDefault)
        if let only {
            selection.formats.formIntersection(only.formats)
            selection.video = selection.video && only.video
        }
        guard !selection.isEmpty, DecoderWorker.isAvailable else { return nil }
        return DecoderIsolation(formats: selection.formats, video: selection.video, workers: workers, timeout: timeout)
    }

    /// `ImageCoderRegistry.shared`, with `format` decoded by `workers` worker processes when it
    /// is selected (and video frames when `video` and video is selected): for a command that
    /// decodes one file (its pages side by side with more workers), whose workers then load
    /// that format's libraries alone.
    ///
    /// - Throws: as ``isolation(workers:only:environment:)``.
    package static func registry(for format: ImageFormat?, video: Bool = false, workers: Int = 1) throws -> ImageCoderRegistry {
        let only: (Set<ImageFormat>, Bool) = (format.map { [$0] } ?? [], video)
        guard let isolation = try isolation(workers: max(1, workers), only: only) else { return .shared }
        return ImageCoderRegistry.shared.isolating(isolation)
    }

    /// The registries of a command that decodes many files (`thumbnail`): files of the selected
    /// formats go to up to `workers` worker processes, made when the first such file comes (so a
    /// run of JPEGs and PNGs loads no other library); the rest decode in process.
    package final class OnDemand: Sendable {
        private let isolation: DecoderIsolation?
        private let isolating = Mutex<ImageCoderRegistry?>(nil)

        /// - Parameter present: The formats among the files (sniffed), and whether a video is:
        ///   the workers load those formats' libraries alone. `nil`: any.
        /// - Throws: as ``CLIDecoders/isolation(workers:only:environment:)``.
        package init(workers: Int, present: (formats: Set<ImageFormat>, video: Bool)? = nil) throws {
            isolation = try CLIDecoders.isolation(workers: workers, only: present)
        }

        /// The registry for a file of `format` (sniffed), or for a video's frame.
        package func registry(for format: ImageFormat?, video: Bool = false) -> ImageCoderRegistry {
            guard let isolation, video ? isolation.video : format.map(isolation.formats.contains) ?? false else { return .shared }
            return isolating.withLock { made in
                if let made { return made }
                let registry = ImageCoderRegistry.shared.isolating(isolation)
                made = registry
                return registry
            }
        }
    }
}
