// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoThreads
import ImagoCore

/// The CPU each worker lane is pinned to, and the hooks that pin them (`IMAGO_WORKER_AFFINITY`).
///
/// Pinning threads is a decision for the whole process, so the library makes none: the
/// `imago-server` executable plans it from the configuration and hands ``laneHooks`` to
/// ``ImageService/init(configuration:logger:resolver:metricsRegistry:laneHooks:)``. An app
/// embedding the service may do the same, or leave its workers to the scheduler.
struct WorkerPinning: Sendable, Equatable {
    /// The CPU of lane *i*.
    var cpus: [Int]

    /// The CPUs this process may run on, ascending: its affinity mask, read now. Empty where
    /// the system has no affinity call.
    static var allowedCPUs: [Int] {
        let count = Int(imago_threads_allowed_cpu_count())
        return (0..<max(0, count)).compactMap { index in
            let cpu = Int(imago_threads_allowed_cpu(Int32(index)))
            return cpu >= 0 ? cpu : nil
        }
    }

    /// The CPU the calling thread runs on now, or `nil` where the system does not say.
    static var currentCPU: Int? {
        let cpu = Int(imago_threads_current_cpu())
        return cpu >= 0 ? cpu : nil
    }

    /// Where `workers` lanes go under `affinity`, given the CPUs the process may use; `nil`
    /// when they are not pinned (``WorkerAffinity/none``, ``WorkerAffinity/auto`` with a count
    /// that does not match, or no CPU known).
    static func plan(_ affinity: WorkerAffinity, workers: Int, allowed: [Int]) -> WorkerPinning? {
        guard workers > 0, !allowed.isEmpty else { return nil }
        switch affinity {
        case .none:
            return nil
        case .auto:
            // One CPU alone has nothing to balance.
            guard allowed.count > 1, workers == allowed.count else { return nil }
        case .pinned:
            break
        }
        return WorkerPinning(cpus: (0..<workers).map { allowed[$0 % allowed.count] })
    }

    /// Hooks for `WorkQueue`: a lane pins its thread as it starts work and gives it back its
    /// former CPU set before returning it to Dispatch's pool. A pin the system refuses (a CPU
    /// taken away since the plan) leaves the thread unpinned; the work runs all the same.
    var laneHooks: WorkQueue.LaneHooks {
        let cpus = cpus
        return WorkQueue.LaneHooks(
            enter: { lane in _ = imago_threads_pin(Int32(cpus[lane % cpus.count])) },
            leave: { _ in _ = imago_threads_unpin() })
    }

    /// `0,1` for the log.
    var description: String { cpus.map(String.init).joined(separator: ",") }
}
