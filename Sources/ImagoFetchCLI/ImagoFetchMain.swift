// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import Imago
import ImagoCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `imago-fetch` executable: the commands of `imago` that load URLs, which `imago` hands
/// over to it (`fetch`, and `play` and `show` of an http(s) URL). It links the network stack
/// that `imago` leaves out.
@main
struct ImagoFetchMain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imago",
        abstract: "The network side of imago: fetch, and play or show a URL.",
        subcommands: [FetchCommand.self, PlayURLCommand.self, ShowURLCommand.self],
        defaultSubcommand: FetchCommand.self
    )

    /// A decoder worker (started by a command that decodes an isolated format,
    /// IMAGO_ISOLATED_FORMATS) runs and exits before anything else starts.
    static func main() async {
        ProcessStart.prepare()
        DecoderWorker.runIfRequested()
        await main(nil)
    }
}

/// Loads one URL through the shared manager (the default disk cache, the environment's
/// proxies), lazily for animations.
func loadForTerminal(_ text: String, firstFrameOnly: Bool) async throws -> Image {
    guard let url = URL(string: text), url.scheme != nil else { throw ValidationError("'\(text)' is not a URL") }
    var downloads = ImageDownloaderConfiguration()
    downloads.proxies = .environment()
    var configuration = ImageManager.Configuration(
        memoryCache: nil, dataCache: try DiskCache(directory: DiskCache.defaultDirectory), downloader: ImageDownloader(configuration: downloads))
    configuration.decoderIsolation = try CLIDecoders.isolation(workers: 1)
    let manager = ImageManager(configuration: configuration)
    var request = ImageRequest(url: url)
    request.frames = firstFrameOnly ? .first : .lazy
    request.options.insert(.waitStoreCache)
    let result = try await manager.loadImage(with: request)
    try? await manager.downloader.shutdown()
    return result.image
}

struct PlayURLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: "Play an animation from a URL in the terminal.")

    @Argument(help: "An image URL (or file).")
    var source: String

    @OptionGroup var playback: PlaybackArguments

    func run() async throws {
        do {
            let image = try await loadForTerminal(source, firstFrameOnly: false)
            try TerminalPlayback.play(image, width: playback.width, loops: playback.loops, rate: playback.rate, mode: try playback.playbackMode())
        } catch let e as ValidationError {
            throw e
        } catch {
            throw CLIFailure.exit(error, file: source)
        }
    }
}

struct ShowURLCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Draw an image from a URL in the terminal.")

    @Argument(help: "An image URL (or file).")
    var source: String

    @Option(help: "Columns to use. Default: the terminal's width.")
    var width: Int?

    func run() async throws {
        do {
            let image = try await loadForTerminal(source, firstFrameOnly: true)
            try TerminalPlayback.show(image.applyingOrientation(), width: width)
        } catch {
            throw CLIFailure.exit(error, file: source)
        }
    }
}
