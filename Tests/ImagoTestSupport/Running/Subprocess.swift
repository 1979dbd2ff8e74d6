// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs programs for the tests that drive executables and system tools.
///
/// No test may wait for a child with Foundation's `Process.waitUntilExit` on the thread it runs
/// on: on Linux that wait needs Dispatch to notice the child's exit, and with Swift's cooperative
/// pool (2 threads on CI) held by such waits the parallel run stalls. Async tests use
/// ``run(_:_:environment:directory:)``, which waits on a thread of its own; synchronous ones use
/// ``runSynchronously(_:_:output:)``, ``capture(_:_:)`` or ``spawn(_:_:output:error:)`` and
/// ``wait(_:)``, which involve no Dispatch.
public enum Subprocess {
    /// Runs `executable` to its end, off the cooperative pool (a thread of its own waits on it):
    /// its exit status, standard output and standard error.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        directory: URL? = nil
    ) async throws -> (Int32, String, String) {
        try await blocking {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            if let directory { process.currentDirectoryURL = directory }
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            // Both pipes are drained at once: a child filling standard error while standard
            // output is read would wait for the reader forever.
            let errors = Mutex(Data())
            let drained = DispatchSemaphore(value: 0)
            let errorReader = err.fileHandleForReading
            Thread.detachNewThread {
                let data = errorReader.readDataToEndOfFile()
                errors.withLock { $0 = data }
                drained.signal()
            }
            let o = out.fileHandleForReading.readDataToEndOfFile()
            drained.wait()
            let e = errors.withLock { $0 }
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
        }
    }

    /// Starts `executable` (a path; no search of `PATH`) with `posix_spawn`, involving no
    /// Dispatch. Standard input reads /dev/null; standard output goes to `output` and standard
    /// error to `error` (each created or truncated), else to /dev/null. The child starts with an
    /// empty signal mask and default signal handlers, as `Process` starts it: the test process's
    /// threads block most signals, and a child would inherit that mask (a tmux server, say, would
    /// then ignore the hangups meant to end it).
    ///
    /// Reap the child with ``wait(_:)``.
    ///
    /// - Returns: the child's process id.
    /// - Throws: `POSIXError` when the program cannot be started.
    public static func spawn(_ executable: String, _ arguments: [String], output: URL? = nil, error: URL? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, error?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        return pid
    }

    /// Waits for the child `pid` (from ``spawn(_:_:output:error:)``) to end, with `waitpid` on
    /// the calling thread (no Dispatch), and reaps it.
    ///
    /// - Returns: the exit status, or 128 + the signal for a child killed by one (as a shell
    ///   reports it: 137 after `SIGKILL`).
    /// - Throws: `POSIXError` when the child cannot be waited for.
    public static func wait(_ pid: pid_t) throws -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Runs `executable` to its end on the calling thread, with `posix_spawn` and `waitpid`:
    /// for synchronous tests. Foundation's `Process.waitUntilExit` waits for a Dispatch source
    /// that, on Linux, may need the very cooperative threads the waiting tests hold (2 on CI), so
    /// a few such waits at once stall the parallel run; this involves no Dispatch and blocks only
    /// its own thread for the tool's time. Standard output goes to `output` (else nowhere),
    /// standard error nowhere.
    ///
    /// - Returns: the exit status (128 + the signal for a child killed by one).
    /// - Throws: `POSIXError` when the program cannot be started or waited for.
    public static func runSynchronously(_ executable: String, _ arguments: [String], output: URL? = nil) throws -> Int32 {
        try Self.wait(Self.spawn(executable, arguments, output: output))
    }

    /// Runs `executable` to its end on the calling thread, as ``runSynchronously(_:_:output:)``
    /// does (no Dispatch), with its standard output in a temporary file that is removed
    /// afterwards; standard error goes nowhere.
    ///
    /// - Returns: the exit status (128 + the signal for a child killed by one) and the standard
    ///   output, decoded as UTF-8.
    /// - Throws: `POSIXError` when the program cannot be started or waited for, or the error of
    ///   reading its output.
    public static func capture(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imago-capture-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let status = try runSynchronously(executable, arguments, output: file)
        let output = try Data(contentsOf: file)
        return (status, String(decoding: output, as: UTF8.self))
    }
}
