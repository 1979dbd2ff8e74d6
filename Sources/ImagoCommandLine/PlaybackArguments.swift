// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ArgumentParser
package import ImagoAnimation

/// The options `imago play` takes, shared by both executables.
package struct PlaybackArguments: ParsableArguments {
    /// Columns to use.
    @Option(help: "Columns to use. Default: the terminal's width.")
    package var width: Int?

    /// Loops to play.
    @Option(help: "Loops to play (0: until Ctrl-C). Default: the file's loop count.")
    package var loops: Int?

    /// Speed.
    @Option(help: "Speed: 2 is twice as fast.")
    package var rate: Double = 1

    /// Frame order.
    @Option(help: "Frame order: normal, reverse, bounce or reversed-bounce.")
    package var mode: String = "normal"

    package init() {}

    package func validate() throws {
        if let width, width < 1 { throw ValidationError("--width must be at least 1") }
        if let loops, loops < 0 { throw ValidationError("--loops must be 0 or more") }
        guard rate > 0 else { throw ValidationError("--rate must be positive") }
        _ = try playbackMode()
    }

    /// `--mode` as a playback mode.
    ///
    /// - Throws: `ValidationError` for an unknown name.
    package func playbackMode() throws -> AnimationPlaybackMode {
        switch mode.lowercased() {
        case "normal": return .normal
        case "reverse": return .reverse
        case "bounce": return .bounce
        case "reversed-bounce", "reversedbounce": return .reversedBounce
        default: throw ValidationError("unknown --mode '\(mode)': normal, reverse, bounce or reversed-bounce")
        }
    }
}
