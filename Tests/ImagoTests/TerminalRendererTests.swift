// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoAnimation
import ImagoCommandLine
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("Terminal rendering: half-blocks and the kitty graphics protocol")
struct TerminalRendererTests {
    static func solid(_ w: Int, _ h: Int, top: RGBA8, bottom: RGBA8) throws -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<h {
            for _ in 0..<w {
                let c = y < h / 2 ? top : bottom
                bytes += [c.r, c.g, c.b, c.a]
            }
        }
        return try PixelBuffer(width: w, height: h, format: .rgba8, bytes: bytes)
    }

    @Test("half-blocks: one cell per column and two pixel rows, foreground the top pixel, background the bottom")
    func halfBlocks() throws {
        let renderer = TerminalRenderer(width: 4, output: .halfBlocks)
        let text = try renderer.encode(try Self.solid(4, 2, top: RGBA8(r: 255, g: 0, b: 0), bottom: RGBA8(r: 0, g: 0, b: 255)))
        #expect(text == "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀▀▀▀\u{1B}[0m\n")
        // Larger than the width: scaled down, keeping the aspect ratio.
        #expect(renderer.targetSize(for: PixelSize(width: 40, height: 20)) == PixelSize(width: 4, height: 2))
        #expect(renderer.targetSize(for: PixelSize(width: 2, height: 2)) == PixelSize(width: 2, height: 2))
    }

    @Test("kitty: RGBA in base64, split into chunks of at most 4096 bytes, the previous frame deleted first")
    func kitty() throws {
        let renderer = TerminalRenderer(width: 64, output: .kitty)
        let pixels = try Self.solid(64, 40, top: RGBA8(r: 1, g: 2, b: 3), bottom: RGBA8(r: 4, g: 5, b: 6))
        let text = try renderer.encode(pixels)
        #expect(text.hasPrefix("\u{1B}_Ga=d,d=i,i=1,q=2\u{1B}\\\u{1B}_Ga=T,f=32,s=64,v=40,i=1,q=2,m=1;"))
        let chunks = text.components(separatedBy: "\u{1B}_G").dropFirst(2).map { $0.components(separatedBy: ";").last ?? "" }
            .map { $0.replacingOccurrences(of: "\u{1B}\\", with: "").trimmingCharacters(in: .newlines) }
        let encodedLength = (pixels.bytes.count + 2) / 3 * 4
        #expect(chunks.allSatisfy { $0.count <= 4096 } && chunks.count == (encodedLength + 4095) / 4096)
        #expect(Data(base64Encoded: chunks.joined()) == Data(pixels.bytes))
        #expect(text.contains("m=0;"))
    }
}
