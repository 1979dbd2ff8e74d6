// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@Suite("Thumbnails of a page other than the first fit the box by that page's own size")
struct PagedThumbnailTests {
    @Test(
        "a PDF's pages of different shapes, each fitted to a 60-pixel box by its own size",
        .enabled(if: PDFCoder().canDecode(.pdf), "libImagoPDF or poppler is missing"))
    func pdfPages() throws {
        // 100x50, 200x50 and 50x150 points: the header gives the first page's size alone.
        let input = ImageInput(TestPDF.make(pages: [(100, 50, 0), (200, 50, 0), (50, 150, 0)]))
        let expected = [PixelSize(width: 60, height: 30), PixelSize(width: 60, height: 15), PixelSize(width: 20, height: 60)]
        for (page, size) in expected.enumerated() {
            var goal = DecodeGoal(size: .fitting(PixelSize(width: 60, height: 60), preserveAspectRatio: true))
            goal.options.page = page
            let image = try DecodePlanner.decode(input, goal: goal)
            #expect(image.pixelSize == size, "page \(page)")
        }
    }

    @Test(
        "a TIFF's smaller second page, fitted to a 100-pixel box by its own size",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func tiffPages() throws {
        // 640x480 and its 160x120 EXIF thumbnail: the header gives the first page's size.
        let input = ImageInput(try Corpus.data("image-tiff/libtiffpic/dscf0013.tif"))
        for (page, size) in [PixelSize(width: 100, height: 75), PixelSize(width: 100, height: 75)].enumerated() {
            var goal = DecodeGoal(size: .fitting(PixelSize(width: 100, height: 100), preserveAspectRatio: true))
            goal.options.page = page
            #expect(try DecodePlanner.decode(input, goal: goal).pixelSize == size, "page \(page)")
        }
        // A box the second page fits unchanged: never enlarged.
        var goal = DecodeGoal(size: .fitting(PixelSize(width: 300, height: 300), preserveAspectRatio: true))
        goal.options.page = 1
        #expect(try DecodePlanner.decode(input, goal: goal).pixelSize == PixelSize(width: 160, height: 120))
    }
}
