// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
public import Foundation
#endif
public import ImagoCore
import ImagoServiceURL

/// Everything `imago-server` can be told, each with its environment variable (imgproxy's names
/// with `IMAGO_` for `IMGPROXY_`) and its default. ``init(environment:)`` reads them.
public struct ServerConfiguration: Sendable {
    /// `IMAGO_BIND`: `host:port` to listen on. Default `127.0.0.1:8080`.
    public var bind: String = "127.0.0.1:8080"
    /// `IMAGO_KEY`: hex keys, comma-separated. Without one, any signature segment is accepted.
    public var keys: String?
    /// `IMAGO_SALT`: hex salts, one per key.
    public var salts: String?
    /// `IMAGO_SIGNATURE_SIZE`: bytes of the HMAC kept, 1–32. Default 32.
    public var signatureSize: Int = 32
    /// `IMAGO_SECRET`: when set, requests need `Authorization: Bearer <secret>`.
    public var secret: String?
    /// `IMAGO_CACHE_DIR`: where source bytes are cached. Default: the user's cache folder
    /// (`$XDG_CACHE_HOME/imago`), namespace `sources`.
    public var cacheDirectory: String?
    /// `IMAGO_CACHE_SIZE`: bytes of sources kept on disk; past it the least recently used go
    /// until half remains. Default 1 GiB; 0 disables the source cache.
    public var cacheSize: Int = 1 << 30
    /// Whether a conversion that leaves the pixels alone flows from decoder to encoder in rows
    /// (see ``ImageService``). Tests turn it off to compare with the whole-image path.
    var streamsConversions = true
    /// `IMAGO_LOCAL_ROOT`: the folder `local:///path` sources are read from. Default: none
    /// (local sources refused).
    public var localRoot: String?
    /// `IMAGO_ALLOWED_SOURCES`: comma-separated URL prefixes, `*` matching any run of characters
    /// within one host or path segment; checked on every redirect too. Default: any.
    public var allowedSources: [String] = []
    /// `IMAGO_ALLOW_LOOPBACK_SOURCES`. Default `false`.
    public var allowLoopbackSources = false
    /// `IMAGO_ALLOW_PRIVATE_SOURCES`: RFC 1918, carrier-grade NAT, unique-local. Default `false`.
    public var allowPrivateSources = false
    /// `IMAGO_ALLOW_LINK_LOCAL_SOURCES`: 169.254/16 (cloud metadata), fe80::/10. Default `false`.
    public var allowLinkLocalSources = false
    /// `IMAGO_MAX_SRC_RESOLUTION`: megapixels of a source. Default 50.
    public var maxSourceResolution: Double = 50
    /// `IMAGO_MAX_SRC_FILE_SIZE`: bytes of a source, checked against `Content-Length` and the
    /// streamed length. Default 64 MiB.
    public var maxSourceFileSize: Int = 64 << 20
    /// `IMAGO_MAX_REDIRECTS`. Default 10.
    public var maxRedirects: Int = 10
    /// `IMAGO_DOWNLOAD_TIMEOUT`: seconds for a source download. Default 5.
    public var downloadTimeout: Duration = .seconds(5)
    /// `IMAGO_REQUEST_TIMEOUT`: seconds for a whole request, queueing included. Default 10.
    public var requestTimeout: Duration = .seconds(10)
    /// `IMAGO_MAX_RESULT_DIMENSION`: pixels on a result's longer side. Default: no limit.
    public var maxResultDimension: Int?
    /// `IMAGO_ALLOW_SECURITY_OPTIONS`: let URLs override the source limits. Default `false`.
    public var allowSecurityOptions = false
    /// `IMAGO_QUALITY`: lossy quality, 1–100. Default 80.
    public var quality: Int = 80
    /// `IMAGO_FORMAT_QUALITY`: per format, `webp=79,avif=63`. Default none.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// `IMAGO_AUTO_WEBP`: answer with WebP when the client's `Accept` takes it and the URL names
    /// no format. Default `false`.
    public var autoWebP = false
    /// `IMAGO_AUTO_AVIF`: the same for AVIF, preferred over WebP. Default `false`.
    public var autoAVIF = false
    /// `IMAGO_MAX_ANIMATION_FRAMES`: frames of an animated source. Default 500.
    public var maxAnimationFrames: Int = 500
    /// `IMAGO_MAX_ANIMATION_FRAME_PIXELS`: megapixels summed over an animation's frames. Default 500.
    public var maxAnimationPixels: Double = 500
    /// `IMAGO_TTL`: `Cache-Control: max-age` of results, seconds. Default one year.
    public var ttl: Int = 31_536_000
    /// `IMAGO_STRIP_METADATA`. Default `true`.
    public var stripMetadata = true
    /// `IMAGO_KEEP_COPYRIGHT`: keep EXIF `Copyright` and `Artist` when stripping metadata. Default `true`.
    public var keepCopyright = true
    /// `IMAGO_STRIP_COLOR_PROFILE`: convert to sRGB and drop the profile. Default `true`.
    public var stripColorProfile = true
    /// `IMAGO_AUTO_ROTATE`: apply the EXIF orientation. Default `true`.
    public var autoRotate = true
    /// `IMAGO_RETURN_ATTACHMENT`. Default `false`.
    public var returnAttachment = false
    /// `IMAGO_PRESETS`: `name=opt/opt,name2=opt`. A preset named `default` applies to every URL.
    public var presets: [String: [String]] = [:]
    /// `IMAGO_WORKERS`: decodes, transforms and encodes at once. Default: the cores.
    public var workers: Int = WorkQueue.defaultConcurrency
    /// `IMAGO_WORKER_AFFINITY`: `auto`, `pinned` or `none`; see ``WorkerAffinity``. Default
    /// ``WorkerAffinity/auto``: each worker on a CPU of its own when the workers match the CPUs
    /// the process may run on.
    public var workerAffinity: WorkerAffinity = .auto
    /// `IMAGO_QUEUE_SIZE`: requests that may wait beyond the workers; past
    /// `IMAGO_WORKERS + IMAGO_QUEUE_SIZE` requests in progress the answer is 429 with
    /// `Retry-After`. Default 0: no limit (as imgproxy's).
    public var queueSize: Int = 0
    /// `IMAGO_GRACEFUL_STOP_TIMEOUT`: seconds to finish in-flight requests on SIGTERM. Default 20.
    public var gracefulStopTimeout: Duration = .seconds(20)
    /// `IMAGO_MALLOC_ARENAS`: glibc malloc arenas (`M_ARENA_MAX`). Fewer arenas keep less freed
    /// memory resident; imgproxy's images use 2. Default 2; 0 leaves glibc's default (8 per core).
    ///
    /// glibc fixes the number of arenas once threads first contend, so `imago-server` sets it
    /// from the environment before its `main` runs. ``ImageServer`` sets it again at start for
    /// processes that embed the service, where it takes effect only if no thread has yet
    /// contended for the heap: such a process should set `GLIBC_TUNABLES=glibc.malloc.arena_max=2`.
    public var mallocArenas: Int = 2
    /// `IMAGO_MALLOC_MMAP_THRESHOLD`: bytes from which an allocation gets a mapping of its own,
    /// returned to the system when freed (`M_MMAP_THRESHOLD`), set by ``ImageServer`` at
    /// start. Large bitmaps and source bytes never stay resident after the load has gone.
    /// Default 512 KiB, held fixed: small bitmaps (a thumbnail, a small animation's canvas, made
    /// anew for every frame) are recycled by the heap instead of costing page faults and TLB
    /// shootdowns each time; on the benchmark machine, against 128 KiB (glibc's starting value)
    /// this raised a 320×240 GIF's throughput by a fifth for about 5 MB of peak RSS, and against
    /// 1 MiB it held PNG to WebP 10 MB lower for the same speed. 0 leaves glibc's dynamic
    /// threshold (which rises to 32 MiB, after which bitmaps stay resident in the arenas).
    public var mallocMmapThreshold: Int = 512 << 10
    /// `IMAGO_FREE_MEMORY_INTERVAL`: seconds between returns of freed heap memory to the system
    /// (`malloc_trim`); the heap is also trimmed as soon as the service goes idle. Default 10
    /// (imgproxy's); 0 turns trimming off.
    public var freeMemoryInterval: Duration = .seconds(10)
    /// `IMAGO_PLAYGROUND`: serve the playground page at `/`, to try options on a source and
    /// see the URL, the result and its size. Default `false`.
    public var playground = false
    /// `IMAGO_SERVER_TIMING`: send a `Server-Timing` header with each stage's duration (disk,
    /// download, queue, decode, transform, encode). Default `false`: it tells clients about the
    /// service's inside.
    public var serverTiming = false
    /// `IMAGO_OTEL_ENABLE`: export spans of every request's stages over OTLP (the `imago-server`
    /// executable sets the exporter up; an app embedding the service bootstraps its own tracer).
    /// Default `false`.
    public var otelEnabled = false
    /// `IMAGO_OTEL_ENDPOINT`: the OTLP/HTTP collector's base URL. Default `http://127.0.0.1:4318`.
    public var otelEndpoint = "http://127.0.0.1:4318"
    /// `IMAGO_OTEL_PROTOCOL`: `http/protobuf` (default) or `http/json`.
    public var otelProtocol = "http/protobuf"
    /// `IMAGO_OTEL_SERVICE_NAME`: the `service.name` spans carry. Default `imago-server`.
    public var otelServiceName = "imago-server"

