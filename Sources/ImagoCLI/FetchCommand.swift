// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import CImagoCLIGlue
import ImagoCommandLine

/// `imago fetch` hands over to the `imago-fetch` executable beside this one, which links the
/// network stack (AsyncHTTPClient, SwiftNIO, BoringSSL). Keeping it out of `imago` keeps every
/// other command's start-up memory as it was: about 2 MB less, the margin by which Imago's
/// thumbnails beat Pillow's peak memory.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images from URLs through the cache (memory, then disk, then network) and save them.",
        discussion: "Runs the imago-fetch executable beside imago; `imago fetch --help` shows its options."
    )

    @Argument(parsing: .captureForPassthrough, help: "URLs and options, passed on to imago-fetch.")
    var arguments: [String] = []

    func run() throws {
        handOverToFetcher()
    }
}
