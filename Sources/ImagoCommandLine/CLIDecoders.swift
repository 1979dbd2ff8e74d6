// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ImagoCoders
package import ImagoCore

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

    /// `ImageCoderRegistry.shared`, its selected formats decoded by up to `workers` worker
    /// processes (``isolation(workers:only:environment:)``), started at the first decode that
    /// needs one: for a command that decodes files of any format.
    ///
    /// - Throws: as ``isolation(workers:only:environment:)``.
    package static func registry(workers: Int) throws -> ImageCoderRegistry {
        guard let isolation = try isolation(workers: workers) else { return .shared }
        return ImageCoderRegistry.shared.isolating(isolation)
    }

    /// `ImageCoderRegistry.shared`, with `format` decoded by one worker process when it is
    /// selected (and video frames when `video` and video is selected): for a command that
    /// decodes one file, whose worker then loads that format's libraries alone.
    ///
    /// - Throws: as ``isolation(workers:only:environment:)``.
    package static func registry(for format: ImageFormat?, video: Bool = false) throws -> ImageCoderRegistry {
        let only: (Set<ImageFormat>, Bool) = (format.map { [$0] } ?? [], video)
        guard let isolation = try isolation(workers: 1, only: only) else { return .shared }
        return ImageCoderRegistry.shared.isolating(isolation)
    }
}
