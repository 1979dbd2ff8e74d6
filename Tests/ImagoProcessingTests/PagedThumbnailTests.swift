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
}
