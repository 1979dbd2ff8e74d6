// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoCache
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
        subcommands: [
            InfoCommand.self, ConvertCommand.self, ThumbnailCommand.self, FetchCommand.self, PlayCommand.self, ShowCommand.self,
            CacheCommand.self, ServeCommand.self, SignCommand.self
        ]
    )
}
