// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Synchronization

/// Counts the steps one piece of work takes (format sniffs, header parses, lookups in each
/// coalescing table), for tests that hold the pipeline to its shape: "one request of this kind
/// sniffs once".
///
/// Bind one as a task-local around the work (`PipelineProbe.$current.withValue(probe) { … }`).
/// Tasks started inside inherit it, and ``WorkQueue`` carries it into the jobs it runs on its
/// own threads, so counts made anywhere on the request's path reach it. Without a probe bound,
/// recording is one task-local read.
package final class PipelineProbe: Sendable {
    /// The probe of the running task, if any.
    @TaskLocal package static var current: PipelineProbe?

    private let counts = Mutex<[String: Int]>([:])

    package init() {}

    /// Counts one `event` on the current task's probe, if it has one.
    package static func record(_ event: String) {
        current?.add(event)
    }

    /// Counts one `event`.
    package func add(_ event: String) {
        counts.withLock { $0[event, default: 0] += 1 }
    }

    /// How many times `event` was counted.
    package func count(_ event: String) -> Int {
        counts.withLock { $0[event] ?? 0 }
    }

    /// Every event counted, with its count.
    package var all: [String: Int] { counts.withLock { $0 } }
}

/// The events the pipeline counts.
package enum ProbeEvent {
    /// A format told from an input's first bytes (`ImageFormat(sniffing:)`).
    package static let sniff = "sniff"
    /// A header read for its facts (`ImageInfo`).
    package static let headerParse = "header"

    /// A look in the result cache (and the shared results behind it) for a stored result.
    package static let resultLookup = "result-cache"

    /// A lookup in the coalescing table named `table`.
    package static func lookup(_ table: String) -> String { "lookup:" + table }
}
