// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Dispatch
package import ImagoAnimation
package import ImagoCore

#if canImport(Glibc)
import Glibc
#endif

/// `imago play` and `imago show`: an image drawn in the terminal, an animation played there by
/// `AnimatedImagePlayer` in real time. Ctrl-C restores the terminal.
package enum TerminalPlayback {
    /// Plays `image` until its loops end (or `loops` of them; 0 plays until Ctrl-C), at `rate`,
    /// in `mode`; a still is shown once.
    ///
    /// - Throws: the first frame's decoding errors.
    package static func play(_ image: Image, width: Int?, loops: Int?, rate: Double, mode: AnimationPlaybackMode) throws {
        let renderer = TerminalRenderer(width: width)
        guard image.frameCount > 1 else {
            try renderer.show(image.buffer)
            return
        }
        let player = try AnimatedImagePlayer(image: image)
        player.loopCountOverride = loops
        player.playbackRate = rate
        player.playbackMode = mode
        let restore = installInterruptHandler()
        defer {
            restore.cancel()
            TerminalRenderer.restore()
            Console.output("\n")
        }
        if let first = player.currentFrame { try renderer.showFrame(first) }
        player.setFrameHandler { frame in try? renderer.showFrame(frame) }
        player.play()
        while !player.isFinished { usleep(20_000) }
        player.stop()
    }

    /// Draws `image` (its first frame) once.
    ///
    /// - Throws: resampling errors.
    package static func show(_ image: Image, width: Int?) throws {
        try TerminalRenderer(width: width).show(image.buffer)
    }

    /// On SIGINT or SIGTERM: reset the colours, show the cursor, exit with 128 + the signal.
    private static func installInterruptHandler() -> any DispatchSourceSignal {
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        signal(SIGINT, SIG_IGN)
        source.setEventHandler {
            TerminalRenderer.restore()
            Console.output("\n")
            exit(130)
        }
        source.resume()
        return source
    }
}
