// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoCoders
import ImagoCommandLine
import ImagoServer
import ImagoServiceURL
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Tracing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if OTLP
import OTel
#endif

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
        subcommands: [ServeCommand.self, SignCommand.self, CacheCommand.self, SettingsCommand.self, HealthCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// A decoder worker (`imago-server --imago-decoder-worker`, started by the service itself)
    /// runs and exits before anything else starts; any other start parses the command line.
    static func main() async {
        ProcessStart.prepare()
        DecoderWorker.runIfRequested()
        await main(nil)
    }
}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve images (the default command).",
        discussion: """
            Every setting is an environment variable, and a flag of the same name overrides it \
            (IMAGO_MAX_SRC_RESOLUTION=20 is --max-src-resolution 20); --set NAME=VALUE sets any \
            too. Stop with SIGTERM or SIGINT: in-flight requests finish within \
            IMAGO_GRACEFUL_STOP_TIMEOUT.

            Settings, their flags and defaults:
            \(ServeCommand.variableTable)
            """
    )

    /// Every setting's line for `--help`, the service's and the process's.
    static var variableTable: String { SettingsTable.help(SettingsCommand.rows) }

    @Option(name: .customLong("set"), help: ArgumentHelp("Any variable, as NAME=VALUE (repeatable).", valueName: "NAME=VALUE"))
    var settings: [String] = []
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("A setting as a flag: --NAME VALUE or --NAME=VALUE (listed below).", valueName: "--setting value"))
    var flags: [String] = []

    func run() async throws {
        let (configuration, process) = try Self.settings(
            environment: ProcessInfo.processInfo.environment, flags: try SettingFlags.parse(set: settings, flags: flags))
        let level = configuration.logLevel
        let json = configuration.logFormat == "json"
        // Every line written while a request is served, the library's included, carries its id.
        LoggingSystem.bootstrap(
            { label, provider in
                if json {
                    var handler = JSONLogHandler(label: label, metadataProvider: provider)
                    handler.logLevel = level
                    return handler
                }
                var handler = StreamLogHandler.standardError(label: label, metadataProvider: provider)
                handler.logLevel = level
                return handler
            }, metadataProvider: ServiceRequestScope.metadataProvider)
        // The library's own metrics (downloads) go to the registry /metrics serves.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "imago.server")
        let pinning = process.tune(workers: configuration.workers, logger: logger)
        let service: ImageService
        do {
            service = try ImageService(configuration: configuration, logger: logger, metricsRegistry: registry, laneHooks: pinning?.laneHooks)
        } catch {
            throw ValidationError("\(error)")
        }
        for (name, value) in configuration.summary { logger.debug("\(name)=\(value)") }
        for setting in ProcessSettings.settings { logger.debug("\(setting.name)=\(setting.show(process))") }
        for warning in configuration.warnings { logger.warning("\(warning)") }
        var services: [any Service] = [HeapTrimmer(service: service, interval: process.freeMemoryInterval)]
        if configuration.otelEnabled {
            services.append(try Self.bootstrapTracing(configuration))
            logger.info("spans exported over OTLP to \(configuration.otelEndpoint) (\(configuration.otelProtocol))")
        }
        try await ImageServer(service: service, logger: logger).run(services: services)
    }

    /// The service's and the process's settings from `environment` with `flags` over it
    /// (imgproxy's names read where Imago has them).
    ///
    /// - Throws: `ValidationError` naming the variable.
    static func settings(environment: [String: String], flags: [String: String]) throws -> (ServerConfiguration, ProcessSettings) {
        do {
            let (migrated, warnings) = try ServerConfiguration.migrate(environment.merging(flags) { $1 }, alsoKnown: ProcessSettings.names)
            var configuration = ServerConfiguration()
            try configuration.apply(migrated)
            configuration.warnings = warnings
            return (configuration, try ProcessSettings(environment: migrated))
        } catch {
            throw ValidationError("\(error)")
        }
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
        let names: Set = ["IMAGO_KEY", "IMAGO_SALT", "IMAGO_SIGNATURE_SIZE"]
        let settings: URLSettings
        do {
            settings = try ServerConfiguration.reading(names, from: ProcessInfo.processInfo.environment).urls
        } catch {
            throw ValidationError("\(error)")
        }
        let keyList = key ?? settings.keys.flatMap { $0.split(separator: ",").first.map(String.init) }
        let saltList = salt ?? settings.salts.flatMap { $0.split(separator: ",").first.map(String.init) }
        guard let keyList, let saltList else { throw ValidationError("give --key and --salt (or set IMAGO_KEY and IMAGO_SALT)") }
        let signatureSize = size ?? settings.signatureSize
        do {
            let signer = try URLSigner(keyList: keyList, saltList: saltList, signatureSize: signatureSize)
            let normalized = path.hasPrefix("/") ? path : "/" + path
            print("/" + signer.signature(for: normalized) + normalized)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
