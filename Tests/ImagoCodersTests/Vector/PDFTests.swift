// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoCoders

/// PDF through poppler's Splash renderer in libImagoPDF: pages, sizes and /Rotate as pdftoppm
/// lays them out, encryption, limits, and pixels against pdftoppm.
@Suite("PDF", .enabled(if: PDFCoder().canDecode(.pdf), "libImagoPDF or poppler is missing (swift build; scripts/bootstrap installs poppler)"))
struct PDFTests {
    static let coder = PDFCoder()

    /// A PDF made here: `pages` pages of `width`×`height` pt turned by `rotate`, each with a red
    /// square in its lower left.
    static func pdf(width: Int = 200, height: Int = 100, rotate: Int = 0, pages: Int = 1) -> Data {
        TestPDF.make(pages: Array(repeating: (width, height, rotate), count: pages))
    }

    @Test("page count, size in points, DPI and thumbnail size, the page chosen")
    func sizes() throws {
        let data = Self.pdf(width: 200, height: 100, pages: 3)
        let info = try ImageCoderRegistry.shared.info(of: data)
        #expect(info.format == .pdf && info.pixelSize == PixelSize(width: 200, height: 100))
        #expect(info.pageCount == 3 && info.frameCount == 1 && !info.hasAlpha)
        let image = try ImageCoderRegistry.shared.decode(data)
        let buffer = image.frames[0].buffer
        #expect(buffer.size == PixelSize(width: 200, height: 100) && image.frameCount == 1)
        // White paper, the red square in the lower left (PDF's y axis points up).
        #expect(buffer.color(atX: 10, y: 90) == RGBA8(r: 255, g: 0, b: 0))
        #expect(buffer.color(atX: 150, y: 20) == RGBA8(r: 255, g: 255, b: 255))
        var options = DecodeOptions()
        options.renderDPI = 144
        #expect(try Self.coder.decode(data, options: options).frames[0].buffer.size == PixelSize(width: 400, height: 200))
        // A thumbnail is drawn at its size, larger than the page if asked.
        let big = try Self.coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 1000, height: 1000)))
        #expect(big.frames[0].buffer.size == PixelSize(width: 1000, height: 500))
        options = DecodeOptions()
        options.page = 2
        #expect(try ImageCoderRegistry.shared.decode(data, options: options).frames[0].buffer.size == PixelSize(width: 200, height: 100))
        options.page = 3
        #expect(throws: ImageCodingError.invalidArgument("page 3 is out of range: the document has 3 page(s)")) {
            _ = try ImageCoderRegistry.shared.decode(data, options: options)
        }
    }

    @Test("/Rotate turns the page: a quarter turn swaps width and height")
    func rotation() throws {
        for (rotate, size) in [
            (0, PixelSize(width: 200, height: 100)), (90, PixelSize(width: 100, height: 200)),
            (180, PixelSize(width: 200, height: 100)), (270, PixelSize(width: 100, height: 200))
        ] {
            let image = try Self.coder.decode(Self.pdf(rotate: rotate), options: .default)
            let b = image.frames[0].buffer
            #expect(b.size == size, "/Rotate \(rotate)")
            // The red square follows the page's lower-left corner as it turns clockwise.
            let corner: (Int, Int) =
                switch rotate {
                case 90: (10, 10)
                case 180: (b.width - 10, 10)
                case 270: (b.width - 10, b.height - 10)
                default: (10, b.height - 10)
                }
            #expect(b.color(atX: corner.0, y: corner.1) == RGBA8(r: 255, g: 0, b: 0), "/Rotate \(rotate)")
        }
    }

    @Test("limits: pages, pixels and render time, each a typed error")
    func limits() throws {
        var limits = DecodingLimits.default
        limits.maxPages = 2
        #expect(throws: ImageCodingError.exceedsLimit(.maxPages, found: 3, limit: 2)) {
            _ = try Self.coder.decode(Self.pdf(pages: 3), options: DecodeOptions(limits: limits))
        }
        limits = .default
        limits.maxPixels = 10_000
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 20_000, limit: 10_000)) {
            _ = try Self.coder.decode(Self.pdf(), options: DecodeOptions(limits: limits))
        }
        // A page declaring an absurd size is refused before allocating.
        #expect(throws: ImageCodingError.self) {
            _ = try Self.coder.decode(
                Self.pdf(width: 14_400, height: 14_400),
                options: DecodeOptions(thumbnailPixelSize: nil, limits: .default)
                    .withDPI(2000))
        }
        limits = .default
        limits.maxRenderSeconds = 0
        // In one piece, and in bands drawn by two threads (3334×1667 at 1200 dpi).
        for options in [DecodeOptions(limits: limits), DecodeOptions(limits: limits).withDPI(1200)] {
            #expect {
                _ = try Self.coder.decode(Self.pdf(), options: options)
            } throws: { error in
                if case ImageCodingError.exceedsLimit(.maxRenderTime, _, 0) = error { return true }
                return false
            }
        }
        #expect(PDFCoder.bands(for: PixelSize(width: 3334, height: 1667)) == 2)
    }

    @Test("the page is the MediaBox, as pdftoppm lays it out, not the CropBox (poppler-glib measured 354×173 here)")
    func mediaBox() async throws {
        let data = TestPDF.cropped()
        #expect(try Self.coder.info(of: data).pixelSize == PixelSize(width: 792, height: 612))
        let page = try Self.coder.decode(data, options: .default).frames[0].buffer
        #expect(page.size == PixelSize(width: 792, height: 612))
        // The red square at the MediaBox's corner, outside the CropBox, is drawn; so is the blue one.
        #expect(page.color(atX: 10, y: 602) == RGBA8(r: 255, g: 0, b: 0))
        #expect(page.color(atX: 225, y: 437) == RGBA8(r: 0, g: 0, b: 255))
        #expect(try await PDFReference.pdftoppm(data, page: 0, dpi: 72) == page)
    }

    @Test("a Type 3 glyph that draws a glyph of another Type 3 font is drawn, as pdftoppm draws it")
    func nestedType3() async throws {
        let data = TestPDF.nestedType3()
        let page = try Self.coder.decode(data, options: .default).frames[0].buffer
        #expect(page.size == PixelSize(width: 200, height: 200))
        #expect(page.color(atX: 100, y: 100) == RGBA8(r: 0, g: 128, b: 0))
        #expect(page.color(atX: 20, y: 20) == RGBA8(r: 255, g: 255, b: 255))
        #expect(try await PDFReference.pdftoppm(data, page: 0, dpi: 72) == page)
    }

    @Test("a page drawn into each pixel format holds the same pixels")
    func pixelFormats() throws {
        let data = TestPDF.text()
        var reference = try Self.coder.decode(data, options: .default).frames[0].buffer
        reference.convert(to: .rgba8)
        for format in PixelFormat.allCases {
            var options = DecodeOptions()
            options.pixelFormat = format
            var page = try Self.coder.decode(data, options: options).frames[0].buffer
            #expect(page.format == format)
            page.convert(to: .rgba8)
            if format == .gray8 || format == .grayAlpha8 {
                #expect(page.size == reference.size, "\(format)")
            } else {
                #expect(page == reference, "\(format)")
            }
        }
    }

    @Test("bad documents get typed errors: empty, truncated, garbage after the header")
    func badDocuments() throws {
        let good = Self.pdf()
        let bad: [Data] = [Data("%PDF-1.4\n".utf8), good.prefix(good.count / 2), Data("%PDF-1.7\n".utf8) + Data(repeating: 0xFF, count: 500)]
        for data in bad {
            do {
                _ = try ImageCoderRegistry.shared.decode(data)
            } catch is ImageCodingError {
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
        #expect(throws: ImageCodingError.self) { _ = try ImageCoderRegistry.shared.decode(Data("%PDF-1.4\n".utf8)) }
    }
}

extension DecodeOptions {
    func withDPI(_ dpi: Double) -> DecodeOptions {
        var o = self
        o.renderDPI = dpi
        return o
    }
}

/// pdf.js's test PDFs: what pdfinfo and pdf.js say of each, and Imago's render beside
/// pdftoppm's.
@Suite(
    "PDF conformance (pdf.js files)", .enabled(if: Corpus.isAvailable, Corpus.missingReason),
    .enabled(if: PDFCoder().canDecode(.pdf), "libImagoPDF or poppler is missing"))
struct PDFConformanceTests {
    /// Pages and sizes in points with /Rotate applied, from the corpus's SOURCES.txt (pdfinfo).
    static let expected: [String: [(Int, Int)]] = [
        "Embedded_font.pdf": [(792, 612)], "PDFBOX-4352-0.pdf": [(200, 50)], "alphatrans.pdf": [(596, 842)],
        "bug900822.pdf": [(595, 842)], "bug_jpx.pdf": [(612, 792)], "cmykjpeg.pdf": [(612, 792)],
        "empty_protected.pdf": [(612, 792)], "hello_world_rotated.pdf": Array(repeating: (792, 612), count: 5),
        "issue14415.pdf": [(612, 792)], "issue4684.pdf": [(400, 50)], "issue6019.pdf": [(400, 50)],
        "issue6069.pdf": [(400, 50)], "issue9972-1.pdf": [(581, 735)], "jpx_smaskindata.pdf": [(140, 40)],
        "knockout_groups_test.pdf": Array(repeating: (640, 610), count: 3), "radial_gradients.pdf": Array(repeating: (595, 842), count: 5),
        "simpletype3font.pdf": [(612, 792)], "sizes.pdf": [(612, 792), (649, 323), (792, 612)]
    ]

    @Test("page counts and sizes as pdfinfo gives them; encrypted files with an empty password open")
    func pagesAndSizes() throws {
        for (file, pages) in Self.expected.sorted(by: { $0.key < $1.key }) {
            let data = try Corpus.data("pdf/" + file)
            let info = try ImageCoderRegistry.shared.info(of: data)
            #expect(info.pageCount == pages.count, "\(file)")
            for (i, size) in pages.enumerated() {
                var options = DecodeOptions()
                options.page = i
                let image = try ImageCoderRegistry.shared.decode(data, options: options)
                #expect(image.frames[0].buffer.size == PixelSize(width: size.0, height: size.1), "\(file) page \(i)")
            }
        }
    }

    @Test("a password-protected file and invalid files get typed errors")
    func refusals() throws {
        #expect(throws: ImageCodingError.unsupportedFeature(.pdf, "the document is encrypted and needs a password")) {
            _ = try ImageCoderRegistry.shared.decode(try Corpus.data("pdf/issue6010_1.pdf"))
        }
        for file in ["REDHAT-1531897-0.pdf", "bug1020226.pdf"] {
            #expect(throws: ImageCodingError.self, "\(file)") { _ = try ImageCoderRegistry.shared.decode(try Corpus.data("pdf/" + file)) }
        }
        // pdf.js loads this one (one page) but cannot get its page: a render or a typed error.
        do {
            _ = try ImageCoderRegistry.shared.decode(try Corpus.data("pdf/poppler-67295-0.pdf"))
        } catch is ImageCodingError {}
    }

    /// Every page against pdftoppm at 72 dpi (Imago's default) and 150 dpi (pdftoppm's): the
    /// same size, and at least 30 dB (the issue's bar; today every page is identical).
    @Test("every page as pdftoppm draws it, at 72 and 150 dpi")
    func againstPdftoppm() async throws {
        var compared = 0, identical = 0
        for (file, pages) in Self.expected.sorted(by: { $0.key < $1.key }) {
            let data = try Corpus.data("pdf/" + file)
            for i in pages.indices {
                for dpi in [72.0, 150] {
                    var options = DecodeOptions()
                    options.page = i
                    options.renderDPI = dpi
                    let page = try ImageCoderRegistry.shared.decode(data, options: options).frames[0].buffer
                    let reference = try await PDFReference.pdftoppm(data, page: i, dpi: dpi)
                    #expect(page.size == reference.size, "\(file) page \(i) at \(dpi) dpi")
                    let psnr = PixelMetrics.psnr(page, reference)
                    #expect(psnr >= 30, "\(file) page \(i) at \(dpi) dpi: \(psnr) dB")
                    compared += 1
                    if page == reference { identical += 1 }
                }
            }
        }
        #expect(compared == 60)
        print("PDF conformance: \(compared) renders of 30 pages, \(identical) identical to pdftoppm's")
    }

    /// Pages of 4 megapixels or more are drawn in bands (3 or 4 at 300 dpi on these pages), each
    /// the slice `pdftoppm -y -H` draws, by as many threads as the options allow: the pixels
    /// must not depend on the threads, and stay pdftoppm's but for edges that fall exactly on
    /// Splash's sampling grid.
    @Test(
        "a large page drawn in bands by one thread or by four holds the same pixels, at 40 dB or better from pdftoppm's",
        arguments: [
            ("radial_gradients.pdf", 0), ("radial_gradients.pdf", 3), ("alphatrans.pdf", 0), ("knockout_groups_test.pdf", 1),
            ("Embedded_font.pdf", 0), ("simpletype3font.pdf", 0), ("cmykjpeg.pdf", 0), ("hello_world_rotated.pdf", 1)
        ])
    func bands(file: String, page: Int) async throws {
        let data = try Corpus.data("pdf/" + file)
        var options = DecodeOptions()
        options.page = page
        options.renderDPI = 300
        options.maxThreads = 1
        let alone = try ImageCoderRegistry.shared.decode(data, options: options).frames[0].buffer
        #expect(PDFCoder.bands(for: alone.size) >= 3)
        options.maxThreads = 4
        let together = try ImageCoderRegistry.shared.decode(data, options: options).frames[0].buffer
        #expect(together == alone, "\(file) page \(page): the threads changed the pixels")
        let reference = try await PDFReference.pdftoppm(data, page: page, dpi: 300)
        #expect(together.size == reference.size)
        let psnr = PixelMetrics.psnr(together, reference)
        #expect(psnr >= 40, "\(file) page \(page) at 300 dpi: \(psnr) dB")
        print("PDF bands: \(file) page \(page) at 300 dpi, \(together == reference ? "identical to pdftoppm" : "\(psnr) dB")")
    }

    @Test("concurrent renders of text in SVG and PDF equal serial ones (librsvg, poppler, fontconfig, FreeType and cairo across threads)")
    func concurrentRenders() async throws {
        let sources = [
            try Corpus.data("resvg/tests/text/text/rotate.svg"), try Corpus.data("pdf/Embedded_font.pdf"),
            try Corpus.data("pdf/radial_gradients.pdf"), try Corpus.data("resvg/librsvg/gimp-wilber.svg")
        ]
        let serial = try sources.map { try ImageCoderRegistry.shared.decode($0).frames[0].buffer }
        try await withThrowingTaskGroup(of: (Int, PixelBuffer).self) { group in
            for round in 0..<16 {
                let i = round % sources.count, data = sources[i]
                group.addTask { (i, try ImageCoderRegistry.shared.decode(data).frames[0].buffer) }
            }
            for try await (i, buffer) in group {
                #expect(buffer == serial[i], "source \(i) rendered differently on another thread")
            }
        }
    }
}

/// pdftoppm (poppler-utils), the reference renderer.
enum PDFReference {
    /// Page `page` (from 0) of `data` as pdftoppm draws it at `dpi`, in Imago's pixel format.
    static func pdftoppm(_ data: Data, page: Int, dpi: Double) async throws -> PixelBuffer {
        let tool = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "pdftoppm is missing (poppler-utils; scripts/bootstrap installs it)")
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.pdf"), output = dir.appendingPathComponent("out")
        try data.write(to: input)
        let (status, _, err) = try await Subprocess.run(
            tool, ["-r", "\(dpi)", "-f", "\(page + 1)", "-l", "\(page + 1)", "-png", "-singlefile", input.path, output.path])
        try #require(status == 0, "pdftoppm: \(err)")
        var buffer = try ImageCoderRegistry.shared.decode(try Data(contentsOf: output.appendingPathExtension("png"))).frames[0].buffer
        buffer.convert(to: .argb32Premultiplied)
        return buffer
    }
}
