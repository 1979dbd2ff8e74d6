import ImagoCore
import ServiceLifecycle

/// Returns freed heap memory to the system while ``ImageServer`` runs: as soon as the service
/// goes idle after work, and every ``ServerConfiguration/freeMemoryInterval`` under steady
/// load, so that the resident size follows the load down instead of staying at its peak.
struct HeapTrimmer: Service {
    let service: ImageService
    let interval: Duration
    /// How often idleness is checked.
    var tick: Duration = .seconds(1)

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
