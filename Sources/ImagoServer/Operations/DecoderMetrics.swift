// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import Logging
import Prometheus
import Synchronization

/// The decoder workers' metrics (``DecoderIsolation``), read from the registry's counts at
/// scrape time: crashes, kills, replacements and quarantine hits as counters, the workers alive
/// and the sources in quarantine as gauges.
final class DecoderMetrics: Sendable {
    private let crashes: Counter
    private let kills: Counter
    private let replacements: Counter
    private let quarantineHits: Counter
    private let quarantined: Gauge
    private let workers: Gauge
    private let statistics: @Sendable () -> DecoderIsolation.Statistics?
    private let last = Mutex(DecoderIsolation.Statistics())

    init(registry: PrometheusCollectorRegistry, statistics: @escaping @Sendable () -> DecoderIsolation.Statistics?) {
        func metric(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
        }
        crashes = registry.makeCounter(descriptor: metric("imago_decoder_crashes_total", "Decoder workers that crashed"))
        kills = registry.makeCounter(
            descriptor: metric("imago_decoder_kills_total", "Decoder workers stopped by their sandbox or for running past their time"))
        replacements = registry.makeCounter(descriptor: metric("imago_decoder_replacements_total", "Decoder workers started in place of another"))
        quarantineHits = registry.makeCounter(
            descriptor: metric("imago_decoder_quarantine_hits_total", "Requests refused from the quarantine without reaching a worker"))
        quarantined = registry.makeGauge(descriptor: metric("imago_decoder_quarantined_sources", "Sources in quarantine now"))
        workers = registry.makeGauge(descriptor: metric("imago_decoder_workers", "Decoder worker processes alive now"))
        self.statistics = statistics
    }

    /// Brings the metrics up to the registry's counts.
    func update() {
        guard let now = statistics() else { return }
        let before = last.withLock { last in
            defer { last = now }
            return last
        }
        func add(_ counter: Counter, _ delta: Int) { if delta > 0 { counter.increment(by: Int64(delta)) } }
        add(crashes, now.crashes - before.crashes)
        add(kills, now.kills - before.kills)
        add(replacements, now.replacements - before.replacements)
        add(quarantineHits, now.quarantineHits - before.quarantineHits)
        quarantined.set(Double(now.quarantined))
        workers.set(Double(now.liveWorkers))
    }
}

extension ImageService {
    /// What the decoder workers' events put in the log: a warning for each worker that stopped
    /// on a source and each sandbox step a worker could not take; the rest at debug level.
    static func decoderEventLogger(_ logger: Logger) -> @Sendable (DecoderIsolation.Event) -> Void {
        { event in
            switch event {
            case .workerFailed(let format, let failure):
                logger.warning("decoder worker stopped on a \(format.rawValue) source: \(failure); the source is quarantined")
            case .sandboxIncomplete(let what):
                logger.warning("decoder sandbox incomplete: \(what)")
            case .workerStarted(let pid):
                logger.debug("decoder worker started (pid \(pid))")
            case .workerReplaced:
                logger.debug("decoder worker replaced")
            case .quarantineHit(let format):
                logger.debug("a quarantined \(format.rawValue) source refused")
            }
        }
    }
}

extension ImageService {
    /// Starts the decoder workers of `IMAGO_ISOLATED_FORMATS` now, rather than at the first
    /// such source (which is when `imago-server` starts them), so that the first isolated
    /// request does not wait for a worker's start.
    ///
    /// - Throws: `ImageCodingError.decoderFailed` when a worker cannot be started.
    public func startDecoderWorkers() throws {
        try coders.startIsolatedDecoders()
    }
}
