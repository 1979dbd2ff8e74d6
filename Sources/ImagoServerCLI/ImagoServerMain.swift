// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import CImagoServerStart
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCommandLine
import ImagoServer
import ImagoServiceURL
import Logging
import Metrics
#if OTLP
import OTel
#endif
import Prometheus
import ServiceLifecycle
import Tracing

/// The `imago-server` executable (and `imago serve`, `imago sign`, which hand over to it).
@main
struct ImagoServerMain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imago-server",
        abstract: "The Imago image service: imgproxy-compatible URLs, signed, SSRF-safe.",
        discussion: """
            `imago-server` alone serves; `imago-server serve --help` shows the flags. Settings \
            are environment variables (default):
            \(ServeCommand.variableTable)
            """,
        subcommands: [ServeCommand.self, SignCommand.self, CacheCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images (the default command).",
        discussion: """
            Every setting is an environment variable; the flags below override them, and \
            --set NAME=VALUE sets any variable. Stop with SIGTERM or SIGINT: in-flight requests \
            finish within IMAGO_GRACEFUL_STOP_TIMEOUT.

            Variables (default):
            \(ServeCommand.variableTable)
            """
    )

    static var variableTable: String {
        ServerConfiguration().summary.map { name, value in
            "  \(name) (\(value)): \(ServerConfiguration.meanings[name] ?? "")"
        }.joined(separator: "\n")
    }

    @Option(help: "host:port to listen on (IMAGO_BIND).")
    var bind: String?
    @Option(help: "Megapixels of a source (IMAGO_MAX_SRC_RESOLUTION).")
    var maxSrcResolution: String?
    @Option(help: "Bytes of a source (IMAGO_MAX_SRC_FILE_SIZE).")
    var maxSrcFileSize: String?
    @Option(help: "Redirects followed (IMAGO_MAX_REDIRECTS).")
    var maxRedirects: String?
    @Option(help: "Seconds for a source download (IMAGO_DOWNLOAD_TIMEOUT).")
    var downloadTimeout: String?
    @Option(help: "Seconds for a whole request (IMAGO_REQUEST_TIMEOUT).")
    var requestTimeout: String?
    @Option(help: "Pixels on a result's longer side (IMAGO_MAX_RESULT_DIMENSION).")
    var maxResultDimension: String?
    @Option(name: .customLong("set"), help: ArgumentHelp("Any variable, as NAME=VALUE (repeatable).", valueName: "NAME=VALUE"))
    var settings: [String] = []
    @Option(help: "trace, debug, info, notice, warning, error or critical (IMAGO_LOG_LEVEL). Default info.")
    var logLevel: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var flags: [String: String] = [:]
        for item in settings {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].hasPrefix("IMAGO_") else { throw ValidationError("--set takes IMAGO_NAME=VALUE, not '\(item)'") }
            flags[parts[0]] = parts[1]
        }
        let named: [(String, String?)] = [
            ("IMAGO_BIND", bind), ("IMAGO_MAX_SRC_RESOLUTION", maxSrcResolution),
            ("IMAGO_MAX_SRC_FILE_SIZE", maxSrcFileSize), ("IMAGO_MAX_REDIRECTS", maxRedirects),
            ("IMAGO_DOWNLOAD_TIMEOUT", downloadTimeout), ("IMAGO_REQUEST_TIMEOUT", requestTimeout),
            ("IMAGO_MAX_RESULT_DIMENSION", maxResultDimension)
        ]
        for case let (name, value?) in named { flags[name] = value }
        var configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(environment: environment)
            try configuration.apply(flags)
        } catch {
            throw ValidationError("\(error)")
        }
        let imgproxyLevel = environment["IMGPROXY_LOG_LEVEL"].map { ["warn": "warning", "fatal": "critical"][$0.lowercased()] ?? $0 }
        let levelName = logLevel ?? environment["IMAGO_LOG_LEVEL"] ?? imgproxyLevel ?? "info"
        guard let level = Logger.Level(rawValue: levelName.lowercased()) else { throw ValidationError("unknown log level '\(levelName)'") }
        let json = configuration.logFormat == "json"
        LoggingSystem.bootstrap { label in
            if json {
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        // The library's own metrics (downloads) go to the registry /metrics serves.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "imago.server")
        // What concerns the whole process is decided here, not in the library: glibc's arenas and
        // mapping threshold, the workers' CPUs, and returning freed memory.
        // The arena cap takes full effect only when the start-up hook set it before any thread existed.
        let arenas = imago_server_start_arenas()
        if configuration.mallocArenas > 0 { ProcessHeap.limitArenas(configuration.mallocArenas) }
        if configuration.mallocMmapThreshold > 0 { ProcessHeap.mapLargeAllocations(from: configuration.mallocMmapThreshold) }
        // As Go's runtime does for imgproxy: the connection cap is taken from this limit.
        ProcessLimits.raiseOpenFiles()
        let pinning = WorkerPinning.plan(configuration.workerAffinity, workers: configuration.workers, allowed: WorkerPinning.allowedCPUs)
        let service: ImageService
        do {
            service = try ImageService(
                configuration: configuration, logger: logger, metricsRegistry: registry,
                laneHooks: pinning?.laneHooks)
        } catch {
            throw ValidationError("\(error)")
        }
        for (name, value) in configuration.summary { logger.debug("\(name)=\(value)") }
        for warning in configuration.warnings { logger.warning("\(warning)") }
        logger.debug("malloc arenas capped before start: \(arenas > 0 ? String(arenas) : arenas == 0 ? "no" : "not glibc")")
        let placement = pinning.map { "pinned to CPUs \($0.description)" } ?? "not pinned"
        logger.info("\(configuration.workers) workers, \(placement)")
        var services: [any Service] = [HeapTrimmer(service: service, interval: configuration.freeMemoryInterval)]
        if configuration.otelEnabled {
            services.append(try Self.bootstrapTracing(configuration))
            logger.info("spans exported over OTLP to \(configuration.otelEndpoint) (\(configuration.otelProtocol))")
        }
        try await ImageServer(service: service, logger: logger).run(services: services)
    }

    /// Makes swift-otel's OTLP/HTTP span exporter the process's tracer (W3C trace context
    /// propagation, batched export; the `OTEL_*` variables of the OpenTelemetry specification
    /// still tune it) and returns the service that exports, to run beside the server.
    ///
    /// - Throws: `ValidationError` when this binary was built without the `OTLP` trait.
    static func bootstrapTracing(_ configuration: ServerConfiguration) throws -> any Service {
        #if OTLP
        var otel = OTel.Configuration.default
        otel.serviceName = configuration.otelServiceName
        otel.logs.enabled = false
        otel.metrics.enabled = false
        otel.traces.exporter = .otlp
        let base = configuration.otelEndpoint.hasSuffix("/") ? String(configuration.otelEndpoint.dropLast()) : configuration.otelEndpoint
        otel.traces.otlpExporter.endpoint = base.hasSuffix("/v1/traces") ? base : base + "/v1/traces"
        otel.traces.otlpExporter.protocol = configuration.otelProtocol == "http/json" ? .httpJSON : .httpProtobuf
        let (tracer, exporter) = try OTel.makeTracingBackend(configuration: otel)
        InstrumentationSystem.bootstrap(tracer)
        return exporter
        #else
        throw ValidationError(
            "IMAGO_OTEL_ENABLE is set, but this imago-server was built without OTLP export: "
                + "build it with `swift build -c release --product imago-server --traits OTLP`")
        #endif
    }
}

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a service path: prints /SIGNATURE/PATH.",
        discussion: "PATH is what follows the signature segment, for example /rs:fit:300:300/plain/https://example.com/a.jpg"
    )

    @Option(help: "The hex key (IMAGO_KEY's first key by default).")
    var key: String?
    @Option(help: "The hex salt (IMAGO_SALT's first salt by default).")
    var salt: String?
    @Option(help: "Bytes of the digest kept, 1-32 (IMAGO_SIGNATURE_SIZE, default 32).")
    var size: Int?
    @Argument(help: "The path to sign.")
    var path: String

    func run() throws {
        let env = ProcessInfo.processInfo.environment
        let keyList = key ?? env["IMAGO_KEY"].flatMap { $0.split(separator: ",").first.map(String.init) }
        let saltList = salt ?? env["IMAGO_SALT"].flatMap { $0.split(separator: ",").first.map(String.init) }
        guard let keyList, let saltList else { throw ValidationError("give --key and --salt (or set IMAGO_KEY and IMAGO_SALT)") }
        let signatureSize = size ?? env["IMAGO_SIGNATURE_SIZE"].flatMap { Int($0) } ?? 32
        do {
            let signer = try URLSigner(keyList: keyList, saltList: saltList, signatureSize: signatureSize)
            let normalized = path.hasPrefix("/") ? path : "/" + path
            print("/" + signer.signature(for: normalized) + normalized)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
