// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Imago
import ImagoTestSupport
import Testing

@Suite("imago convert --all-frames and --frames: every page or frame to a file of its own, as --frame writes it")
struct CLIFramesTests {
    /// The files in `dir` whose names start with `prefix`, sorted.
    private func written(_ dir: URL, _ prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(prefix) }.sorted()
    }

    @Test(
        "every page of a PDF, side by side in sandboxed workers, is the page --frame writes; numbers padded to the count",
        .enabled(if: PDFCoder().canDecode(.pdf), "libImagoPDF or poppler is missing"))
    func pdfPages() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("doc.pdf")
        // 11 pages, so the numbers take two digits; each page a different size.
        try TestPDF.make(pages: (0..<11).map { (width: 40 + $0 * 3, height: 30 + $0, rotate: $0 == 4 ? 90 : 0) }).write(to: input)
        let all = try await CLI.run(["convert", "--all-frames", "--dpi", "144", input.path, dir.appendingPathComponent("page.png").path])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(try written(dir, "page") == (0..<11).map { String(format: "page-%02d.png", $0) })
        for index in [0, 4, 10] {
            let single = dir.appendingPathComponent("single-\(index).png")
            let r = try await CLI.run(["convert", "--frame", "\(index)", "--dpi", "144", input.path, single.path])
            #expect(r.status == 0, "\(r.stderr)")
            let page = try Data(contentsOf: dir.appendingPathComponent(String(format: "page-%02d.png", index)))
            #expect(page == (try Data(contentsOf: single)), "page \(index)")
        }
        // Page 4 is turned a quarter: 30 + 4 points wide at 2x.
        let turned = try ImageCoderRegistry.shared.info(of: try Data(contentsOf: dir.appendingPathComponent("page-04.png")))
        #expect(turned.pixelSize == PixelSize(width: 68, height: 104))
    }

    @Test(
        "--frames takes numbers and ranges in any order, each once; a thumbnail of one page is that page's",
        .enabled(if: PDFCoder().canDecode(.pdf), "libImagoPDF or poppler is missing"))
    func chosenPages() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("doc.pdf")
        try TestPDF.make(pages: (0..<5).map { (width: 100 + $0 * 20, height: 50, rotate: 0) }).write(to: input)
        let r = try await CLI.run(["convert", "--frames", "3,0-1,1", "--thumbnail", "60", input.path, dir.appendingPathComponent("p.jpg").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try written(dir, "p-") == ["p-0.jpg", "p-1.jpg", "p-3.jpg"])
        // Page 3 is 160x50 points: its 60-pixel thumbnail is 60 wide.
        let third = try ImageCoderRegistry.shared.info(of: try Data(contentsOf: dir.appendingPathComponent("p-3.jpg")))
        #expect(third.pixelSize == PixelSize(width: 60, height: 19))
        // --frame with --thumbnail decodes that page alone (it used to be refused as out of range).
        let one = dir.appendingPathComponent("one.jpg")
        let single = try await CLI.run(["convert", "--frame", "3", "--thumbnail", "60", input.path, one.path])
        #expect(single.status == 0, "\(single.stderr)")
        #expect(try Data(contentsOf: one) == (try Data(contentsOf: dir.appendingPathComponent("p-3.jpg"))))
    }

    @Test("a TIFF's pages each at its own size, as --frame writes them", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func tiffPages() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 640x480 photo and its 160x120 EXIF thumbnail, as two pages.
        let tiff = Corpus.url("image-tiff/libtiffpic/dscf0013.tif")
        let r = try await CLI.run(["convert", "--all-frames", tiff.path, dir.appendingPathComponent("t.png").path])
        #expect(r.status == 0, "\(r.stderr)")
        let sizes = try ["t-0.png", "t-1.png"].map { try ImageCoderRegistry.shared.info(of: Data(contentsOf: dir.appendingPathComponent($0))).pixelSize }
        #expect(sizes == [PixelSize(width: 640, height: 480), PixelSize(width: 160, height: 120)])
    }

    @Test("an animation's frames from one decode, each the frame --frame writes")
    func animationFrames() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gif = try CLIEndToEndTests.animation(in: dir)
        let all = try await CLI.run(["convert", "--all-frames", gif.path, dir.appendingPathComponent("f.png").path])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(try written(dir, "f-") == ["f-0.png", "f-1.png", "f-2.png", "f-3.png"])
        for index in 0..<4 {
            let single = dir.appendingPathComponent("s\(index).png")
            let r = try await CLI.run(["convert", "--frame", "\(index)", gif.path, single.path])
            #expect(r.status == 0, "\(r.stderr)")
            let a = try ImageCoderRegistry.shared.decode(try Data(contentsOf: single)).buffer
            let b = try ImageCoderRegistry.shared.decode(try Data(contentsOf: dir.appendingPathComponent("f-\(index).png"))).buffer
            #expect(a == b, "frame \(index)")
        }
    }

    @Test("bad lists, frames past the end and mixed choices are refused with what was wrong")
    func refusals() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gif = try CLIEndToEndTests.animation(in: dir)
        let out = dir.appendingPathComponent("x.png").path
        for list in ["1-x", "3-1", "", "1,,2", "0-99999999", "-1"] {
            let r = try await CLI.run(["convert", "--frames", list, gif.path, out])
            #expect(r.status == 64, "\(list): \(r.stderr)")
            // "-1" reads as an option: the value is then missing.
            #expect(r.stderr.contains("for '--frames <frames>'"), "\(list): \(r.stderr)")
        }
        for mixed in [["--frames", "1", "--frame", "0"], ["--all-frames", "--first-frame"], ["--all-frames", "--frames", "1"]] {
            let r = try await CLI.run(["convert"] + mixed + [gif.path, out])
            #expect(r.status == 64, "\(mixed): \(r.stderr)")
            #expect(r.stderr.contains("choose one of --frame, --first-frame, --frames and --all-frames"), "\(mixed): \(r.stderr)")
        }
        // Pages that fail are each reported, and the others still written.
        let document = dir.appendingPathComponent("doc.pdf")
        try TestPDF.make(pages: (0..<3).map { _ in (width: 20, height: 20, rotate: 0) }).write(to: document)
        let nowhere = dir.appendingPathComponent("missing/p.png").path
        if PDFCoder().canDecode(.pdf) {
            let failing = try await CLI.run(["convert", "--all-frames", document.path, nowhere])
            #expect(failing.status == 1)
            let lines = failing.stderr.split(separator: "\n").map(String.init)
            #expect(lines.count == 3 && (0..<3).allSatisfy { i in lines[i].hasPrefix("imago: \(document.path): frame \(i): ") }, "\(failing.stderr)")
        }
        let past = try await CLI.run(["convert", "--frames", "2,7", gif.path, out])
        #expect(past.status == 1)
        #expect(past.stderr == "imago: \(gif.path): invalid argument: frame 7 is out of range: the image has 4 frame(s) or page(s)\n")
        #expect(try written(dir, "x-").isEmpty, "nothing is written when a frame is past the end")
    }
}