    /// The defaults.
    public init() {}

    /// The defaults, overridden by the `IMAGO_*` variables present in `environment`.
    ///
    /// - Throws: ``ConfigurationError`` naming the variable and what is wrong with its value.
    public init(environment: [String: String]) throws(ConfigurationError) {
        self.init()
        try apply(environment)
    }

    /// Overrides settings from `IMAGO_*` variables (or flags given under the same names).
    ///
    /// - Throws: ``ConfigurationError``.
    public mutating func apply(_ environment: [String: String]) throws(ConfigurationError) {
        let env = Reader(values: environment)
        if let v = env["IMAGO_BIND"] { bind = v }
        keys = env["IMAGO_KEY"] ?? keys
        salts = env["IMAGO_SALT"] ?? salts
        signatureSize = try env.int("IMAGO_SIGNATURE_SIZE", in: 1...32) ?? signatureSize
        secret = env["IMAGO_SECRET"] ?? secret
        cacheDirectory = env["IMAGO_CACHE_DIR"] ?? cacheDirectory
        cacheSize = try env.int("IMAGO_CACHE_SIZE", in: 0...Int.max) ?? cacheSize
        localRoot = env["IMAGO_LOCAL_ROOT"] ?? localRoot
        if let v = env["IMAGO_ALLOWED_SOURCES"] { allowedSources = v.split(separator: ",").map { PathName.trimmed($0) }.filter { !$0.isEmpty } }
        allowLoopbackSources = try env.bool("IMAGO_ALLOW_LOOPBACK_SOURCES") ?? allowLoopbackSources
        allowPrivateSources = try env.bool("IMAGO_ALLOW_PRIVATE_SOURCES") ?? allowPrivateSources
        allowLinkLocalSources = try env.bool("IMAGO_ALLOW_LINK_LOCAL_SOURCES") ?? allowLinkLocalSources
        maxSourceResolution = try env.double("IMAGO_MAX_SRC_RESOLUTION") ?? maxSourceResolution
        maxSourceFileSize = try env.int("IMAGO_MAX_SRC_FILE_SIZE", in: 1...Int.max) ?? maxSourceFileSize
        maxRedirects = try env.int("IMAGO_MAX_REDIRECTS", in: 0...100) ?? maxRedirects
        downloadTimeout = try env.seconds("IMAGO_DOWNLOAD_TIMEOUT") ?? downloadTimeout
        requestTimeout = try env.seconds("IMAGO_REQUEST_TIMEOUT") ?? requestTimeout
        maxResultDimension = try env.int("IMAGO_MAX_RESULT_DIMENSION", in: 1...Int.max) ?? maxResultDimension
        allowSecurityOptions = try env.bool("IMAGO_ALLOW_SECURITY_OPTIONS") ?? allowSecurityOptions
        quality = try env.int("IMAGO_QUALITY", in: 1...100) ?? quality
        if let v = env["IMAGO_FORMAT_QUALITY"] {
            for pair in v.split(separator: ",") {
                let parts = pair.split(separator: "=").map { PathName.trimmed($0) }
                guard parts.count == 2, let format = ImageFormat(serviceExtension: parts[0]), let q = Int(parts[1]), (1...100).contains(q) else {
                    throw ConfigurationError(variable: "IMAGO_FORMAT_QUALITY", reason: "'\(pair)' is not format=quality (1-100)")
                }
                formatQuality[format] = q
            }
        }
        autoWebP = try env.bool("IMAGO_AUTO_WEBP") ?? autoWebP
        autoAVIF = try env.bool("IMAGO_AUTO_AVIF") ?? autoAVIF
        maxAnimationFrames = try env.int("IMAGO_MAX_ANIMATION_FRAMES", in: 1...100_000) ?? maxAnimationFrames
        maxAnimationPixels = try env.double("IMAGO_MAX_ANIMATION_FRAME_PIXELS") ?? maxAnimationPixels
        ttl = try env.int("IMAGO_TTL", in: 0...Int.max) ?? ttl
        stripMetadata = try env.bool("IMAGO_STRIP_METADATA") ?? stripMetadata
        keepCopyright = try env.bool("IMAGO_KEEP_COPYRIGHT") ?? keepCopyright
        stripColorProfile = try env.bool("IMAGO_STRIP_COLOR_PROFILE") ?? stripColorProfile
        autoRotate = try env.bool("IMAGO_AUTO_ROTATE") ?? autoRotate
        returnAttachment = try env.bool("IMAGO_RETURN_ATTACHMENT") ?? returnAttachment
        if let v = env["IMAGO_PRESETS"] {
            for entry in v.split(separator: ",") {
                let parts = entry.split(separator: "=", maxSplits: 1).map { PathName.trimmed($0) }
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw ConfigurationError(variable: "IMAGO_PRESETS", reason: "'\(entry)' is not name=options")
                }
                presets[parts[0]] = parts[1].split(separator: "/").map(String.init)
            }
        }
        workers = try env.int("IMAGO_WORKERS", in: 1...1024) ?? workers
        if let v = env["IMAGO_WORKER_AFFINITY"] {
            guard let affinity = WorkerAffinity(rawValue: PathName.trimmed(v).lowercased()) else {
                throw ConfigurationError(variable: "IMAGO_WORKER_AFFINITY", reason: "'\(v)' is not auto, pinned or none")
            }
            workerAffinity = affinity
        }
        queueSize = try env.int("IMAGO_QUEUE_SIZE", in: 0...1_000_000) ?? queueSize
        gracefulStopTimeout = try env.seconds("IMAGO_GRACEFUL_STOP_TIMEOUT") ?? gracefulStopTimeout
        mallocArenas = try env.int("IMAGO_MALLOC_ARENAS", in: 0...4096) ?? mallocArenas
        mallocMmapThreshold = try env.int("IMAGO_MALLOC_MMAP_THRESHOLD", in: 0...(32 << 20)) ?? mallocMmapThreshold
        if mallocMmapThreshold > 0, mallocMmapThreshold < 4096 {
            throw ConfigurationError(variable: "IMAGO_MALLOC_MMAP_THRESHOLD", reason: "'\(mallocMmapThreshold)' is not 0 or 4096-33554432")
        }
        if env["IMAGO_FREE_MEMORY_INTERVAL"] == "0" {
            freeMemoryInterval = .zero
        } else {
            freeMemoryInterval = try env.seconds("IMAGO_FREE_MEMORY_INTERVAL") ?? freeMemoryInterval
        }
        playground = try env.bool("IMAGO_PLAYGROUND") ?? playground
        serverTiming = try env.bool("IMAGO_SERVER_TIMING") ?? serverTiming
        otelEnabled = try env.bool("IMAGO_OTEL_ENABLE") ?? otelEnabled
        if let endpoint = env["IMAGO_OTEL_ENDPOINT"] {
            guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
                throw ConfigurationError(variable: "IMAGO_OTEL_ENDPOINT", reason: "'\(endpoint)' is not an http or https URL")
            }
            otelEndpoint = endpoint
        }
        if let value = env["IMAGO_OTEL_PROTOCOL"] {
            guard value == "http/protobuf" || value == "http/json" else {
                throw ConfigurationError(variable: "IMAGO_OTEL_PROTOCOL", reason: "'\(value)' is not http/protobuf or http/json")
            }
            otelProtocol = value
        }
        if let name = env["IMAGO_OTEL_SERVICE_NAME"], !name.isEmpty { otelServiceName = name }
    }

    /// The host and port of ``bind``.
    ///
    /// - Throws: ``ConfigurationError`` when it is not `host:port`.
    public func bindAddress() throws(ConfigurationError) -> (host: String, port: Int) {
        guard let colon = bind.lastIndex(of: ":"), let port = Int(bind[bind.index(after: colon)...]), (0...65535).contains(port) else {
            throw ConfigurationError(variable: "IMAGO_BIND", reason: "'\(bind)' is not host:port")
        }
        var host = String(bind[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }

    /// Every variable with its current value, for `--help` and the start-up log (keys, salts and
    /// the secret masked).
    public var summary: [(String, String)] {
        [
            ("IMAGO_BIND", bind), ("IMAGO_KEY", keys == nil ? "(none)" : "(set)"), ("IMAGO_SALT", salts == nil ? "(none)" : "(set)"),
            ("IMAGO_SIGNATURE_SIZE", "\(signatureSize)"), ("IMAGO_SECRET", secret == nil ? "(none)" : "(set)"),
            ("IMAGO_CACHE_DIR", cacheDirectory ?? "(default)"), ("IMAGO_CACHE_SIZE", "\(cacheSize)"),
            ("IMAGO_LOCAL_ROOT", localRoot ?? "(none)"), ("IMAGO_ALLOWED_SOURCES", allowedSources.isEmpty ? "(any)" : allowedSources.joined(separator: ",")),
            ("IMAGO_ALLOW_LOOPBACK_SOURCES", "\(allowLoopbackSources)"), ("IMAGO_ALLOW_PRIVATE_SOURCES", "\(allowPrivateSources)"),
            ("IMAGO_ALLOW_LINK_LOCAL_SOURCES", "\(allowLinkLocalSources)"), ("IMAGO_MAX_SRC_RESOLUTION", "\(maxSourceResolution)"),
            ("IMAGO_MAX_SRC_FILE_SIZE", "\(maxSourceFileSize)"), ("IMAGO_MAX_REDIRECTS", "\(maxRedirects)"),
            ("IMAGO_DOWNLOAD_TIMEOUT", "\(downloadTimeout)"), ("IMAGO_REQUEST_TIMEOUT", "\(requestTimeout)"),
            ("IMAGO_MAX_RESULT_DIMENSION", maxResultDimension.map(String.init) ?? "(none)"),
            ("IMAGO_ALLOW_SECURITY_OPTIONS", "\(allowSecurityOptions)"), ("IMAGO_QUALITY", "\(quality)"),
            ("IMAGO_FORMAT_QUALITY", formatQuality.isEmpty ? "(none)" : formatQuality.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: ",")),
            ("IMAGO_AUTO_WEBP", "\(autoWebP)"), ("IMAGO_AUTO_AVIF", "\(autoAVIF)"), ("IMAGO_MAX_ANIMATION_FRAMES", "\(maxAnimationFrames)"),
            ("IMAGO_MAX_ANIMATION_FRAME_PIXELS", "\(maxAnimationPixels)"),
            ("IMAGO_TTL", "\(ttl)"), ("IMAGO_STRIP_METADATA", "\(stripMetadata)"), ("IMAGO_KEEP_COPYRIGHT", "\(keepCopyright)"),
            ("IMAGO_STRIP_COLOR_PROFILE", "\(stripColorProfile)"), ("IMAGO_AUTO_ROTATE", "\(autoRotate)"),
            ("IMAGO_RETURN_ATTACHMENT", "\(returnAttachment)"), ("IMAGO_PRESETS", presets.isEmpty ? "(none)" : presets.keys.sorted().joined(separator: ",")),
            ("IMAGO_WORKERS", "\(workers)"), ("IMAGO_WORKER_AFFINITY", workerAffinity.rawValue),
            ("IMAGO_QUEUE_SIZE", queueSize == 0 ? "(no limit)" : "\(queueSize)"),
            ("IMAGO_GRACEFUL_STOP_TIMEOUT", "\(gracefulStopTimeout)"),
            ("IMAGO_MALLOC_ARENAS", mallocArenas == 0 ? "(glibc default)" : "\(mallocArenas)"),
            ("IMAGO_MALLOC_MMAP_THRESHOLD", mallocMmapThreshold == 0 ? "(glibc default)" : "\(mallocMmapThreshold)"),
            ("IMAGO_FREE_MEMORY_INTERVAL", freeMemoryInterval == .zero ? "(off)" : "\(freeMemoryInterval)"),
            ("IMAGO_PLAYGROUND", "\(playground)"), ("IMAGO_SERVER_TIMING", "\(serverTiming)"),
            ("IMAGO_OTEL_ENABLE", "\(otelEnabled)"), ("IMAGO_OTEL_ENDPOINT", otelEndpoint), ("IMAGO_OTEL_PROTOCOL", otelProtocol),
            ("IMAGO_OTEL_SERVICE_NAME", otelServiceName)
        ]
    }
}

