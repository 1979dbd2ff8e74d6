// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Test helper for the tracing test, and what an app does to export Imago's spans: it makes
// swift-otel's OTLP/HTTP (JSON) exporter the process's tracer, loads URL through an
// ImageManager (a 64-px thumbnail encoded as JPEG) inside a span named "probe", prints the
// load's Server-Timing value, and stops the exporter, which sends the spans to ENDPOINT.
// Usage: ImagoTracingProbe ENDPOINT URL
import Foundation
import ImagoCore
import ImagoLoading
import Logging
import ServiceLifecycle
import Tracing

#if OTLP
import OTel
#endif

let args = CommandLine.arguments
guard args.count == 3, let url = URL(string: args[2]) else {
    FileHandle.standardError.write(Data("usage: ImagoTracingProbe ENDPOINT URL\n".utf8))
    exit(2)
}
#if OTLP
do {
    var configuration = OTel.Configuration.default
    configuration.serviceName = "imago-tracing-probe"
    configuration.logs.enabled = false
    configuration.metrics.enabled = false
    configuration.traces.exporter = .otlp
    configuration.traces.otlpExporter.endpoint = args[1] + "/v1/traces"
    configuration.traces.otlpExporter.protocol = .httpJSON
    let (tracer, exporter) = try OTel.makeTracingBackend(configuration: configuration)
    InstrumentationSystem.bootstrap(tracer)
    let group = ServiceGroup(services: [exporter], gracefulShutdownSignals: [], logger: Logger(label: "imago.tracing-probe"))
    let running = Task { try await group.run() }

    var request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: PixelSize(width: 64, height: 64)))
    request.output = ImageRequest.Output(format: .jpeg, quality: 0.8)
    let manager = ImageManager(configuration: ImageManager.Configuration(memoryCache: nil))
    let result = try await withSpan("probe") { _ in try await manager.loadEncodedImage(with: request) }
    print(result.timings.serverTimingValue)

    await group.triggerGracefulShutdown()
    try await running.value
} catch {
    FileHandle.standardError.write(Data("probe failed: \(error)\n".utf8))
    exit(1)
}
#else
FileHandle.standardError.write(Data("built without the OTLP trait: nothing to export with\n".utf8))
exit(3)
#endif
