// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Imago
import ImagoTestSupport
import Testing

@Suite("imago end to end: info's text, exact error lines, thumbnails, one frame, show, fetch of local URLs")
struct CLIEndToEndTests {
    /// Four 24×16 frames, 0.1 to 0.4 s, looping forever; a green column moves, so all differ.
    static func animation(in dir: URL) throws -> URL {
        let frames = try (0..<4).map { i -> ImageFrame in
            var bytes = try Fixtures.gradient(width: 24, height: 16).bytes
            for y in 0..<16 { bytes[(y * 24 + i * 5) * 4 + 1] = 255 }
            return ImageFrame(buffer: try PixelBuffer(width: 24, height: 16, format: .rgba8, bytes: bytes), duration: 0.1 * Double(i + 1))
        }
        let url = dir.appendingPathComponent("anim.gif")
        try ImageCoderRegistry.shared.encode(try Image(frames: frames, loopCount: 0), as: .gif).write(to: url)
        return url
    }

    /// A 30×20 PNG, with alpha, stored turned: EXIF orientation 6 (shown 20×30).
    static func turnedPNG(in dir: URL) throws -> URL {
        var image = Image(buffer: try Fixtures.gradient(width: 30, height: 20, alpha: true))
        image.orientation = .right
        let url = dir.appendingPathComponent("turned.png")
        try ImageCoderRegistry.shared.encode(image, as: .png, options: EncodeOptions(orientation: .writeEXIF)).write(to: url)
        return url
    }

