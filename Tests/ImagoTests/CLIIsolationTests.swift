// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Imago
import ImagoTestSupport
import Testing

@Suite("imago and imago-fetch decode IMAGO_ISOLATED_FORMATS in sandboxed workers: a decoder's crash fails its file, not the command")
struct CLIIsolationTests {
    /// A filter whose flood lies outside the filter region, offset and tiled: librsvg 2.54 asserts
    /// on the empty tile and aborts the process (librsvg #928, fixed in 2.55.91).
    static let abortingSVG = Data(
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
          <filter id="f"><feFlood flood-color="blue" x="0" y="0" width="4" height="4"/><feOffset dx="2" dy="2"/><feTile/></filter>
          <rect x="16" y="16" width="32" height="32" filter="url(#f)"/>
        </svg>
        """.utf8)

    static let svgAvailable = SVGCoder().canDecode(.svg)

    @Test(
        "convert: the document that aborts librsvg in process fails with the decoder's error and status 1; a good SVG converts",
        .enabled(if: svgAvailable, "librsvg is not installed"))
    func crashFailsTheFile() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("tile.svg"), out = dir.appendingPathComponent("out.png")
        try Self.abortingSVG.write(to: input)
        let inProcess = try await CLI.run(["convert", input.path, out.path], environment: ["IMAGO_ISOLATED_FORMATS": "none"])
        let isolated = try await CLI.run(["convert", input.path, out.path])
        #expect(!isolated.crashed, "\(isolated.stderr)")
        if inProcess.crashed {
            // This librsvg aborts on it: only the worker does so now.
            #expect(isolated.status == 1)
            #expect(isolated.stderr.contains("imago: \(input.path): the svg decoder failed on this data: its process crashed (SIGABRT)"), "\(isolated.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        } else {
            // A librsvg with #928 fixed draws it, in the worker as in process.
            #expect(isolated.status == 0 && inProcess.status == 0, "\(isolated.stderr) \(inProcess.stderr)")
        }
        let good = dir.appendingPathComponent("good.svg")
        try Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="6"><rect width="10" height="6" fill="#f00"/></svg>"##.utf8).write(to: good)
        let converted = try await CLI.run(["convert", good.path, out.path])
        #expect(converted.status == 0, "\(converted.stderr)")
        let image = try ImageCoderRegistry.shared.decode(try Data(contentsOf: out))
        #expect(image.pixelSize == PixelSize(width: 10, height: 6) && image.frames[0].buffer.color(atX: 5, y: 3) == RGBA8(r: 255, g: 0, b: 0, a: 255))
    }

    @Test(
        "thumbnail: a folder with that document and two PNGs writes both PNGs' thumbnails and reports the one failure",
        .enabled(if: svgAvailable, "librsvg is not installed"))
    func batchGoesOn() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("in"), out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try Self.abortingSVG.write(to: source.appendingPathComponent("b-tile.svg"))
        for (name, width) in [("a", 40), ("c", 60)] {
            try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: width, height: 30)), as: .png)
                .write(to: source.appendingPathComponent("\(name).png"))
        }
        let inProcess = try await CLI.run(
            ["thumbnail", source.path, "--size", "20", "--output", out.path, "--jobs", "2"], environment: ["IMAGO_ISOLATED_FORMATS": "none"])
        let r = try await CLI.run(["thumbnail", source.path, "--size", "20", "--output", out.path, "--jobs", "2"])
        #expect(!r.crashed, "\(r.stderr)")
        #expect(try ImageCoderRegistry.shared.info(of: Data(contentsOf: out.appendingPathComponent("in/a.png"))).pixelSize == PixelSize(width: 20, height: 15))
        #expect(try ImageCoderRegistry.shared.info(of: Data(contentsOf: out.appendingPathComponent("in/c.png"))).pixelSize == PixelSize(width: 20, height: 10))
        if inProcess.crashed {
            #expect(r.status == 1 && r.stdout.contains("2 thumbnails written") && r.stdout.contains("1 failed"), "\(r.stdout)")
            #expect(r.stderr.contains("b-tile.svg: the svg decoder failed on this data"), "\(r.stderr)")
        } else {
            #expect(r.status == 0 && r.stdout.contains("3 thumbnails written"), "\(r.stdout) \(r.stderr)")
        }
    }

    @Test("info, placeholders and a resize give the same answers whether PNG, SVG and TIFF decode in a worker or in process")
    func sameAnswers() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var inputs: [URL] = []
        let image = Image(buffer: try Fixtures.gradient(width: 48, height: 32, alpha: true))
        for format in [ImageFormat.png, .tiff] {
            let url = dir.appendingPathComponent("g.\(format.preferredFileExtension)")
            try ImageCoderRegistry.shared.encode(image, as: format).write(to: url)
            inputs.append(url)
        }
        if Self.svgAvailable {
            let svg = dir.appendingPathComponent("c.svg")
            try Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><circle cx="20" cy="15" r="12" fill="#08f"/></svg>"##.utf8).write(
                to: svg)
            inputs.append(svg)
        }
        for input in inputs {
            for arguments in [
                ["info", input.path, "--json", "--placeholders"], ["convert", input.path, "--resize", "20x14", dir.appendingPathComponent("o.png").path]
            ] {
                let output = dir.appendingPathComponent("o.png")
                try? FileManager.default.removeItem(at: output)
                let local = try await CLI.run(arguments, environment: ["IMAGO_ISOLATED_FORMATS": "none"])
                let localBytes = try? Data(contentsOf: output)
                try? FileManager.default.removeItem(at: output)
                let isolated = try await CLI.run(arguments, environment: ["IMAGO_ISOLATED_FORMATS": "png,svg,tiff"])
                let isolatedBytes = try? Data(contentsOf: output)
                #expect(local.status == 0 && isolated.status == 0, "\(arguments): \(local.stderr) \(isolated.stderr)")
                #expect(local.stdout == isolated.stdout, "\(arguments)")
                #expect(localBytes == isolatedBytes, "\(arguments)")
            }
        }
    }

    @Test(
        "a PDF page of 8 megapixels, drawn in bands by the sandboxed worker's threads, is the page drawn in process",
        .enabled(if: PDFCoder().canDecode(.pdf), "libImagoPDF or poppler is missing"))
    func bandedPDF() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("text.pdf")
        try TestPDF.text().write(to: input)
        var pages: [PixelBuffer] = []
        for isolated in ["none", "pdf"] {
            let out = dir.appendingPathComponent("\(isolated).png")
            let r = try await CLI.run(["convert", input.path, "--dpi", "2000", out.path], environment: ["IMAGO_ISOLATED_FORMATS": isolated])
            #expect(r.status == 0, "\(r.stderr)")
            pages.append(try ImageCoderRegistry.shared.decode(try Data(contentsOf: out)).frames[0].buffer)
        }
        // 5556×1389: 3 bands.
        #expect(pages[0].size.width * pages[0].size.height >= 2 * PDFCoder.bandPixels, "\(pages[0].size)")
        #expect(pages[0] == pages[1])
    }

    @Test("a list that names no format is refused with the variable's name, by imago and imago-fetch alike")
    func badList() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("a.png")
        try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: 8, height: 8)), as: .png).write(to: png)
        let r = try await CLI.run(["convert", png.path, dir.appendingPathComponent("b.png").path], environment: ["IMAGO_ISOLATED_FORMATS": "png,bogus"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("IMAGO_ISOLATED_FORMATS: 'bogus' is not an image format, video or none"), "\(r.stderr)")
    }

    @Test(
        "imago-fetch: a fetched document that aborts librsvg fails its URL; the other URL is processed", .enabled(if: svgAvailable, "librsvg is not installed"))
    func fetchGoesOn() async throws {
        let server = try await TestHTTPServer.start()
        server.register("tile.svg", data: Self.abortingSVG, contentType: "image/svg+xml")
        server.register("a.png", data: try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: 40, height: 20)), as: .png))
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let urls = [server.url("/img/tile.svg").absoluteString, server.url("/img/a.png").absoluteString]
        func fetch(_ environment: [String: String]) async throws -> CLI.Result {
            let out = dir.appendingPathComponent("out-\(environment.count)"), cache = dir.appendingPathComponent("cache-\(environment.count)")
            return try await CLI.run(["fetch"] + urls + ["--cache-dir", cache.path, "--thumbnail", "10", "--output", out.path], environment: environment)
        }
        let inProcess = try await fetch(["IMAGO_ISOLATED_FORMATS": "none"])
        let r = try await fetch([:])
        await server.stop()
        #expect(!r.crashed, "\(r.stderr)")
        if inProcess.crashed {
            #expect(r.status == 1 && r.stdout.contains("1 of 2 URLs loaded"), "\(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("the svg decoder failed on this data"), "\(r.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out-0/a.png").path))
        } else {
            #expect(r.status == 0 && r.stdout.contains("2 of 2 URLs loaded"), "\(r.stdout) \(r.stderr)")
        }
    }
}
