// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs programs for the tests that drive executables and system tools.
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
            let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
        }
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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output?.path ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
