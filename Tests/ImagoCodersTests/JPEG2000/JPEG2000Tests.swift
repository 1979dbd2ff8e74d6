// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("JPEG 2000 (openjpeg)")
struct JPEG2000Tests {
    let coders = ImageCoderRegistry.makeDefault()

    /// `source` compressed losslessly by openjpeg's own `opj_compress` (libopenjp2-tools), as .jp2 or .j2k.
    /// The tool runs off the cooperative pool (``Subprocess``).
    static func fixture(_ source: Image, ext: String, in dir: URL) async throws -> Data? {
        let coders = ImageCoderRegistry.makeDefault()
        let tool = "/usr/bin/opj_compress"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let png = dir.appendingPathComponent("in.png"), out = dir.appendingPathComponent("out.\(ext)")
        try coders.encode(source, as: .png).write(to: png)
        let (status, _, _) = try await Subprocess.run(URL(fileURLWithPath: tool), ["-i", png.path, "-o", out.path])
        return status == 0 ? try Data(contentsOf: out) : nil
    }

    @Test("JP2 and J2K, RGB and RGBA, decode exactly what openjpeg's encoder was given; reduced levels shrink on load")
    func decode() async throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for alpha in [false, true] {
            let source = Image(buffer: try Fixtures.gradient(width: 160, height: 96, alpha: alpha))
            for ext in ["jp2", "j2k"] {
                let data = try #require(try await Self.fixture(source, ext: ext, in: dir), "opj_compress is missing: run scripts/bootstrap")
                #expect(ImageFormat(sniffing: data) == .jp2)
                let info = try coders.info(of: data)
                #expect(info.width == 160 && info.height == 96 && info.hasAlpha == alpha, "\(ext)")
                let image = try coders.decode(data)
                #expect(image.buffer == source.buffer.converted(to: .argb32Premultiplied), "\(ext) alpha=\(alpha)")
                let small = try coders.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40)))
                #expect(small.pixelSize == PixelSize(width: 40, height: 24), "\(ext)")
                #expect(throws: ImageCodingError.self) { _ = try coders.decode(data.prefix(data.count / 2)) }
            }
        }
        #expect(throws: ImageCodingError.self) { _ = try coders.decode(Data([0xFF, 0x4F, 0xFF, 0x51, 0, 0])) }
    }
}
