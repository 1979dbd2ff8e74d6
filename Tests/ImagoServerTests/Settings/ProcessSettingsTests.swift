// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoServer
import Testing

@testable import ImagoServerCLI

/// What the `imago-server` executable decides for its process: the malloc settings (read by the
/// start-up hook and by its settings, from one set of defaults), trimming, the workers' CPUs,
/// and the command line's flags, all from the settings' descriptors.
@Suite("imago-server's process settings and flags")
struct ProcessSettingsTests {
    @Test("IMAGO_MALLOC_ARENAS, IMAGO_MALLOC_MMAP_THRESHOLD, IMAGO_FREE_MEMORY_INTERVAL and IMAGO_WORKER_AFFINITY read and checked")
    func settings() throws {
        let defaults = ProcessSettings()
        #expect(defaults.mallocArenas == 2 && defaults.freeMemoryInterval == .seconds(10) && defaults.workerAffinity == .auto)
        #expect(defaults.mallocMmapThreshold == 32 << 20)
        let set = try ProcessSettings(environment: [
            "IMAGO_MALLOC_ARENAS": "0", "IMAGO_FREE_MEMORY_INTERVAL": "0", "IMAGO_MALLOC_MMAP_THRESHOLD": "0", "IMAGO_WORKER_AFFINITY": " Pinned "
        ])
        #expect(set.mallocArenas == 0 && set.freeMemoryInterval == .zero && set.mallocMmapThreshold == 0 && set.workerAffinity == .pinned)
        for (name, value) in [
            ("IMAGO_MALLOC_ARENAS", "-1"), ("IMAGO_FREE_MEMORY_INTERVAL", "soon"), ("IMAGO_MALLOC_MMAP_THRESHOLD", "100"),
            ("IMAGO_MALLOC_MMAP_THRESHOLD", "999999999"), ("IMAGO_WORKER_AFFINITY", "cpu0")
        ] {
            let error = #expect(throws: ConfigurationError.self, "\(name)=\(value)") { try ProcessSettings(environment: [name: value]) }
            #expect(error?.variable == name)
        }
        #expect(ServiceMetrics.residentBytes.map { $0 > 0 } == true)
        #if os(Linux)
        // glibc takes the settings (the C glue once tested a macro no header had defined yet,
        // and every call silently did nothing). 32 MiB is glibc's own ceiling for the threshold.
        #expect(ProcessHeap.mapLargeAllocations(from: 32 << 20))
        #expect(!ProcessHeap.mapLargeAllocations(from: 100))
        _ = ProcessHeap.trim()
        #endif
    }

    @Test("the executable reads the service's and its own settings from one environment, imgproxy's names included")
    func bothRoots() throws {
        let (service, process) = try ServeCommand.settings(
            environment: ["IMGPROXY_FREE_MEMORY_INTERVAL": "3", "IMAGO_MALLOC_ARENAS": "4", "IMAGO_QUALITY": "70", "IMGPROXY_LOG_LEVEL": "warn"],
            flags: ["IMAGO_QUALITY": "65"])
        #expect(process.freeMemoryInterval == .seconds(3) && process.mallocArenas == 4)
        #expect(service.output.quality == 65 && service.logLevel == .warning)
        // The process's settings are known names, not unknown or misspelt ones.
        #expect(service.warnings.isEmpty, "\(service.warnings)")
        #expect(throws: (any Error).self) { try ServeCommand.settings(environment: ["IMAGO_MALLOC_ARENA": "2"], flags: [:]) }
    }

