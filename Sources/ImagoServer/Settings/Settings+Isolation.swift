// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
public import ImagoCore

/// Which formats are decoded in sandboxed worker processes, and how (`DecoderIsolation`):
/// ``ServerConfiguration/isolation``.
public struct IsolationSettings: Sendable {
    /// `IMAGO_ISOLATED_FORMATS`: the source formats decoded out of process. Default
    /// `DecoderIsolation.defaultFormats` (PDF, SVG, TIFF, HEIC/HEIF, AVIF, JPEG XL, JPEG 2000,
    /// ICNS, PNG, WebP, and `video`); `none` decodes everything in the server's process.
    public var formats: Set<ImageFormat> = DecoderIsolation.defaultFormats
    /// `video` in `IMAGO_ISOLATED_FORMATS`: video frames (FFmpeg) are read in the workers too.
    /// Default `true`.
    public var video = true
    /// `IMAGO_ISOLATION_TIMEOUT`: the longest one decode may take in a worker; 2 s more is the
    /// CPU time (every thread's) it may use there. Default `nil`:
    /// three quarters of `IMAGO_REQUEST_TIMEOUT`, so that a worker stopped for its time still
    /// answers its request with the decoder's 422, not the deadline's 503.
    public var timeout: Duration?
    /// `IMAGO_ISOLATION_QUARANTINE`: how long a source a worker stopped on is refused without
    /// reaching a worker. Default 10 minutes.
    public var quarantine: Duration = .seconds(600)
    /// `IMAGO_ISOLATION_SANDBOX`: seccomp, Landlock and namespaces in every worker. Default `true`.
    public var sandbox = true
    /// `IMAGO_ISOLATION_WORKER`: the executable the workers run. Default `nil`: this program
    /// (`imago-server` is its own worker).
    public var executable: String?

    /// Creates the defaults.
    public init() {}

    /// Whether workers can be started: an executable is named, or this program is its own
    /// worker (`DecoderWorker.runIfRequested()` was called, as `imago-server` does). An app that
    /// embeds the service without either decodes in its own process, and the service says so.
    var isAvailable: Bool { (formats.isEmpty && !video) || executable != nil || DecoderWorker.isAvailable }

    /// The library's settings, for a service whose requests may take `requestTimeout`, whose
    /// decodes run `workers` at once and are held to `limits` (the workers' address space follows
    /// its resolution limit); `nil` when nothing is isolated or ``isAvailable`` is false.
    func decoderIsolation(
        requestTimeout: Duration, workers: Int, limits: DecodingLimits, onEvent: @escaping @Sendable (DecoderIsolation.Event) -> Void
    ) -> DecoderIsolation? {
        guard !formats.isEmpty || video, isAvailable else { return nil }
        var isolation = DecoderIsolation(
            formats: formats, video: video, workers: workers, timeout: timeout ?? requestTimeout * 0.75, quarantine: quarantine,
            memoryLimit: DecoderIsolation.memoryLimit(for: limits), sandbox: sandbox ? DecoderIsolation.Sandbox() : .none, onEvent: onEvent)
        if let executable { isolation.executable = executable }
        return isolation
    }
}

extension ServerConfiguration {
    /// The settings of decoding out of process.
    static let isolationSettings: [Setting<ServerConfiguration>] = [
        Setting(
            DecoderIsolation.Selection.environmentVariable,
            meaning: "source formats decoded in sandboxed worker processes, video for FFmpeg's (none: all in the server's process)"
        ) { env, c throws(ConfigurationError) in
            let name = DecoderIsolation.Selection.environmentVariable
            guard let value = env[name] else { return }
            // One reader of the list, shared with `imago` and `imago-fetch`.
            do throws(ImageCodingError) {
                let selection = try DecoderIsolation.Selection(parsing: value)
                (c.isolation.formats, c.isolation.video) = (selection.formats, selection.video)
            } catch {
                guard case .invalidArgument(let why) = error else { throw ConfigurationError(variable: name, reason: error.description) }
                throw ConfigurationError(variable: name, reason: why)
            }
        } show: {
            DecoderIsolation.Selection(formats: $0.isolation.formats, video: $0.isolation.video).description
        },
        Setting(
            "IMAGO_ISOLATION_TIMEOUT",
            meaning: "seconds one decode may take in a worker (and, plus 2, the CPU seconds: RLIMIT_CPU) before it is stopped (the request gets 422)"
        ) { env, c throws(ConfigurationError) in
            c.isolation.timeout = try env.seconds("IMAGO_ISOLATION_TIMEOUT") ?? c.isolation.timeout
        } show: {
            $0.isolation.timeout.map { EnvironmentReader.text($0) } ?? "3/4 of IMAGO_REQUEST_TIMEOUT"
        },
        .seconds(
            "IMAGO_ISOLATION_QUARANTINE", \.isolation.quarantine, zero: true,
            "seconds a source a worker stopped on is refused at once (0: not kept)"),
        .bool("IMAGO_ISOLATION_SANDBOX", \.isolation.sandbox, "seccomp, Landlock and namespaces in every decoder worker"),
        .text("IMAGO_ISOLATION_WORKER", \.isolation.executable, "the executable decoder workers run; none: imago-server itself")
    ]
}
