// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import CImagoCLIGlue
import ImagoAnimation
import ImagoCoders
import ImagoCommandLine
import ImagoCore

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Whether a command's source names an http(s) URL, which `imago-fetch` handles.
func isNetworkSource(_ source: String) -> Bool {
    let lower = source.lowercased()
    return lower.hasPrefix("http://") || lower.hasPrefix("https://")
}

/// Runs the same command in `imago-fetch`, which can load URLs.
func handOverToFetcher() -> Never {
    handOver(to: "imago-fetch")
}

/// Replaces this process with the executable `name` beside it, given this command line from the
/// subcommand on.
func handOver(to name: String) -> Never {
    let error = imago_exec_sibling(name, CommandLine.argc, CommandLine.unsafeArgv, 1)
    Console.error("imago: cannot run \(name) beside imago (errno \(error)); build it with `swift build --product \(name)`\n")
    Glibc.exit(1)
}

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play an animation in the terminal (truecolor half-blocks, or kitty graphics).",
        discussion:
            "Frames are decoded ahead into a buffer sized from free memory, timed by the player; Ctrl-C stops and restores the terminal. URLs are loaded through imago-fetch."
    )

    @Argument(help: "An image file, or an http(s) URL.")
    var source: String

    @OptionGroup var playback: PlaybackArguments

    func run() throws {
        if isNetworkSource(source) { handOverToFetcher() }
        do {
            // Decoded here, not in a worker (which would decode every frame at once): frames are
            // decoded as the player needs them.
            let image = try ImageCoderRegistry.shared.decode(try CLIFailure.read(source), options: DecodeOptions(decodesFramesLazily: true))
            try TerminalPlayback.play(image, width: playback.width, loops: playback.loops, rate: playback.rate, mode: try playback.playbackMode())
        } catch {
            throw CLIFailure.exit(error, file: source)
        }
    }
}

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Draw an image in the terminal (its first frame for an animation).",
        discussion: "URLs are loaded through imago-fetch."
    )

    @Argument(help: "An image file, or an http(s) URL.")
    var source: String

    @Option(help: "Columns to use. Default: the terminal's width.")
    var width: Int?

    func run() throws {
        if isNetworkSource(source) { handOverToFetcher() }
        do {
            let data = try CLIFailure.read(source)
            let image = try CLIDecoders.registry(for: ImageFormat(sniffing: data)).decode(data, options: DecodeOptions(firstFrameOnly: true))
            try TerminalPlayback.show(image.applyingOrientation(), width: width)
        } catch {
            throw CLIFailure.exit(error, file: source)
        }
    }
}
