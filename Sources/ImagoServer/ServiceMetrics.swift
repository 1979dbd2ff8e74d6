// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
public import Prometheus

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
    private let slots: PriorityGate

    init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), queue: WorkQueue, slots: PriorityGate) {
        self.registry = registry
        self.queue = queue
        self.slots = slots
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

    func heapTrimmed() { heapTrims.increment() }

    /// The Prometheus text exposition, with the queue and memory gauges read now.
    public func render() -> String {
        if let bytes = ProcessHeap.residentBytes { resident.set(Double(bytes)) }
        let counts = queue.counts
        queueDepth.set(Double(counts.waiting + slots.counts.waiting))
        workersBusy.set(Double(counts.running))
        return registry.emitToString()
    }
}