extension ServerConfiguration {
    /// What each variable means, in ``summary``'s order: for `imago-server --help`.
    public static let meanings: [String: String] = [
        "IMAGO_BIND": "host:port to listen on",
        "IMAGO_KEY": "hex signing keys, comma-separated; none: URLs are not signed",
        "IMAGO_SALT": "hex salts, one per key",
        "IMAGO_SIGNATURE_SIZE": "bytes of the HMAC-SHA256 kept in signatures, 1-32",
        "IMAGO_SECRET": "require Authorization: Bearer <secret>",
        "IMAGO_CACHE_DIR": "where source bytes are cached ($XDG_CACHE_HOME/imago by default), namespace 'sources'",
        "IMAGO_CACHE_SIZE": "bytes of sources kept on disk; 0 disables the source cache",
        "IMAGO_LOCAL_ROOT": "folder local:///path sources are read from; none: local sources refused",
        "IMAGO_ALLOWED_SOURCES": "comma-separated URL prefixes, * matching within a host or path segment",
        "IMAGO_ALLOW_LOOPBACK_SOURCES": "let sources resolve to 127.0.0.0/8 and ::1",
        "IMAGO_ALLOW_PRIVATE_SOURCES": "let sources resolve to RFC 1918, 100.64/10 and fc00::/7 addresses",
        "IMAGO_ALLOW_LINK_LOCAL_SOURCES": "let sources resolve to 169.254/16 and fe80::/10 (cloud metadata)",
        "IMAGO_MAX_SRC_RESOLUTION": "megapixels of a source",
        "IMAGO_MAX_SRC_FILE_SIZE": "bytes of a source (Content-Length and streamed length)",
        "IMAGO_MAX_REDIRECTS": "redirects followed per source",
        "IMAGO_DOWNLOAD_TIMEOUT": "seconds for a source download",
        "IMAGO_REQUEST_TIMEOUT": "seconds for a whole request (503 past it)",
        "IMAGO_MAX_RESULT_DIMENSION": "pixels on a result's longer side",
        "IMAGO_ALLOW_SECURITY_OPTIONS": "let URLs override the source limits",
        "IMAGO_QUALITY": "lossy quality, 1-100",
        "IMAGO_FORMAT_QUALITY": "quality per format, e.g. webp=79,avif=63",
        "IMAGO_AUTO_WEBP": "answer WebP to clients whose Accept names image/webp",
        "IMAGO_AUTO_AVIF": "answer AVIF to clients whose Accept names image/avif",
        "IMAGO_MAX_ANIMATION_FRAMES": "frames of an animated source",
        "IMAGO_MAX_ANIMATION_FRAME_PIXELS": "megapixels summed over an animation's frames",
        "IMAGO_TTL": "Cache-Control max-age of results, seconds",
        "IMAGO_STRIP_METADATA": "drop EXIF from results",
        "IMAGO_KEEP_COPYRIGHT": "keep EXIF Copyright and Artist when stripping",
        "IMAGO_STRIP_COLOR_PROFILE": "convert to sRGB and drop ICC profiles",
        "IMAGO_AUTO_ROTATE": "apply EXIF orientation",
        "IMAGO_RETURN_ATTACHMENT": "Content-Disposition: attachment",
        "IMAGO_PRESETS": "name=opt/opt,... ('default' applies to every URL)",
        "IMAGO_WORKERS": "decodes, transforms and encodes at once",
        "IMAGO_WORKER_AFFINITY": "auto: a CPU per worker when they match the CPUs allowed; pinned: always; none: never",
        "IMAGO_QUEUE_SIZE": "requests waiting beyond the workers before 429 (0: no limit)",
        "IMAGO_GRACEFUL_STOP_TIMEOUT": "seconds to finish in-flight requests on SIGTERM/SIGINT",
        "IMAGO_MALLOC_ARENAS": "glibc malloc arenas (M_ARENA_MAX); 0: glibc's default",
        "IMAGO_MALLOC_MMAP_THRESHOLD": "bytes from which allocations are mapped apart and unmapped when freed; 0: glibc's default",
        "IMAGO_FREE_MEMORY_INTERVAL": "seconds between malloc_trim calls (also when idle); 0: never",
        "IMAGO_PLAYGROUND": "serve the playground page at /",
        "IMAGO_SERVER_TIMING": "send Server-Timing with each stage's duration",
        "IMAGO_OTEL_ENABLE": "export spans of each request's stages over OTLP/HTTP",
        "IMAGO_OTEL_ENDPOINT": "the OTLP/HTTP collector's base URL",
        "IMAGO_OTEL_PROTOCOL": "http/protobuf or http/json",
        "IMAGO_OTEL_SERVICE_NAME": "the service.name spans carry"
    ]
}

