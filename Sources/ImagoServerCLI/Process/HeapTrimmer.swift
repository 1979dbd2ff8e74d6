// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoServer
import ServiceLifecycle

/// Returns freed heap memory to the system (glibc's `malloc_trim`) while a service runs: as soon
/// as the service goes idle after work, and every `interval` under steady load, so that the
/// resident size follows the load down instead of staying at its peak. It also drops the
/// service's expired results.
///
/// Trimming is a decision for the whole process: the `imago-server` executable runs one beside
/// the server (`ImageServer.run(handleSignals:services:onListening:)`); an app embedding the
/// service may run one in its own service group, or not.
struct HeapTrimmer: Service {
    let service: ImageService
    let interval: Duration
    /// How often idleness is checked.
    var tick: Duration = .seconds(1)

    /// Creates a trimmer for `service`, trimming at least every `interval` under load
    /// (`IMAGO_FREE_MEMORY_INTERVAL`); `.zero` never trims.
    init(service: ImageService, interval: Duration) {
        self.service = service
        self.interval = interval
    }

    /// Trims until the service group shuts down.
    func run() async throws {
        // Returning early would end the service group: with trimming off, just wait for the stop.
        guard interval > .zero else {
            try? await gracefulShutdown()
            return
        }
        await cancelWhenGracefulShutdown { await loop() }
    }

    private func loop() async {
        var lastTrim = ContinuousClock.now
        var activityAtTrim = service.activity
        while !Task.isCancelled {
            do { try await Task.sleep(for: tick) } catch { return }
            // Results past their few seconds go now, not when the cache is next touched.
            service.manager.removeExpiredResults()
            let activity = service.activity
            let idleAfterWork = service.isIdle && activity != activityAtTrim
            if idleAfterWork || ContinuousClock.now - lastTrim >= interval {
                ProcessHeap.trim()
                service.metrics.heapTrimmed()
                lastTrim = ContinuousClock.now
                activityAtTrim = activity
            }
        }
    }
}
