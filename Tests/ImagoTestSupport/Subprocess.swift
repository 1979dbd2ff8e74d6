// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation

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
}