/// A configuration value that cannot be used: which variable, and why.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The variable (`IMAGO_…`) whose value is unusable.
    public var variable: String
    /// What is wrong with it.
    public var reason: String

    /// Creates an error for `variable`.
    public init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    public var description: String { "\(variable): \(reason)" }
}

/// Typed reads of environment values.
private struct Reader {
    let values: [String: String]

    subscript(_ name: String) -> String? {
        values[name].map { PathName.trimmed($0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    func bool(_ name: String) throws(ConfigurationError) -> Bool? {
        guard let v = self[name] else { return nil }
        switch v.lowercased() {
        case "1", "t", "true", "yes", "on": return true
        case "0", "f", "false", "no", "off": return false
        default: throw ConfigurationError(variable: name, reason: "'\(v)' is not true or false")
        }
    }

    func int(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let v = self[name] else { return nil }
        guard let n = Int(v), range.contains(n) else { throw ConfigurationError(variable: name, reason: "'\(v)' is not an integer in \(range)") }
        return n
    }

    func double(_ name: String) throws(ConfigurationError) -> Double? {
        guard let v = self[name] else { return nil }
        guard let d = Double(v), d.isFinite, d > 0 else { throw ConfigurationError(variable: name, reason: "'\(v)' is not a positive number") }
        return d
    }

    func seconds(_ name: String) throws(ConfigurationError) -> Duration? {
        try double(name).map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }
}
