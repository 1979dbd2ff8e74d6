// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Dispatch

/// Runs Swift tasks on one serial dispatch queue, a thread outside Swift's cooperative pool.
///
/// The test server's tasks prefer it, so the server keeps answering while parallel tests hold
/// every cooperative thread (2 on a 2-core CI machine) with synchronous work.
public final class DedicatedTaskExecutor: TaskExecutor {
    private let queue: DispatchQueue

    /// Creates the executor and its serial queue, named `label`.
    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `job` on the queue, after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
