// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How hard the system is pressed for memory.
public enum MemoryPressureLevel: Int, Sendable, Comparable {
    /// No action needed.
    case normal
    /// Tasks are stalling on memory: shed what is cheap to rebuild.
    case warning
    /// All tasks are stalling, or the cgroup is at its limit: shed everything possible.
    case critical

    /// Orders levels by severity: normal, then warning, then critical.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// Polls Linux's memory-pressure signals and tells its handlers when pressure rises. This is
/// the Linux counterpart of iOS's memory warning, which SDWebImage and YYCache answer by
/// emptying their memory caches.
///
/// Sources, in the order ``Source/automatic`` tries them:
/// - **PSI** (`/proc/pressure/memory`, Linux 4.20+): `some avg10` at or over
///   ``thresholdPercent`` is a warning, `full avg10` at or over it is critical.
/// - **cgroup v2** (`/sys/fs/cgroup/memory.current` and `memory.max`): usage at or over 90% of
///   the limit is a warning, 95% critical. Inside a container this is usually the limit that
///   kills the process, so it is the better signal when set.
///
/// Handlers run on the watcher's polling task; keep them quick (trimming a cache is).
public final class MemoryPressureWatcher: Sendable {
    /// Where readings come from.
    public enum Source: Sendable {
        /// The cgroup v2 limit when one is set, otherwise PSI, otherwise nothing (never fires).
        case automatic
        /// PSI from the given file (default `/proc/pressure/memory`).
        case psi(path: String = "/proc/pressure/memory")
        /// cgroup v2 usage against its limit, from the given directory (default `/sys/fs/cgroup`).
        case cgroup(directory: String = "/sys/fs/cgroup")
        /// A custom reading, for tests or other platforms.
        case custom(@Sendable () -> MemoryPressureLevel)
    }

    /// How often to poll. Default 5 seconds.
    public let interval: Duration
    /// PSI percentage (of the last 10 s) that counts as pressure. Default 10.
    public let thresholdPercent: Double
    private let source: Source
    private let handlers = Mutex<[@Sendable (MemoryPressureLevel) -> Void]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let lastLevel = Mutex(MemoryPressureLevel.normal)

    /// Creates a watcher; call ``start()`` to begin polling.
    ///
    /// - Parameters:
    ///   - source: Default ``Source/automatic``.
    ///   - interval: Default 5 seconds.
    ///   - thresholdPercent: Default 10.
    public init(source: Source = .automatic, interval: Duration = .seconds(5), thresholdPercent: Double = 10) {
        self.source = source
        self.interval = interval
        self.thresholdPercent = thresholdPercent
    }

    deinit { task.withLock { $0?.cancel() } }

    /// Adds a handler called whenever a poll finds pressure at ``MemoryPressureLevel/warning`` or above.
    public func onPressure(_ handler: @escaping @Sendable (MemoryPressureLevel) -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    /// Starts polling every ``interval`` on a background task. Calling it again does nothing.
    public func start() {
        task.withLock { current in
            guard current == nil else { return }
            let interval = self.interval
            // A sleeping poll, one per watcher: no CPU work to bound.
            current = Task(priority: .utility) { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard let self else { return }
                    self.poll()
                }
            }
        }
    }

    /// Stops polling.
    public func stop() {
        task.withLock {
            $0?.cancel()
            $0 = nil
        }
    }

    /// Reads the current level once and, at warning or above, calls the handlers.
    ///
    /// - Returns: The level read.
    @discardableResult
    public func poll() -> MemoryPressureLevel {
        let level = read()
        lastLevel.withLock { $0 = level }
        if level >= .warning {
            for handler in handlers.withLock({ $0 }) { handler(level) }
        }
        return level
    }

    /// The level the last poll read.
    public var currentLevel: MemoryPressureLevel { lastLevel.withLock { $0 } }

    private func read() -> MemoryPressureLevel {
        switch source {
        case .custom(let reading): return reading()
        case .psi(let path): return Self.psiLevel(path: path, threshold: thresholdPercent) ?? .normal
        case .cgroup(let directory): return Self.cgroupLevel(directory: directory) ?? .normal
        case .automatic:
            return Self.cgroupLevel(directory: "/sys/fs/cgroup")
                ?? Self.psiLevel(path: "/proc/pressure/memory", threshold: thresholdPercent) ?? .normal
        }
    }

    /// Parses PSI text: lines `some avg10=… avg60=… avg300=… total=…` and `full …`.
    package static func psiLevel(text: String, threshold: Double) -> MemoryPressureLevel? {
        var some: Double?, full: Double?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let kind = fields.first,
                let avg = fields.first(where: { $0.hasPrefix("avg10=") }).flatMap({ Double($0.dropFirst(6)) })
            else { continue }
            if kind == "some" { some = avg } else if kind == "full" { full = avg }
        }
        guard let some else { return nil }
        if let full, full >= threshold { return .critical }
        return some >= threshold ? .warning : .normal
    }

    package static func psiLevel(path: String, threshold: Double) -> MemoryPressureLevel? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return psiLevel(text: text, threshold: threshold)
    }

    /// Usage against the cgroup v2 limit; `nil` when there is no limit ("max") or no cgroup.
    package static func cgroupLevel(current: String, max: String) -> MemoryPressureLevel? {
        guard let limit = Double(PathName.trimmed(max)), limit > 0,
            let used = Double(PathName.trimmed(current))
        else { return nil }
        let share = used / limit
        return share >= 0.95 ? .critical : share >= 0.90 ? .warning : .normal
    }

    package static func cgroupLevel(directory: String) -> MemoryPressureLevel? {
        guard let current = try? String(contentsOfFile: directory + "/memory.current", encoding: .utf8),
            let max = try? String(contentsOfFile: directory + "/memory.max", encoding: .utf8)
        else { return nil }
        return cgroupLevel(current: current, max: max)
    }
}
