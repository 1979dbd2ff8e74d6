// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
public import Prometheus
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The service's Prometheus metrics, in a registry of its own so that several services in one
/// process (tests, an app mounting two) keep separate counts. ``ImageServer`` also points
/// swift-metrics at this registry, so the library's own metrics (downloads) appear beside them.
///
/// | metric | kind |
/// |---|---|
/// | `imago_http_requests_total{status}` | counter |
/// | `imago_http_request_duration_seconds` | histogram |
/// | `imago_http_requests_in_progress` | gauge |
/// | `imago_processing_queue_depth`, `imago_processing_workers_busy` | gauges, read at scrape time |
/// | `imago_source_bytes_total` | counter: bytes downloaded from sources |
/// | `imago_source_cache_hits_total`, `imago_source_cache_misses_total` | counters |
/// | `imago_heap_trims_total` | counter: heap memory returned to the system (`malloc_trim`) |
/// | `imago_shared_result_hits_total`, `imago_shared_source_hits_total` | counters: results and sources another instance stored (`IMAGO_RESULT_STORAGE`) |
/// | `imago_shared_uploads_in_flight` | gauge: uploads to the shared store under way |
/// | `imago_decodes_reused_total` | counter: decodes served by a kept decode (`IMAGO_DECODE_CACHE_SIZE`) |
/// | `imago_decoder_crashes_total`, `imago_decoder_kills_total`, `imago_decoder_replacements_total`, `imago_decoder_quarantine_hits_total` | counters: decoder workers (`IMAGO_ISOLATED_FORMATS`) |
/// | `imago_decoder_workers`, `imago_decoder_quarantined_sources` | gauges, read at scrape time |
/// | `process_resident_memory_bytes` | gauge, read at scrape time |
public final class ServiceMetrics: Sendable {
    /// The registry `/metrics` renders.
    public let registry: PrometheusCollectorRegistry
    private let duration: DurationHistogram
    private let inProgress: Gauge
    private let queueDepth: Gauge
    private let workersBusy: Gauge
    private let sourceBytes: Counter
    private let cacheHits: Counter
    private let cacheMisses: Counter
    private let heapTrims: Counter
    private let resident: Gauge
    private let queue: WorkQueue
    /// Renders waiting for a slot of the pipeline's (``ImageManager/Configuration/maxConcurrentRenders``).
    private let rendersWaiting: @Sendable () -> Int
    private let sharedResultHits: Counter
    private let sharedSourceHits: Counter
    private let sharedUploads: Gauge
    private let decodesReused: Counter
    /// The pipeline's own counts, read at scrape time: shared result hits, shared source hits,
    /// uploads in flight, reused decodes.
    private let pipelineCounts: @Sendable () -> (results: Int, sources: Int, uploads: Int, reused: Int)
    /// The decoder workers' counts (``DecoderMetrics``).
    private let decoders: DecoderMetrics
    /// The counts at the last scrape, for the counters' increments.
    private let lastCounts = Mutex<(results: Int, sources: Int, reused: Int)>((0, 0, 0))

    init(
        registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), queue: WorkQueue,
        rendersWaiting: @escaping @Sendable () -> Int = { 0 },
        isolation: @escaping @Sendable () -> DecoderIsolation.Statistics? = { nil },
        pipelineCounts: @escaping @Sendable () -> (results: Int, sources: Int, uploads: Int, reused: Int) = { (0, 0, 0, 0) }
    ) {
        self.registry = registry
        self.queue = queue
        self.rendersWaiting = rendersWaiting
        self.pipelineCounts = pipelineCounts
        decoders = DecoderMetrics(registry: registry, statistics: isolation)
        sharedResultHits = registry.makeCounter(
            descriptor: Self.metric("imago_shared_result_hits_total", "Results read from the shared store, made by another instance"))
        sharedSourceHits = registry.makeCounter(
            descriptor: Self.metric("imago_shared_source_hits_total", "Sources read from the shared store instead of downloaded"))
        sharedUploads = registry.makeGauge(
            descriptor: Self.metric("imago_shared_uploads_in_flight", "Uploads to the shared store under way"))
        decodesReused = registry.makeCounter(
            descriptor: Self.metric("imago_decodes_reused_total", "Decodes served by a kept decode of the same source"))
        duration = registry.makeDurationHistogram(
            descriptor: Self.metric("imago_http_request_duration_seconds", "Time from a request's arrival to its response"),
            buckets: [
                .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10)
            ])
        inProgress = registry.makeGauge(descriptor: Self.metric("imago_http_requests_in_progress", "Requests being handled now"))
        queueDepth = registry.makeGauge(descriptor: Self.metric("imago_processing_queue_depth", "Requests waiting for a worker"))
        workersBusy = registry.makeGauge(descriptor: Self.metric("imago_processing_workers_busy", "Workers decoding, transforming or encoding now"))
        sourceBytes = registry.makeCounter(descriptor: Self.metric("imago_source_bytes_total", "Bytes downloaded from sources"))
        cacheHits = registry.makeCounter(descriptor: Self.metric("imago_source_cache_hits_total", "Sources served from the disk cache"))
        cacheMisses = registry.makeCounter(descriptor: Self.metric("imago_source_cache_misses_total", "Sources downloaded"))
        heapTrims = registry.makeCounter(descriptor: Self.metric("imago_heap_trims_total", "Times freed heap memory was returned to the system"))
        resident = registry.makeGauge(descriptor: Self.metric("process_resident_memory_bytes", "Resident memory size in bytes"))
    }

    /// A descriptor for the whole metric name (no separate unit part) and its help text.
    private static func metric(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    func requestStarted() { inProgress.increment() }

    func requestFinished(status: Int, duration elapsed: Duration) {
        inProgress.decrement()
        duration.record(elapsed)
        registry.makeCounter(
            descriptor: Self.metric("imago_http_requests_total", "Requests answered, by status"),
            labels: [("status", String(status))]
        ).increment()
    }

    func sourceLoaded(bytes: Int, fromCache: Bool) {
        if fromCache {
            cacheHits.increment()
        } else {
            cacheMisses.increment()
            sourceBytes.increment(by: Int64(bytes))
        }
    }

    /// Counts a return of freed heap memory to the system (`imago_heap_trims_total`): for the
    /// process that trims (`imago-server`, or an app embedding the service).
    public func heapTrimmed() { heapTrims.increment() }

    /// The process's resident set size in bytes (`/proc/self/statm`), or `nil` where that file
    /// is unavailable.
    package static var residentBytes: Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        #if canImport(Glibc)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        let pageSize = 4096
        #endif
        return pages * pageSize
    }

    /// The Prometheus text exposition, with the queue and memory gauges read now.
    public func render() -> String {
        if let bytes = Self.residentBytes { resident.set(Double(bytes)) }
        let counts = queue.counts
        queueDepth.set(Double(counts.waiting + rendersWaiting()))
        workersBusy.set(Double(counts.running))
        let now = pipelineCounts()
        sharedUploads.set(Double(now.uploads))
        let deltas = lastCounts.withLock { last -> (Int, Int, Int) in
            defer { last = (now.results, now.sources, now.reused) }
            return (max(0, now.results - last.results), max(0, now.sources - last.sources), max(0, now.reused - last.reused))
        }
        if deltas.0 > 0 { sharedResultHits.increment(by: Int64(deltas.0)) }
        if deltas.1 > 0 { sharedSourceHits.increment(by: Int64(deltas.1)) }
        if deltas.2 > 0 { decodesReused.increment(by: Int64(deltas.2)) }
        decoders.update()
        return registry.emitToString()
    }
}