    static func png(width: Int, height: Int) throws -> Data {
        try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: width, height: height)), as: .png)
    }

    @Test("info's text: an animation's frames, endless loop and each delay; --json gives the same numbers")
    func infoAnimation() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gif = try Self.animation(in: dir)
        let text = try await CLI.run(["info", gif.path])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = Set(text.stdout.split(separator: "\n").map(String.init))
        for line in [
            "format:        gif (image/gif)", "size:          24x16 (stored), 24x16 (displayed)", "orientation:   1",
            "frames:        4", "loop count:    forever", "durations (s): 0.100, 0.200, 0.300, 0.400"
        ] {
            #expect(lines.contains(line), "\(line) in \(text.stdout)")
        }
        let json = try await CLI.run(["info", gif.path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["frameCount"] as? Int == 4 && object["loopCount"] as? Int == 0)
        let durations = try #require(object["durations"] as? [Double])
        #expect(durations.count == 4 && zip(durations, [0.1, 0.2, 0.3, 0.4]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(durations)")
    }

    @Test("info's text: a still's stored and displayed sizes, one play, alpha, depth, no profile, not interlaced")
    func infoStill() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try Self.turnedPNG(in: dir)
        let text = try await CLI.run(["info", png.path])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = Set(text.stdout.split(separator: "\n").map(String.init))
        for line in [
            "format:        png (image/png)", "size:          30x20 (stored), 20x30 (displayed)", "orientation:   6",
            "frames:        1", "loop count:    1", "durations (s): 0.000", "alpha:         yes", "bit depth:     8",
            "ICC profile:   no", "progressive:   no"
        ] {
            #expect(lines.contains(line), "\(line) in \(text.stdout)")
        }
        #expect(!text.stdout.contains("blurhash:") && !text.stdout.contains("faces:"))
    }

    @Test("failures are exactly 'imago: INPUT: cause': a missing file, an unknown format, no extension, a missing folder")
    func errorLines() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.png"), missing = dir.appendingPathComponent("missing.png").path
        try Self.png(width: 8, height: 8).write(to: input)
        let bare = dir.appendingPathComponent("out").path
        let cases: [([String], String)] = [
            (["info", missing], "imago: \(missing): no such file\n"),
            (["show", missing], "imago: \(missing): no such file\n"),
            (["convert", missing, bare + ".png"], "imago: \(missing): no such file\n"),
            (["convert", input.path, bare, "--format", "nope"], "imago: \(input.path): invalid argument: unknown output format 'nope'\n"),
            (["convert", input.path, bare], "imago: \(input.path): invalid argument: cannot tell the output format from '\(bare)'; pass --format\n")
        ]
        for (arguments, line) in cases {
            let r = try await CLI.run(arguments)
            #expect(r.status == 1 && r.stderr == line && r.stdout.isEmpty, "\(arguments): \(r.stderr)")
        }
        let unwritable = dir.appendingPathComponent("no/such/out.png").path
        let r = try await CLI.run(["convert", input.path, unwritable])
        #expect(r.status == 1 && r.stderr.hasPrefix("imago: \(input.path): cannot write \(unwritable): "), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.png"])
    }

    @Test("convert --format takes an extension in any case as a format name")
    func formatAlias() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.png"), out = dir.appendingPathComponent("out.bin")
        try Self.png(width: 16, height: 12).write(to: input)
        let r = try await CLI.run(["convert", input.path, out.path, "--format", "JPG"])
        #expect(r.status == 0, "\(r.stderr)")
        let info = try ImageCoderRegistry.shared.info(of: Data(contentsOf: out))
        #expect(info.format == .jpeg && info.pixelSize == PixelSize(width: 16, height: 12))
    }

    @Test("thumbnail never enlarges a small image, and skips hidden files and folders inside a folder")
    func thumbnailSmallAndHidden() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = dir.appendingPathComponent("photos"), hidden = photos.appendingPathComponent(".cache")
        try FileManager.default.createDirectory(at: hidden, withIntermediateDirectories: true)
        let small = try Self.png(width: 40, height: 30)
        for name in ["small.png", ".dot.png", ".cache/inner.png"] {
            try small.write(to: photos.appendingPathComponent(name))
        }
        let out = dir.appendingPathComponent("out")
        let r = try await CLI.run(["thumbnail", photos.path, "--size", "500", "--output", out.path])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.stdout == "1 thumbnails written to \(out.path), 0 failed\n", "\(r.stdout)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: out.path).sorted() == ["photos", "photos/small.png"])
        let info = try ImageCoderRegistry.shared.info(of: Data(contentsOf: out.appendingPathComponent("photos/small.png")))
        #expect(info.pixelSize == PixelSize(width: 40, height: 30))
    }

    @Test("convert --frame N of a GIF writes that frame, composited, as a still")
    func frameOfAnimation() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gif = try Self.animation(in: dir)
        let out = dir.appendingPathComponent("frame2.png")
        let r = try await CLI.run(["convert", gif.path, out.path, "--frame", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let source = try ImageCoderRegistry.shared.decode(try Data(contentsOf: gif))
        let written = try ImageCoderRegistry.shared.decode(try Data(contentsOf: out))
        #expect(written.frameCount == 1 && written.pixelSize == PixelSize(width: 24, height: 16))
        let third = try source.frame(at: 2).buffer, first = try source.frame(at: 0).buffer
        #expect(Fixtures.difference(written.buffer, third).max <= 1)
        #expect(Fixtures.difference(written.buffer, first).max > 100)
    }

    @Test(
        "show draws the image upright: a turned 30x20 PNG is 15 rows of 20 half-blocks",
        .enabled(if: ProcessInfo.processInfo.environment["KITTY_WINDOW_ID"] == nil, "kitty's protocol would be used"))
    func showUpright() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try Self.turnedPNG(in: dir)
        let r = try await CLI.run(["show", png.path, "--width", "40"], environment: ["TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = r.stdout.split(separator: "\n")
        #expect(rows.count == 15, "\(rows.count) rows")
        #expect(rows.allSatisfy { row in row.filter { $0 == "▀" }.count == 20 })
    }

    @Test("fetch of local files and a data URL: bytes saved as they came, one name numbered, the data URL named by its place")
    func fetchLocal() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let x = dir.appendingPathComponent("x/a.png"), y = dir.appendingPathComponent("y/a.png")
        for url in [x, y] {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let first = try Self.png(width: 20, height: 10), second = try Self.png(width: 12, height: 6)
        try first.write(to: x)
        try second.write(to: y)
        let data = "data:image/png;base64," + first.base64EncodedString()
        let out = dir.appendingPathComponent("out"), cache = dir.appendingPathComponent("cache").path
        let r = try await CLI.run(["fetch", x.path, y.path, data, "--cache-dir", cache, "--output", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("3 of 3 URLs loaded"), "\(r.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["a-2.png", "a.png", "image-3.png"])
        let saved = Set(try ["a.png", "a-2.png"].map { try Data(contentsOf: out.appendingPathComponent($0)) })
        #expect(saved == [first, second])
        #expect(try Data(contentsOf: out.appendingPathComponent("image-3.png")) == first)

        let gone = dir.appendingPathComponent("gone.png").path
        let failed = try await CLI.run(["fetch", gone, "--cache-dir", cache])
        #expect(failed.status == 1 && failed.stderr.hasPrefix("imago: \(gone): "), "\(failed.stderr)")
        #expect(failed.stdout.contains("0 of 1 URLs loaded"), "\(failed.stdout)")
    }

    @Test(
        "SVG's systemLanguage matches English under the C locale, as browsers match it; a locale that names a language is kept",
        .enabled(if: SVGCoder().canDecode(.svg), "librsvg is not installed"))
    func svgLanguage() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("switch.svg"), out = dir.appendingPathComponent("out.png")
        try Data(
            """
            <svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><switch>\
            <rect systemLanguage="en" width="8" height="8" fill="#00ff00"/><rect systemLanguage="ru" width="8" height="8" fill="#0000ff"/>\
            <rect width="8" height="8" fill="#ff0000"/></switch></svg>
            """.utf8
        ).write(to: input)
        let locales: [([String: String], RGBA8)] = [
            (["LANG": "C.UTF-8"], RGBA8(r: 0, g: 255, b: 0, a: 255)),
            (["LANG": "", "LC_ALL": "POSIX"], RGBA8(r: 0, g: 255, b: 0, a: 255)),
            (["LANG": "ru_RU.UTF-8"], RGBA8(r: 0, g: 0, b: 255, a: 255)),
            (["LANG": "C.UTF-8", "LANGUAGE": "ru"], RGBA8(r: 0, g: 0, b: 255, a: 255))
        ]
        for (environment, expected) in locales {
            let unset = ["LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""]
            let r = try await CLI.run(["convert", input.path, out.path], environment: unset.merging(environment) { $1 })
            #expect(r.status == 0, "\(r.stderr)")
            let image = try ImageCoderRegistry.shared.decode(Data(contentsOf: out))
            #expect(image.frames[0].buffer.color(atX: 4, y: 4) == expected, "\(environment)")
        }
    }
}
