// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation

/// Small PDF documents written here, each with a correct cross-reference table.
public enum TestPDF {
    /// A document of `pages` (width and height in points, and `/Rotate`), each with a red 50 pt
    /// square in its lower left.
    public static func make(pages: [(width: Int, height: Int, rotate: Int)]) -> Data {
        let kids = pages.indices.map { "\(4 + $0) 0 R" }.joined(separator: " ")
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>",
            stream("1 0 0 rg 0 0 50 50 re f")
        ]
        for page in pages {
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(page.width) \(page.height)] /Rotate \(page.rotate) /Contents 3 0 R >>")
        }
        return document(objects)
    }

    /// A 792×612 pt page (its MediaBox) whose CropBox is the 354×173 pt at (100, 100): a red
    /// square at the MediaBox's lower-left corner, outside the CropBox, and a blue one at
    /// (200, 150), inside it. pdftoppm draws the MediaBox; poppler-glib measures the CropBox.
    public static func cropped() -> Data {
        document([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            stream("1 0 0 rg 0 0 50 50 re f 0 0 1 rg 200 150 50 50 re f"),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 792 612] /CropBox [100 100 454 273] /Contents 3 0 R >>"
        ])
    }

    /// A 200×200 pt page showing one glyph of a Type 3 font, 100 pt tall at (50, 50), in green;
    /// the glyph itself shows a glyph of a second Type 3 font, a filled square.
    public static func nestedType3() -> Data {
        func type3(charProc: Int, resources: String) -> String {
            "<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] "
                + "/CharProcs << /a \(charProc) 0 R >> /Encoding << /Type /Encoding /Differences [97 /a] >> "
                + "/FirstChar 97 /LastChar 97 /Widths [1000]\(resources) >>"
        }
        return document([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            stream("0 0.5 0 rg BT /F1 1 Tf 100 0 0 100 50 50 Tm (a) Tj ET"),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 3 0 R >>",
            type3(charProc: 6, resources: " /Resources << /Font << /F2 7 0 R >> >>"),
            stream("1000 0 0 0 1000 1000 d1\nBT /F2 1 Tf 1000 0 0 1000 0 0 Tm (a) Tj ET"),
            type3(charProc: 8, resources: ""),
            stream("1000 0 0 0 1000 1000 d1\n0 0 1000 1000 re f")
        ])
    }

    /// A 200×50 pt page with "Imago" set in Helvetica, a font the document does not embed: poppler
    /// finds a substitute through fontconfig and draws it with FreeType.
    public static func text() -> Data {
        document([
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            stream("BT /F1 24 Tf 10 15 Td (Imago) Tj ET"),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 50] /Resources << /Font << /F1 5 0 R >> >> /Contents 3 0 R >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
        ])
    }

    /// A content stream object.
    public static func stream(_ content: String) -> String {
        "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream"
    }

    /// A document of `objects` (numbered from 1; the first is the catalog), with its
    /// cross-reference table and trailer.
    public static func document(_ objects: [String]) -> Data {
        var out = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(i + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for o in offsets { out += String(repeating: "0", count: 10 - String(o).count) + "\(o) 00000 n \n" }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(out.utf8)
    }
}
