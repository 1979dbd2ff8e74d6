// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

/// Decoding some formats in separate, sandboxed processes, so that a fault in a codec library
/// (a crash, an endless loop, a runaway allocation, an exploit) costs one request, not the
/// process that holds the keys and the network.
///
/// A registry made with ``ImageCoderRegistry/isolating(_:)`` sends the header reads and
/// decodes of ``formats`` to a pool of ``workers`` pre-started worker processes: the same
/// executable started with ``arguments``, which must call ``DecoderWorker/runIfRequested(coders:)``
/// first thing in `main`. Each worker loads the libraries of those formats, then locks itself
/// down (``Sandbox``) before it reads a byte of input. The source goes to it in a memory file
/// it keeps; the host reads the decoded pixels where they lie in the worker's memory
/// (`process_vm_readv`; from a second memory file where the host may not), so a decode costs a
/// copy each way and a few context switches.
///
/// ```swift
/// @main struct App {
///     static func main() async throws {
///         DecoderWorker.runIfRequested()          // a worker never returns from this
///         let coders = ImageCoderRegistry.shared.isolating(DecoderIsolation(formats: [.tiff, .pdf, .svg]))
///         let image = try coders.decode(data)     // a TIFF, PDF or SVG decodes in a worker
///     }
/// }
/// ```
///
/// A worker that dies, runs past ``timeout`` or is stopped by its sandbox is replaced at once;
/// its request fails with `ImageCodingError.decoderFailed(_:_:)`, and the same bytes fail the
/// same way for ``quarantine`` without reaching a worker.
public struct DecoderIsolation: Sendable {
    /// The formats decoded out of process. Default: ``defaultFormats``.
    public var formats: Set<ImageFormat>
    /// Whether video frames (FFmpeg, ``ImageCoderRegistry/videoFrame(of:at:keyframesOnly:limits:)``)
    /// are read in the workers too. Default `true`.
    public var video: Bool
    /// How many worker processes run, each decoding one image at a time. Default: the number
    /// of CPUs the process may use.
    public var workers: Int
    /// The executable the workers run. Default `/proc/self/exe`, this program.
    public var executable: String
    /// The arguments a worker is started with. Default ``DecoderWorker/argument`` alone, which
    /// ``DecoderWorker/runIfRequested(coders:)`` looks for.
    public var arguments: [String]
    /// Longest one header read or decode may take, from the moment a worker has it. A worker
    /// past it is killed. With 2 s more, it is also the CPU time, all of the worker's threads
    /// together, that one request may use (RLIMIT_CPU, moved before each request): a worker past
    /// that is stopped by the kernel (SIGXCPU) even when its host cannot act. Default 30 s.
    public var timeout: Duration
    /// How long data a worker failed on is refused without reaching a worker. Default 10 minutes.
    public var quarantine: Duration
    /// The address space a worker may map (`RLIMIT_AS`): an allocation past it fails in the
    /// worker. Default 4 GiB, or six times the largest frame `DecodingLimits.maxPixels`
    /// allows when that is more.
    public var memoryLimit: Int
    /// How many decodes a worker makes before it is replaced, so that what a library leaks
    /// is returned. Default 1,000.
    public var decodesPerWorker: Int
    /// What a worker does to itself before it reads input. Default: everything.
    public var sandbox: Sandbox
    /// Told of every worker started, failed or replaced, every quarantined source and every
    /// sandbox step a worker could not take (for logs and metrics). Called on the thread that
    /// saw it; keep it short. Default `nil`.
    public var onEvent: (@Sendable (Event) -> Void)?

    /// The formats whose libraries are large or rarely hardened: PDF (poppler), SVG (librsvg),
    /// TIFF (libtiff), HEIC/HEIF and AVIF (libheif, libde265, dav1d), JPEG XL (libjxl),
    /// JPEG 2000 (openjpeg) and ICNS (whose frames are PNG or JPEG 2000); and PNG and WebP
    /// (libpng, libwebp), whose isolation costs the service's resizes under 5%
    /// (`docs/benchmarks.md`). JPEG (a decode of a few milliseconds, against a crossing that is
    /// not much less) and GIF (an animation's every frame crosses) cost 20–27% and stay out.
    public static let defaultFormats: Set<ImageFormat> = [.pdf, .svg, .tiff, .heic, .heif, .avif, .jxl, .jp2, .icns, .png, .webp]

    /// What a worker does to itself before it reads a byte of input. Every step is on by
    /// default; a step the host does not allow (an older kernel, a container's profile) is
    /// skipped and reported through ``DecoderIsolation/onEvent`` as
    /// ``DecoderIsolation/Event/sandboxIncomplete(_:)``.
    public struct Sandbox: Sendable, Hashable {
        /// A seccomp-bpf allow-list (through libseccomp): no sockets, no `exec`, no new
        /// processes, no opening files for writing; calls outside the list fail, and the
        /// dangerous ones kill the worker.
        public var seccomp: Bool
        /// Landlock: the worker may read only beneath ``readablePaths``.
        public var landlock: Bool
        /// New user, network, IPC and mount namespaces: no network, no other user's rights, and a
        /// file system of ``readablePaths`` alone (read only; anything else does not exist for the
        /// worker, whether or not the host has Landlock).
        public var namespaces: Bool
        /// What the decoders may read on their own: fonts, their configuration, the libraries
        /// loaded on first use. Default: `/usr/lib`, `/usr/share/fonts`, `/usr/share/fontconfig`,
        /// `/usr/share/poppler`, `/usr/share/mime`, `/etc/fonts`, `/var/cache/fontconfig`,
        /// `/usr/local/share/fonts`.
        public var readablePaths: [String]

