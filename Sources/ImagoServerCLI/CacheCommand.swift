// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import Foundation
import ImagoServer
import Logging

/// `imago-server cache`: the service's disk cache of sources, from the command line.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Work on the service's cache of sources (IMAGO_CACHE_DIR).",
        subcommands: [PurgeCommand.self])

    /// `imago-server cache purge URL…`: forgets sources, as `POST /purge` does.
    struct PurgeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Forget cached sources: the next request for each downloads it again.",
            discussion: """
                Reads the same IMAGO_* settings as the server (IMAGO_CACHE_DIR above all). A \
                running server also drops what it keeps in memory when asked through \
                POST /purge?url=... with IMAGO_PURGE_SECRET.
                """)

        @Argument(help: "Source URLs, as in service URLs (http or https).")
        var urls: [String]

        func run() async throws {
            let (configuration, _) = try ServeCommand.settings(environment: ProcessInfo.processInfo.environment, flags: [:])
            let silent = Logger(label: "imago.server.cache", factory: { _ in SwiftLogNoOpLogHandler() })
            let service = try ImageService(configuration: configuration, logger: silent)
            var failed = false
            for url in urls {
                do {
                    try await service.purge(source: url)
                    print("purged \(url)")
                } catch {
                    FileHandle.standardError.write(Data("imago-server: \(url): \(error)\n".utf8))
                    failed = true
                }
            }
            await service.shutdown()
            if failed { throw ExitCode(1) }
        }
    }
}