    @Test("every setting is a flag of its own name; --set takes any; a wrong flag names the nearest")
    func flags() throws {
        let parsed = try SettingFlags.parse(
            set: ["IMAGO_TTL=5"], flags: ["--max-src-resolution", "20", "--bind=127.0.0.1:0", "--malloc-arenas", "1", "--log-level", "debug"])
        #expect(
            parsed == [
                "IMAGO_TTL": "5", "IMAGO_MAX_SRC_RESOLUTION": "20", "IMAGO_BIND": "127.0.0.1:0", "IMAGO_MALLOC_ARENAS": "1", "IMAGO_LOG_LEVEL": "debug"
            ])
        #expect(SettingFlags.names.count == ServerConfiguration.settings.count + ProcessSettings.settings.count)
        #expect(throws: (any Error).self) { try SettingFlags.parse(set: [], flags: ["--max-src-resolutoin", "20"]) }
        #expect(throws: (any Error).self) { try SettingFlags.parse(set: [], flags: ["--quality"]) }
        #expect(throws: (any Error).self) { try SettingFlags.parse(set: ["QUALITY=5"], flags: []) }
        // Every setting is in --help, with its flag.
        for setting in ServerConfiguration.settings {
            #expect(ServeCommand.variableTable.contains("\(setting.name), \(setting.flag) ("), "\(setting.name)")
        }
    }

    @Test("worker pinning: auto pins one worker per allowed CPU only when they match; pinned wraps; none never")
    func pinningPlans() {
        let four = [0, 1, 2, 3]
        #expect(WorkerPinning.plan(.auto, workers: 4, allowed: four)?.cpus == [0, 1, 2, 3])
        // Fewer workers than CPUs (several instances on one machine, say): left to the scheduler.
        #expect(WorkerPinning.plan(.auto, workers: 2, allowed: four) == nil)
        #expect(WorkerPinning.plan(.auto, workers: 8, allowed: four) == nil)
        #expect(WorkerPinning.plan(.auto, workers: 1, allowed: [5]) == nil)
        // A cpuset that is not 0-based.
        #expect(WorkerPinning.plan(.auto, workers: 2, allowed: [4, 6])?.cpus == [4, 6])
        #expect(WorkerPinning.plan(.pinned, workers: 5, allowed: [2, 3])?.cpus == [2, 3, 2, 3, 2])
        #expect(WorkerPinning.plan(.pinned, workers: 2, allowed: four)?.cpus == [0, 1])
        #expect(WorkerPinning.plan(.pinned, workers: 2, allowed: []) == nil)
        #expect(WorkerPinning.plan(.none, workers: 4, allowed: four) == nil)
        #expect(WorkerPinning.plan(.pinned, workers: 3, allowed: [0, 1])?.description == "0,1,0")
    }

    @Test("worker pinning: a lane's thread runs on its CPU while it works and gets its CPU set back after")
    func pinningThreads() async throws {
        let allowed = WorkerPinning.allowedCPUs
        try #require(!allowed.isEmpty, "this system reports no CPU affinity")
        let cpu = allowed[allowed.count - 1]
        let queue = WorkQueue(label: "t", maxConcurrentCount: 1, laneHooks: WorkerPinning(cpus: [cpu]).laneHooks)
        for _ in 0..<3 {
            let seen = try await queue.run { (WorkerPinning.allowedCPUs, WorkerPinning.currentCPU) }
            #expect(seen.0 == [cpu] && seen.1 == cpu)
        }
        // Enter and leave by hand on a thread of an unpinned queue: the set comes back whole,
        // and a CPU the system refuses leaves the thread as it was.
        let plain = WorkQueue(label: "t", maxConcurrentCount: 1)
        let sets = try await plain.run { () -> [[Int]] in
            let hooks = WorkerPinning(cpus: [cpu]).laneHooks
            let before = WorkerPinning.allowedCPUs
            hooks.enter(0)
            let pinned = WorkerPinning.allowedCPUs
            hooks.leave(0)
            let after = WorkerPinning.allowedCPUs
            let refused = WorkerPinning(cpus: [1 << 20]).laneHooks
            refused.enter(0)
            let unpinned = WorkerPinning.allowedCPUs
            refused.leave(0)
            return [before, pinned, after, unpinned, WorkerPinning.allowedCPUs]
        }
        #expect(sets == [allowed, [cpu], allowed, allowed, allowed])
    }
}
