// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoServerStart
import ImagoServer
import Logging

/// What `imago-server` decides for its whole process, besides the service's settings: glibc's
/// malloc, the workers' CPUs and returning freed memory. The library never changes these; an
/// app that embeds the service decides them for itself.
struct ProcessSettings: Sendable, Equatable {
    /// `IMAGO_MALLOC_ARENAS`: glibc malloc arenas (`M_ARENA_MAX`). Fewer arenas keep less freed
    /// memory resident; imgproxy's images use 2. 0 leaves glibc's default (8 per core). Set by
    /// the start-up hook (`CImagoServerStart`) before any thread exists, and again at start.
    var mallocArenas = Int(IMAGO_MALLOC_ARENAS_DEFAULT)
    /// `IMAGO_MALLOC_MMAP_THRESHOLD`: bytes from which an allocation gets a mapping of its own,
    /// returned to the system when freed (`M_MMAP_THRESHOLD`). 32 MiB (glibc's ceiling) lets
    /// the heap recycle bitmaps instead of faulting in fresh, zeroed pages for each (docs/benchmarks.md),
    /// and the trimmer returns what is freed; 0 leaves glibc's dynamic threshold, which starts at
    /// 128 KiB and rises towards 32 MiB as large blocks are freed.
    var mallocMmapThreshold = Int(IMAGO_MALLOC_MMAP_THRESHOLD_DEFAULT)
    /// `IMAGO_FREE_MEMORY_INTERVAL`: time between returns of freed heap memory to the system
    /// (`malloc_trim`); the heap is also trimmed as soon as the service goes idle. 0 turns
    /// trimming off. Default 10 s (imgproxy's).
    var freeMemoryInterval: Duration = .seconds(10)
    /// `IMAGO_WORKER_AFFINITY`: where the workers run (``WorkerAffinity``). Default `auto`.
    var workerAffinity = WorkerAffinity.auto

    /// The descriptors of these settings, as the service's are declared.
    static let settings: [Setting<ProcessSettings>] = [
        Setting(
            IMAGO_MALLOC_ARENAS_NAME, meaning: "glibc malloc arenas (M_ARENA_MAX); 0: glibc's default"
        ) { env, s throws(ConfigurationError) in
            s.mallocArenas = try env.int(IMAGO_MALLOC_ARENAS_NAME, in: 0...Int(IMAGO_MALLOC_ARENAS_MAX)) ?? s.mallocArenas
        } show: {
            $0.mallocArenas == 0 ? "0 (glibc's default)" : "\($0.mallocArenas)"
        },
        Setting(
            IMAGO_MALLOC_MMAP_THRESHOLD_NAME,
            meaning: "bytes from which allocations are mapped apart and unmapped when freed; 0: glibc's default"
        ) { env, s throws(ConfigurationError) in
            let name = IMAGO_MALLOC_MMAP_THRESHOLD_NAME
            guard let bytes = try env.int(name, in: 0...Int(IMAGO_MALLOC_MMAP_THRESHOLD_MAX)) else { return }
            guard bytes == 0 || bytes >= Int(IMAGO_MALLOC_MMAP_THRESHOLD_MIN) else {
                throw ConfigurationError(variable: name, reason: "'\(bytes)' is not 0 or \(IMAGO_MALLOC_MMAP_THRESHOLD_MIN)-\(IMAGO_MALLOC_MMAP_THRESHOLD_MAX)")
            }
            s.mallocMmapThreshold = bytes
        } show: {
            $0.mallocMmapThreshold == 0 ? "0 (glibc's default)" : "\($0.mallocMmapThreshold)"
        },
        .seconds(
            "IMAGO_FREE_MEMORY_INTERVAL", \.freeMemoryInterval, zero: true, imgproxy: "IMGPROXY_FREE_MEMORY_INTERVAL",
            "seconds between malloc_trim calls (also when idle); 0: never"),
        .choice(
            "IMAGO_WORKER_AFFINITY", \.workerAffinity,
            "auto: a CPU per worker when they match the CPUs allowed; pinned: always; none: never")
    ]

    /// The settings' names, for the service's environment reading (so they are known, not misspelt).
    static var names: [SettingNames] { settings.map(\.names) }

    /// The defaults, overridden by `environment` (already migrated from imgproxy's names).
    ///
    /// - Throws: ``ConfigurationError`` naming the variable.
    init(environment: [String: String]) throws(ConfigurationError) {
        let env = EnvironmentReader(values: environment)
        for setting in Self.settings { try setting.read(env, &self) }
    }

    /// The defaults.
    init() {}
}

extension ProcessSettings {
    /// Applies the settings that must be in place before the service starts: glibc's arena cap
    /// and mapping threshold (the cap takes full effect only when the start-up hook set it before
    /// any thread existed), the open-file limit raised to the hard one (as Go's runtime does for
    /// imgproxy; the connection cap is taken from it), and where `workers` run.
    ///
    /// - Returns: The workers' CPUs, or `nil` when they are left to the scheduler.
    func tune(workers: Int, logger: Logger) -> WorkerPinning? {
        let arenas = imago_server_start_arenas()
        if mallocArenas > 0 { ProcessHeap.limitArenas(mallocArenas) }
        if mallocMmapThreshold > 0 { ProcessHeap.mapLargeAllocations(from: mallocMmapThreshold) }
        ProcessLimits.raiseOpenFiles()
        let pinning = WorkerPinning.plan(workerAffinity, workers: workers, allowed: WorkerPinning.allowedCPUs)
        logger.debug("malloc arenas capped before start: \(arenas > 0 ? String(arenas) : arenas == 0 ? "no" : "not glibc")")
        logger.info("\(workers) workers, \(pinning.map { "pinned to CPUs \($0.description)" } ?? "not pinned")")
        return pinning
    }
}
