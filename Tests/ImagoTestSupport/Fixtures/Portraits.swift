// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore

/// Pictures that a Debian package ships, for the face tests: scikit-image's sample data
/// (python3-skimage, which `scripts/bootstrap` installs). `astronaut.png` is NASA's portrait of
/// Eileen Collins (512×512, public domain); the others have no human face.
public enum Portraits {
    /// scikit-image's data folder.
    public static let folder = URL(fileURLWithPath: "/usr/lib/python3/dist-packages/skimage/data")

    /// Whether the sample data is installed.
    public static let isAvailable = FileManager.default.fileExists(atPath: folder.appendingPathComponent("astronaut.png").path)

    /// The reason shown when the face tests are skipped.
    public static let missingReason: Comment = "scikit-image's sample data not found at \(folder.path) (apt-get install python3-skimage)"

    /// The bytes of a sample file (`"astronaut.png"`).
    public static func data(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }

    /// Where the astronaut's face is in `astronaut.png`: the box OpenCV's frontal-face cascade
    /// finds at full size (x 177, y 67, 93×93), which covers her eyes, nose and mouth.
    public static let astronautFace = (x: 177, y: 67, width: 93, height: 93)

    /// A sample decoded to RGBA.
    public static func picture(_ name: String) throws -> PixelBuffer {
        try ImageCoderRegistry.shared.decode(try data(name), options: DecodeOptions(pixelFormat: .rgba8)).buffer.converted(to: .rgba8)
    }

    /// `picture` pasted at (`x`, `y`) into a `width`×`height` canvas tiled with `background`,
    /// a row at a time (the tests build many canvases, in debug builds).
    public static func canvas(_ picture: PixelBuffer, at x: Int, _ y: Int, width: Int, height: Int, background: PixelBuffer) throws -> PixelBuffer {
        let bg = background.converted(to: .rgba8), pic = picture.converted(to: .rgba8)
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        bg.withUnsafeBytes { b in
            pic.withUnsafeBytes { p in
                bytes.withUnsafeMutableBytes { out in
                    guard let o = out.baseAddress, let bb = b.baseAddress, let pb = p.baseAddress else { return }
                    for row in 0..<height {
                        let line = o + row * width * 4
                        // The background's row, tiled across.
                        let source = bb + (row % bg.height) * bg.width * 4
                        var col = 0
                        while col < width {
                            let n = min(bg.width, width - col)
                            (line + col * 4).copyMemory(from: source, byteCount: n * 4)
                            col += n
                        }
                        // The picture's row over it, clipped to the canvas.
                        guard row >= y, row < y + pic.height else { continue }
                        let x0 = max(0, x), x1 = min(width, x + pic.width)
                        guard x1 > x0 else { continue }
                        (line + x0 * 4).copyMemory(from: pb + ((row - y) * pic.width + (x0 - x)) * 4, byteCount: (x1 - x0) * 4)
                    }
                }
            }
        }
        return try PixelBuffer(width: width, height: height, format: .rgba8, bytes: bytes)
    }
}
