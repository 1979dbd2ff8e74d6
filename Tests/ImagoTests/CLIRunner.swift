// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoTestSupport
import Synchronization

/// Runs the built `imago` executable (next to the test bundle) and captures its output.
enum CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var crashed: Bool
    }

    static let executable = TestFiles.builtProduct("imago")

    /// Runs the tool and waits for it on a thread of its own, off Swift's cooperative pool: a
    /// test waiting for a child must not hold one of the pool's few threads, or every other
    /// test's tasks (servers, pipelines) stall behind it.
    static func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        try await blocking { try runBlocking(arguments, environment: environment) }
    }

    /// The run itself: it blocks its thread until the tool ends (`Process.waitUntilExit` needs
    /// Dispatch to see the exit), so it is only ever called on the thread ``run(_:environment:)``
    /// starts, never on the cooperative pool.
    private static func runBlocking(_ arguments: [String], environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Both pipes are drained at once: a child filling one while the other is read would wait
        // for the reader forever.
        let errors = Mutex(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errors.withLock { $0 = data }
            drained.signal()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        let stderr = errors.withLock { $0 }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self),
            crashed: process.terminationReason == .uncaughtSignal)
    }

    static func temporaryDirectory() throws -> URL { try TestFiles.temporaryDirectory() }
}
