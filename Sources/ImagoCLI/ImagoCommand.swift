// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoCache
import ImagoCoders
import ImagoCommandLine
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@main
struct ImagoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imago",
        abstract: "Inspect, decode, re-encode, fetch and play images with the Imago library.",
        discussion: """
            The formats IMAGO_ISOLATED_FORMATS names (default: \(DecoderIsolation.Selection.commandLineDefault); none: \
            every decode in this process) are decoded in sandboxed worker processes, so that a decoder \
            that crashes or hangs on a file fails that file, not the command.
            """,
        subcommands: [
            InfoCommand.self, ConvertCommand.self, ThumbnailCommand.self, FetchCommand.self, PlayCommand.self, ShowCommand.self,
            CacheCommand.self, ServeCommand.self, SignCommand.self
        ]
    )

    /// A decoder worker (`imago --imago-decoder-worker`, started by a command that decodes an
    /// isolated format) runs and exits before anything else starts; any other start parses the
    /// command line.
    static func main() {
        ProcessStart.prepare()
        DecoderWorker.runIfRequested()
        main(nil)
    }
}
