// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoCLIGlue
package import ImagoAnimation
import ImagoCoders
package import ImagoCore
import ImagoProcessing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Draws images in a terminal: truecolor ANSI half-blocks (two pixel rows per character cell)
/// anywhere, or the kitty graphics protocol where the terminal speaks it.
package final class TerminalRenderer: @unchecked Sendable {
    // Mutable state is touched by one frame at a time (the player's handler is serial).

    /// How pixels reach the terminal.
    package enum Output: String, Sendable {
        /// `▀` cells with 24-bit foreground and background colours.
        case halfBlocks
        /// kitty's graphics protocol (RGBA pixels, base64 in APC escapes).
        case kitty
    }

    /// The protocol in use.
    package let kind: Output
    /// Character cells across.
    package let columns: Int
    /// Character rows available.
    package let rows: Int
    private var startedAnimation = false

    /// Creates a renderer for standard output.
    ///
    /// - Parameters:
    ///   - width: Columns to use; default the terminal's width (`COLUMNS`, else 80 when not a terminal).
    ///   - output: Default: kitty's when `KITTY_WINDOW_ID` is set or `TERM` is `xterm-kitty`, else half-blocks.
    package init(width: Int? = nil, output kind: Output? = nil) {
        var cols: Int32 = 0, lines: Int32 = 0
        let env = ProcessInfo.processInfo.environment
        if imago_terminal_size(STDOUT_FILENO, &cols, &lines) != 0 {
            cols = Int32(env["COLUMNS"].flatMap { Int32($0) } ?? 80)
            lines = Int32(env["LINES"].flatMap { Int32($0) } ?? 24)
        }
        columns = max(1, width ?? Int(cols))
        rows = max(2, Int(lines) - 1)
        let kitty = env["KITTY_WINDOW_ID"] != nil || env["TERM"] == "xterm-kitty"
        self.kind = kind ?? (kitty ? .kitty : .halfBlocks)
    }

    /// The pixel size a `size` image is drawn at: it fits `columns` × 2·`rows` pixels (one
    /// column and half a row per pixel), keeping the aspect ratio, never larger than it is.
    package func targetSize(for size: PixelSize) -> PixelSize {
        let scale = min(1, Double(columns) / Double(size.width), Double(rows * 2) / Double(size.height))
        return PixelSize(
            width: max(1, Int((Double(size.width) * scale).rounded())),
            height: max(1, Int((Double(size.height) * scale).rounded())))
    }

    /// The escape sequence that draws `buffer` (the `rect` of it, for sprite sheets) at the cursor.
    ///
    /// - Throws: resampling errors.
    package func encode(_ buffer: PixelBuffer, rect: FrameRect? = nil) throws -> String {
        var pixels = buffer.converted(to: .rgba8)
        if let r = rect {
            pixels = try ImageTransformers.Crop(x: r.x, y: r.y, width: r.width, height: r.height).transform(pixels).converted(to: .rgba8)
        }
        let target = targetSize(for: pixels.size)
        if target != pixels.size {
            pixels = try Resampler.resize(pixels.converted(to: .argb32Premultiplied), to: target).converted(to: .rgba8)
        }
        return kind == .kitty ? kittyImage(pixels) : halfBlocks(pixels)
    }

    private func halfBlocks(_ p: PixelBuffer) -> String {
        var out = ""
        out.reserveCapacity(p.width * p.height * 20)
        func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            guard y < p.height, let c = p.color(atX: x, y: y) else { return (0, 0, 0) }
            // Over black: the terminal's background is unknown.
            let a = Int(c.a)
            return (Int(c.r) * a / 255, Int(c.g) * a / 255, Int(c.b) * a / 255)
        }
        var y = 0
        while y < p.height {
            var lastFG: (Int, Int, Int)? = nil, lastBG: (Int, Int, Int)? = nil
            for x in 0..<p.width {
                let top = rgb(x, y), bottom = rgb(x, y + 1)
                if lastFG.map({ $0 != top }) ?? true {
                    out += "\u{1B}[38;2;\(top.0);\(top.1);\(top.2)m"
                    lastFG = top
                }
                if lastBG.map({ $0 != bottom }) ?? true {
                    out += "\u{1B}[48;2;\(bottom.0);\(bottom.1);\(bottom.2)m"
                    lastBG = bottom
                }
                out += "▀"
            }
            out += "\u{1B}[0m\n"
            y += 2
        }
        return out
    }

    private func kittyImage(_ p: PixelBuffer) -> String {
        // Tight rows of RGBA, as the protocol's f=32 wants them.
        var bytes = Data(capacity: p.width * p.height * 4)
        for y in 0..<p.height {
            bytes.append(contentsOf: p.bytes[(y * p.bytesPerRow)..<(y * p.bytesPerRow + p.width * 4)])
        }
        let payload = bytes.base64EncodedString()
        var out = "\u{1B}_Ga=d,d=i,i=1,q=2\u{1B}\\"  // drop the previous frame
        var offset = payload.startIndex
        var first = true
        while offset < payload.endIndex {
            let end = payload.index(offset, offsetBy: 4096, limitedBy: payload.endIndex) ?? payload.endIndex
            let more = end < payload.endIndex ? 1 : 0
            let header = first ? "a=T,f=32,s=\(p.width),v=\(p.height),i=1,q=2,m=\(more)" : "m=\(more)"
            out += "\u{1B}_G\(header);\(payload[offset..<end])\u{1B}\\"
            offset = end
            first = false
        }
        return out + "\n"
    }

    /// Draws a still.
    package func show(_ buffer: PixelBuffer) throws {
        Console.output(try encode(buffer))
    }

    /// Draws one frame of an animation over the previous one (cursor home, hidden cursor).
    package func showFrame(_ frame: AnimatedImagePlayer.Frame) throws {
        var text = startedAnimation ? "\u{1B}[H" : "\u{1B}[?25l\u{1B}[2J\u{1B}[H"
        startedAnimation = true
        text += try encode(frame.buffer, rect: frame.contentsRect)
        Console.output(text)
    }

    /// Puts the terminal back: attributes reset, cursor shown.
    package static func restore() {
        Console.output("\u{1B}[0m\u{1B}[?25h")
    }
}
