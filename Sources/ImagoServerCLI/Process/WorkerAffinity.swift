// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// How imago-server places its worker threads on CPUs: `IMAGO_WORKER_AFFINITY`.
///
/// Left to itself, Linux's scheduler sometimes wakes a worker on the CPU where another worker
/// is already decoding, while a CPU sits idle, and takes milliseconds to move it. For a service
/// whose requests are one long decode each, that shows up as the tail: on the project's
/// 2-core benchmark, JPEG thumbnails at 2 connections went from 53 to 58 req/s and their p99
/// from 56 to 41 ms with the workers pinned.
enum WorkerAffinity: String, Sendable, CaseIterable {
    /// Each worker on a CPU of its own when there are exactly as many workers as CPUs the process
    /// may run on (its affinity mask: all of them, or what `taskset`, a container's cpuset or
    /// systemd's `CPUAffinity=` left it); otherwise as ``none``. Several instances on one machine
    /// with fewer workers than CPUs each are therefore never pinned onto the same CPUs. The default.
    case auto
    /// Worker *i* on the *i*-th CPU the process may run on, wrapping when there are more workers
    /// than CPUs.
    case pinned
    /// Workers run wherever the scheduler puts them.
    case none
}
