// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import Hummingbird
import ImagoServer
import InMemoryTracing
import Logging
import NIOCore
import Synchronization
import Testing
import Tracing

/// A request context that needs no channel, for calling a middleware directly.
private struct LoggerSource: RequestContextSource {
    var logger: Logger
}

private struct PlainContext: RequestContext {
    typealias Source = LoggerSource
    var coreContext: CoreRequestContextStorage
    init(source: LoggerSource) { coreContext = .init(source: source) }
}

/// What a response body wrote, once finished.
private final class Written: Sendable {
    let bytes = Mutex<[UInt8]?>(nil)
}

/// Collects a response body as it is written.
private struct Collector: ResponseBodyWriter {
    var bytes: [UInt8] = []
    let into: Written
    mutating func write(_ buffer: ByteBuffer) async throws { bytes += buffer.readableBytesView }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        let bytes = self.bytes
        into.bytes.withLock { $0 = bytes }
    }
}

@Suite("ServiceTracingMiddleware: a server span while a tracer is active, nothing otherwise")
struct ServiceTracingMiddlewareTests {
    private func respond() async throws -> Response {
        let request = Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/_/w:100/plain/local:///a.jpg"),
            body: RequestBody(buffer: ByteBuffer()))
        let context = PlainContext(source: LoggerSource(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })))
        return try await ServiceTracingMiddleware<PlainContext>().handle(request, context: context) { _, _ in
            Response(status: .ok, headers: [.contentType: "image/jpeg"], body: ResponseBody(byteBuffer: ByteBuffer(string: "pixels")))
        }
    }

    @Test("with a tracer bound, the request gets one server span that ends after its body is written, with the status")
    func spanWithTracer() async throws {
        let tracer = InMemoryTracer()
        let response = try await withTracer(tracer) { try await respond() }
        #expect(response.status == .ok)
        #expect(tracer.finishedSpans.isEmpty, "the span lasts until the body is written")
        #expect(tracer.activeSpans.map(\.kind) == [.server])
        let written = Written()
        try await response.body.write(Collector(into: written))
        #expect(written.bytes.withLock { $0 } == Array("pixels".utf8))
        let spans = tracer.finishedSpans
        #expect(spans.count == 1)
        #expect(spans.first?.kind == .server)
        #expect(spans.first?.attributes["http.response.status_code"]?.toSpanAttribute() == 200.toSpanAttribute())
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test("without a tracer, the handler's response is returned as it is and no span is started")
    func noSpanWithoutTracer() async throws {
        let tracer = InMemoryTracer()
        let response = try await respond()
        #expect(response.status == .ok)
        #expect(response.body.contentLength == 6)
        #expect(tracer.activeSpans.isEmpty && tracer.finishedSpans.isEmpty)
        let written = Written()
        try await response.body.write(Collector(into: written))
        #expect(written.bytes.withLock { $0 } == Array("pixels".utf8))
        #expect(InstrumentationSystem.tracer is NoOpTracer, "this test process bootstraps no tracer")
    }
}
