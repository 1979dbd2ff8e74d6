// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import AsyncHTTPClient
import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// The service under load: clients that leave, the heap between bursts, shared decodes.
@Suite("Service under load: clients leaving, heap trimming, shared decodes", .serialized)
struct ServiceLoadTests {
    /// Holds the only worker until released, off the cooperative pool.
    final class Blocker: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        func release() { semaphore.signal() }
    }

    @Test("a client that goes away cancels its queued work: dropped unrun, answered 499 in the metrics")
    func clientGone() async throws {
        try await ServiceHarness.with({ $0.workers = 1 }) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 300, height: 200))
            let blocker = Blocker()
            let held = Task { try await h.service.workers.run { blocker.semaphore.wait() } }
            try await eventually { h.service.workers.counts.running == 1 }

            let clients = (0..<3).map { i in
                Task { try await h.get(h.plain("w:\(50 + i)", "/img/a.png")) }
            }
            // As many as there are render slots in the pipeline (the worker and one more) wait for
            // the worker holding their source's bytes; the other waits for a slot holding nothing.
            func waiting() -> Int { h.service.workers.counts.waiting + h.service.manager.renderCounts.waiting }
            try await eventually { waiting() == 3 }
            #expect(h.service.manager.renderCounts.holding == 2)
            #expect(h.service.workers.counts.waiting == 2 && h.service.manager.renderCounts.waiting == 1)
            for c in clients { c.cancel() }  // the client closes its connection
            try await eventually { waiting() == 0 && h.service.admitted.count == 0 }
            #expect(h.service.workers.counts.running == 1, "the worker is still held: the queued work was dropped, not run")
            for c in clients { #expect((try? await c.value) == nil) }

            blocker.release()
            try await held.value
            let after = try await h.get(h.plain("w:40", "/img/a.png"))
            let width = try after.image().pixelSize.width
            #expect(after.status == 200 && width == 40)
            try await eventually { h.service.metrics.render().contains("imago_http_requests_total{status=\"499\"} 3") }
            #expect(h.service.connections.count <= 2, "closed connections are forgotten")
        }
    }

    @Test("a client that goes away during its source's download stops the download")
    func clientGoneDuringDownload() async throws {
        try await ServiceHarness.with { h in
            let client = Task { try await h.get(h.plain("w:10", "/nohead")) }
            try await eventually { h.origin.count("/nohead") == 1 && h.service.admitted.count == 1 }
            client.cancel()
            try await eventually { h.service.admitted.count == 0 }
            // Counted by the metrics middleware as the cancelled handler unwinds, just after it is let go.
            try await eventually { h.service.metrics.render().contains("imago_http_requests_total{status=\"499\"} 1") }
        }
    }

    @Test("the heap is trimmed once the service goes idle; the resident size is a metric")
    func heapTrim() async throws {
        try await ServiceHarness.with(trimInterval: .seconds(3600)) { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 200, height: 200))
            #expect(try await h.get(h.plain("w:20", "/img/a.png")).status == 200)
            func value(_ name: String, in text: String) -> Double {
                let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                return line.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
            }
            try await eventually { value("imago_heap_trims_total", in: h.service.metrics.render()) >= 1 }
            let text = h.service.metrics.render()
            #expect(value("process_resident_memory_bytes", in: text) > 1_000_000, "\(text)")
        }
    }

    @Test("JPEG hints round to the decoder's reduction, so requests of nearby sizes ask for one decode")
    func reductionHints() {
        let source = PixelSize(width: 4032, height: 3024)
        for w in [200, 300, 399, 504] {
            #expect(ServiceGeometry.reductionHint(PixelSize(width: w, height: w * 3 / 4), source: source) == PixelSize(width: 504, height: 378))
        }
        #expect(ServiceGeometry.reductionHint(PixelSize(width: 505, height: 300), source: source) == PixelSize(width: 1008, height: 756))
        #expect(ServiceGeometry.reductionHint(PixelSize(width: 2017, height: 10), source: source) == nil)
        // Odd sizes round up, as libjpeg's scaled output does.
        #expect(
            ServiceGeometry.reductionHint(PixelSize(width: 10, height: 10), source: PixelSize(width: 4001, height: 3001))
                == PixelSize(width: 501, height: 376))
    }
}
