// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// `imago play` in a real terminal: tmux runs it, the test reads the pane.
@Suite(
    "imago play and show in tmux", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (scripts/bootstrap installs it)"))
struct PlayTerminalTests {
    /// A tmux server of the test's own, so nothing else's sessions are touched.
    static let socket = "imago-test-\(getpid())"

    /// Runs tmux and waits for it with `waitpid` (`Subprocess`, no Dispatch): its standard output
    /// when `capture`, else nothing. That also reaps the client that starts the server, whose exit
    /// Foundation's `Process` never sees once it has forked the server. The child starts with an
    /// empty signal mask and default handlers, so the server hears kill-server's hangups and does
    /// not outlive the test.
    static func tmux(_ args: [String], capture: Bool = true) throws -> String {
        let argv = ["-L", socket] + args
        guard capture else {
            _ = try Subprocess.wait(Subprocess.spawn("/usr/bin/tmux", argv))
            return ""
        }
        return try Subprocess.capture("/usr/bin/tmux", argv).output
    }

    /// Six frames of solid colours, 0.25 s each, looping forever.
    static func animation(in dir: URL) throws -> URL {
        let colors: [RGBA8] = [
            RGBA8(r: 255, g: 0, b: 0), RGBA8(r: 0, g: 255, b: 0), RGBA8(r: 0, g: 0, b: 255),
            RGBA8(r: 255, g: 255, b: 0), RGBA8(r: 0, g: 255, b: 255), RGBA8(r: 255, g: 0, b: 255)
        ]
        let frames = try colors.map { c -> ImageFrame in
            let bytes: [UInt8] = (0..<(16 * 16)).flatMap { _ -> [UInt8] in [c.r, c.g, c.b, 255] }
            return ImageFrame(buffer: try PixelBuffer(width: 16, height: 16, format: .rgba8, bytes: bytes), duration: 0.25)
        }
        let url = dir.appendingPathComponent("colors.gif")
        try ImageCoderRegistry.shared.encode(try Image(frames: frames, loopCount: 0), as: .gif).write(to: url)
        return url
    }

    @Test("frames change on screen while it plays; Ctrl-C stops it and shows the cursor again; show draws a still")
    func playInTmux() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gif = try Self.animation(in: dir)
        let session = "imago-play-\(getpid())"
        _ = try Self.tmux(
            ["new-session", "-d", "-s", session, "-x", "80", "-y", "30", "env TERM=xterm-256color bash --norc --noprofile"],
            capture: false)
        defer { _ = try? Self.tmux(["kill-server"], capture: false) }
        try await Task.sleep(for: .milliseconds(300))
        _ = try Self.tmux(["send-keys", "-t", session, "\(CLI.executable.path) play \(gif.path) --width 16", "Enter"])
        var screens = Set<String>()
        var hidden = false
        for _ in 0..<12 {
            try await Task.sleep(for: .milliseconds(150))
            screens.insert(try Self.tmux(["capture-pane", "-p", "-e", "-t", session]))
            if try Self.tmux(["display", "-p", "-t", session, "#{cursor_flag}"]).hasPrefix("0") { hidden = true }
        }
        #expect(screens.count >= 3, "\(screens.count) different screens in 1.8 s")
        #expect(hidden, "the cursor was hidden while playing")
        #expect(screens.contains { $0.contains("38;2;255;0;0") || $0.contains("38;5;196") || $0.contains("[31") || $0.contains("▀") })
        _ = try Self.tmux(["send-keys", "-t", session, "C-c"])
        try await Task.sleep(for: .milliseconds(500))
        #expect(try Self.tmux(["display", "-p", "-t", session, "#{cursor_flag}"]).hasPrefix("1"), "the cursor is shown again")
        #expect(try Self.tmux(["display", "-p", "-t", session, "#{pane_current_command}"]).hasPrefix("bash"), "imago has exited")

        // A finite run ends by itself and restores the terminal too.
        _ = try Self.tmux(["send-keys", "-t", session, "clear; \(CLI.executable.path) play \(gif.path) --width 8 --loops 1 --rate 4; echo done-$?", "Enter"])
        var finished = false
        for _ in 0..<40 where !finished {
            try await Task.sleep(for: .milliseconds(100))
            finished = try Self.tmux(["capture-pane", "-p", "-t", session]).contains("done-0")
        }
        #expect(finished)
        #expect(try Self.tmux(["display", "-p", "-t", session, "#{cursor_flag}"]).hasPrefix("1"))

        let still = try await CLI.run(["show", gif.path, "--width", "10"])
        #expect(still.status == 0 && still.stdout.split(separator: "\n").count == 5 && still.stdout.contains("▀"), "\(still.stdout)")
        #expect(try await CLI.run(["play", gif.path, "--mode", "sideways"]).status != 0)
    }
}