        /// Creates sandbox settings; every step defaults to on.
        public init(
            seccomp: Bool = true, landlock: Bool = true, namespaces: Bool = true,
            readablePaths: [String] = Sandbox.defaultReadablePaths
        ) {
            self.seccomp = seccomp
            self.landlock = landlock
            self.namespaces = namespaces
            self.readablePaths = readablePaths
        }

        /// The default ``readablePaths``.
        public static let defaultReadablePaths = [
            "/usr/lib", "/usr/share/fonts", "/usr/share/fontconfig", "/usr/share/poppler", "/usr/share/mime", "/etc/fonts",
            "/var/cache/fontconfig", "/usr/local/share/fonts"
        ]

        /// No step: the worker runs as the host process does (for debugging a decoder).
        public static let none = Sandbox(seccomp: false, landlock: false, namespaces: false)
    }

    /// Something the isolation did or saw.
    public enum Event: Sendable, Hashable {
        /// A worker process started (its process id).
        case workerStarted(pid: Int32)
        /// A worker stopped without answering a request for data of this format.
        case workerFailed(ImageFormat, Failure)
        /// A worker was replaced by a new one, after a failure or its ``DecoderIsolation/decodesPerWorker``.
        case workerReplaced
        /// A request was refused from the quarantine, without reaching a worker.
        case quarantineHit(ImageFormat)
        /// A worker could not take a sandbox step; the text says which and why.
        case sandboxIncomplete(String)
    }

    /// Why a worker stopped.
    public enum Failure: Sendable, Hashable, CustomStringConvertible {
        /// It died of a signal (its number and name): a crash, an abort, an allocation the
        /// address-space limit refused.
        case crashed(signal: Int32, name: String)
        /// Its sandbox killed it (`SIGSYS`): it made a system call it may not make.
        case stoppedBySandbox
        /// It ran past ``DecoderIsolation/timeout`` (or its CPU-time limit) and was killed.
        case timedOut(Duration)
        /// It exited, or broke the protocol, without an answer.
        case exited(String)

        /// What happened, in a few words.
        public var description: String {
            switch self {
            case .crashed(_, let name): "its process crashed (\(name))"
            case .stoppedBySandbox: "its process was stopped by the sandbox (a forbidden system call)"
            case .timedOut(let limit): "it ran past its limit of \(limit.inSeconds) s and was stopped"
            case .exited(let why): "its process stopped: \(why)"
            }
        }
    }

    /// Counts since the registry was made, for metrics.
    public struct Statistics: Sendable, Hashable {
        /// Workers that died of a signal, other than the sandbox's.
        public var crashes = 0
        /// Workers killed: by the sandbox, or for running past their time.
        public var kills = 0
        /// Workers started in place of one that stopped or was retired.
        public var replacements = 0
        /// Sources in quarantine now.
        public var quarantined = 0
        /// Requests answered from the quarantine.
        public var quarantineHits = 0
        /// Worker processes alive now.
        public var liveWorkers = 0

        /// All counts zero.
        public init() {}
    }

    /// The address space for decodes held to `limits`: 4 GiB, or six times the largest frame
    /// `limits.maxPixels` allows (24 bytes a pixel) when that is more. A service that raises its
    /// resolution limit gives its workers this for its own limits.
    public static func memoryLimit(for limits: DecodingLimits) -> Int {
        let frame = limits.maxPixels.multipliedReportingOverflow(by: 24)
        return max(4 << 30, frame.overflow ? Int.max : frame.partialValue)
    }

    /// Creates isolation settings; every parameter defaults as documented on its property.
    public init(
        formats: Set<ImageFormat> = DecoderIsolation.defaultFormats, video: Bool = true, workers: Int? = nil,
        executable: String = "/proc/self/exe", arguments: [String] = [DecoderWorker.argument],
        timeout: Duration = .seconds(30), quarantine: Duration = .seconds(600), memoryLimit: Int? = nil,
        decodesPerWorker: Int = 1_000, sandbox: Sandbox = Sandbox(), onEvent: (@Sendable (Event) -> Void)? = nil
    ) {
        self.formats = formats
        self.video = video
        self.workers = max(1, workers ?? WorkQueue.defaultConcurrency)
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
        self.quarantine = quarantine
        self.memoryLimit = memoryLimit ?? Self.memoryLimit(for: .default)
        self.decodesPerWorker = max(1, decodesPerWorker)
        self.sandbox = sandbox
        self.onEvent = onEvent
    }
}
