// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import Hummingbird
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Logging
import Synchronization
import Testing

/// Whether imago-server and the probe were built with the `OTLP` trait (swift-otel linked).
#if OTLP
let otlpExportBuilt = true
#else
let otlpExportBuilt = false
#endif

/// A loopback OTLP/HTTP receiver: every `POST /v1/traces` (OTLP JSON) is kept, spans listed.
final class OTLPReceiver: Sendable {
    struct Span: Sendable, Hashable {
        var name: String
        var traceID: String
        var spanID: String
        var parentID: String
    }

    private let received = Mutex<[Span]>([])
    private let portBox = Mutex<Int?>(nil)
    private let task = Mutex<Task<Void, any Error>?>(nil)

    var spans: [Span] { received.withLock { $0 } }
    var port: Int? { portBox.withLock { $0 } }

    /// Starts the receiver on a loopback port.
    static func start() async throws -> OTLPReceiver {
        let receiver = OTLPReceiver()
        let router = Router()
        router.post("v1/traces") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 16 << 20)
            receiver.keep(Data(body.readableBytesView))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: "{}")))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in receiver.portBox.withLock { $0 = channel.localAddress?.port } },
            logger: Logger(label: "otlp-receiver", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await app.runService(gracefulShutdownSignals: []) }
        receiver.task.withLock { $0 = running }
        try await eventually { receiver.port != nil }
        return receiver
    }

    func stop() { task.withLock { $0?.cancel() } }

    /// An id as lowercase hex: OTLP's JSON encoding writes hex, protobuf's JSON mapping base64.
    static func hex(_ id: String) -> String {
        if id.count % 2 == 0, id.allSatisfy(\.isHexDigit) { return id.lowercased() }
        guard let bytes = Data(base64Encoded: id) else { return id }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Parses an ExportTraceServiceRequest in JSON.
    private func keep(_ json: Data) {
        guard let root = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return }
        var found: [Span] = []
        for resource in root["resourceSpans"] as? [[String: Any]] ?? [] {
            for scope in resource["scopeSpans"] as? [[String: Any]] ?? [] {
                for span in scope["spans"] as? [[String: Any]] ?? [] {
                    found.append(
                        Span(
                            name: span["name"] as? String ?? "", traceID: Self.hex(span["traceId"] as? String ?? ""),
                            spanID: Self.hex(span["spanId"] as? String ?? ""),
                            parentID: Self.hex(span["parentSpanId"] as? String ?? "")))
                }
            }
        }
        received.withLock { $0 += found }
    }
}

/// Spans of a service request and of a library load reach a collector over OTLP; stage
/// durations reach clients in `Server-Timing` and callers in their results. The export needs
/// the package's `OTLP` trait, which `make test` builds with.
@Suite("Tracing: spans over OTLP, Server-Timing, per-load timings", .serialized, .enabled(if: otlpExportBuilt))
struct TracingTests {
    @Test("imago-server with IMAGO_OTEL_*: a request's spans continue the caller's traceparent and arrive over OTLP; Server-Timing names the stages")
    func serverSpans() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        let origin = try await TestHTTPServer.start()
        let cache = try TestFiles.temporaryDirectory("imago-tracing")
        defer { try? FileManager.default.removeItem(at: cache) }
        origin.register("a.png", data: try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.noisy(width: 300, height: 200)), as: .png))
        let child = try ServerProcessTests.Child(
            arguments: ["--bind", "127.0.0.1:0"],
            environment: [
                "IMAGO_ALLOW_LOOPBACK_SOURCES": "1", "IMAGO_CACHE_DIR": cache.path, "IMAGO_SERVER_TIMING": "1",
                "IMAGO_OTEL_ENABLE": "1", "IMAGO_OTEL_ENDPOINT": "http://127.0.0.1:\(receiver.port ?? 0)",
                "IMAGO_OTEL_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "100"
            ])
        // A failing expectation must not leave the child serving after the test.
        defer { if child.process.isRunning { child.process.terminate() } }
        let port = try await child.port()
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let answer: (status: UInt, timing: String)
        do {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/_/rs:fit:100:100/plain/http://127.0.0.1:\(origin.port)/img/a.png")
            request.headers.add(name: "traceparent", value: "00-\(traceID)-00f067aa0ba902b7-01")
            let response = try await client.execute(request, timeout: .seconds(120))
            _ = try await response.body.collect(upTo: 1 << 24)
            answer = (response.status.code, response.headers.first(name: "Server-Timing") ?? "")
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            throw error
        }
        #expect(answer.status == 200)
        for stage in ["download", "decode", "encode"] { #expect(answer.timing.contains("\(stage);dur="), "\(answer.timing)") }

        // The server span ends last, after the answer: it may come in a later batch than the stages'.
        try await eventually {
            let spans = receiver.spans.filter { $0.traceID == traceID }
            let names = Set(spans.map(\.name))
            return ["imago.fetch", "imago.download", "imago.decode", "imago.encode", "imago.load"].allSatisfy(names.contains)
                && spans.contains { $0.parentID == "00f067aa0ba902b7" }
        }
        let spans = receiver.spans.filter { $0.traceID == traceID }
        // The server span continues the caller's span; the stages hang below it.
        let server = try #require(spans.first { $0.parentID == "00f067aa0ba902b7" }, "\(spans)")
        #expect(server.name == "/**", "Hummingbird names the server span after the route: \(server.name)")
        let ids = Set(spans.map(\.spanID))
        #expect(spans.filter { $0.spanID != server.spanID }.allSatisfy { ids.contains($0.parentID) }, "\(spans)")
        child.process.terminate()
        #expect(await child.exitStatus() == 0)
        await origin.stop()
    }

    @Test("a library load's spans arrive over OTLP under the caller's span; its result carries the stage timings")
    func librarySpans() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        let origin = try await TestHTTPServer.start()
        origin.register("b.png", data: try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.noisy(width: 320, height: 240)), as: .png))
        let (status, out, err) = try await Subprocess.run(
            TestFiles.builtProduct("ImagoTracingProbe"),
            ["http://127.0.0.1:\(receiver.port ?? 0)", origin.url("/img/b.png").absoluteString],
            environment: [:])
        #expect(status == 0, "\(err)")
        #expect(out.contains("download;dur=") && out.contains("decode;dur=") && out.contains("encode;dur="), "\(out)")
        try await eventually { receiver.spans.contains { $0.name == "probe" } && receiver.spans.contains { $0.name == "imago.encode" } }
        let probe = try #require(receiver.spans.first { $0.name == "probe" })
        let trace = receiver.spans.filter { $0.traceID == probe.traceID }
        let names = Set(trace.map(\.name))
        for name in ["imago.load", "imago.fetch", "imago.download", "imago.decode", "imago.encode"] {
            #expect(names.contains(name), "\(name) in \(names)")
        }
        #expect(trace.first { $0.name == "imago.load" }?.parentID == probe.spanID)
        await origin.stop()
    }
}
