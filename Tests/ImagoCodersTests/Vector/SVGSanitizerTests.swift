// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// ``SVGSanitizer``: imgproxy's processing/svg rules (its svg_test.go and href_test.go
/// expectations) and Imago's stricter ones, and renders unchanged for documents with nothing
/// to remove.
@Suite("SVG sanitiser")
struct SVGSanitizerTests {
    func sanitized(_ svg: String) throws -> String {
        String(decoding: try SVGSanitizer.sanitize(Data(svg.utf8)), as: UTF8.self)
    }

    @Test("processing/svg/svg_test.go TestSanitize: scripts, event attributes, unsafe links and forms go; the rest is kept")
    func sanitize() throws {
        let input = """
            <svg width="200" height="100" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(3)">
              <rect onclick="alert(4)" width="190" height="90" style="fill:rgb(0,0,0)" />
              <script><![CDATA[ alert(2); ]]></script><use xlink:href="data:application/xml;base64,PHN2Zy8+#test"/>
              <foreignObject>
                <div xmlns="http://www.w3.org/1999/xhtml"><form action="javascript:alert(5)"><input type="submit"/></form></div>
              </foreignObject>
              <a href="javascript:alert(6)"><rect width="10" height="10"/></a>
              <a href="https://example.com/"><rect width="10" height="10"/></a>
              <image href="data:image/gif;base64,R0lGODlhAQABAAAAACw="/>
            </svg>
            """
        // As imgproxy's expected file, but namespace declarations come first (libxml2's order).
        let expected = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100">
              <rect width="190" height="90" style="fill:rgb(0,0,0)"/>
              <use/>
              <foreignObject>
                <div xmlns="http://www.w3.org/1999/xhtml"/>
              </foreignObject>
              <a><rect width="10" height="10"/></a>
              <a href="https://example.com/"><rect width="10" height="10"/></a>
              <image href="data:image/gif;base64,R0lGODlhAQABAAAAACw="/>
            </svg>
            """
        #expect(try sanitized(input) == expected)
    }

    @Test("processing/svg/href_test.go TestIsSafeHref: each href in a document, kept or not")
    func hrefs() throws {
        let generic: [(String, String, Bool)] = [
            ("empty", "", true), ("fragment", "#test", true), ("relative path", "foo/bar.svg", true),
            ("absolute path relative url", "/foo/bar.svg", true), ("protocol-relative", "//evil.com/x", true),
            ("https allowed", "https://example.com", true), ("http allowed", "http://example.com", true),
            ("javascript rejected", "javascript:alert(1)", false), ("javascript uppercase", "JavaScript:alert(1)", false),
            ("javascript mixed case", "jAvAsCriPt:alert(1)", false), ("leading newline", "&#10;javascript:alert(1)", false),
            ("vbscript rejected", "vbscript:msgbox(1)", false), ("data rejected for generic", "data:text/html,&lt;script&gt;", false),
            ("mailto rejected", "mailto:test@example.com", false), ("ftp rejected", "ftp://example.com/file", false),
            ("numeric entity scheme", "jav&#97;script:alert(1)", false), ("hex numeric entity scheme", "jav&#x61;script:alert(1)", false),
            // Imago: a tab or newline inside the scheme (browsers drop them) does not hide it.
            ("tab inside the scheme", "java&#9;script:alert(1)", false), ("newline inside the scheme", "java&#10;script:x", false)
        ]
        for (name, value, kept) in generic {
            let out = try sanitized("<svg xmlns=\"http://www.w3.org/2000/svg\"><a href=\"\(value)\"/></svg>")
            #expect(out.contains("href=") == kept, "\(name): \(out)")
        }
        // Named HTML entities are not XML: such a document is refused whole.
        #expect(throws: ImageCodingError.self) { try sanitized("<svg xmlns=\"http://www.w3.org/2000/svg\"><a href=\"javascript&colon;x\"/></svg>") }
        // image (and feImage) also take data:, use only fragments.
        let image = try sanitized(
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><image href=\"data:image/png;base64,AAAA\"/><feImage href=\"data:image/png;base64,AA\"/>"
                + "<image href=\"javascript:alert(1)\"/><use href=\"#a\"/><use href=\"http://x/y.svg#a\"/></svg>")
        #expect(image.contains("<image href=\"data:image/png;base64,AAAA\"/>") && image.contains("<feImage href=\"data:image/png;base64,AA\"/>"))
        #expect(!image.contains("javascript") && image.contains("<use href=\"#a\"/>") && !image.contains("http://x"))
    }

    @Test("Imago's stricter rules: more elements, every on… attribute, href animations, xml:base, processing instructions")
    func stricter() throws {
        let out = try sanitized(
            """
            <?xml version="1.0"?><?xml-stylesheet href="http://evil/x.css"?>
            <svg xmlns="http://www.w3.org/2000/svg" xml:base="javascript:/" onNewEvent="x">\
            <a href="#"><set attributeName="href" to="javascript:alert(1)"/><animate attributeName="xlink:href" values="javascript:1"/>\
            <animate attributeName="onclick" to="alert(1)"/><animate attributeName="opacity" from="0" to="1" dur="1s"/></a>\
            <foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="x"/><object data="x"/><embed src="x"/>\
            <meta http-equiv="refresh" content="0;url=javascript:1"/><link rel="import" href="x"/><base href="javascript:/"/>\
            <img src="javascript:1" ONERROR="alert(1)"/></body></foreignObject><handler>alert(1)</handler></svg>
            """)
        for gone in [
            "xml-stylesheet", "xml:base", "onNewEvent", "<set", "javascript", "onclick", "iframe", "object", "embed", "meta", "link",
            "<base", "ONERROR", "handler"
        ] {
            #expect(!out.contains(gone), "\(gone) in \(out)")
        }
        #expect(out.contains("<animate attributeName=\"opacity\" from=\"0\" to=\"1\" dur=\"1s\"/>") && out.contains("<img/>"))
    }

    @Test("entities: the document's own are expanded; external and parameter entities, and bombs, are refused")
    func entities() throws {
        let own = try sanitized(
            "<!DOCTYPE svg [<!ENTITY w \"20\"><!ENTITY r \"<rect width='&w;' height='5'/>\">]><svg xmlns=\"http://www.w3.org/2000/svg\">&r;&amp;</svg>")
        #expect(own == "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect width=\"20\" height=\"5\"/>&amp;</svg>")
        // A document's own undeclaration of the default namespace stays.
        let foreign = try sanitized("<svg xmlns=\"http://www.w3.org/2000/svg\"><g><x xmlns=\"\"/></g></svg>")
        #expect(foreign == "<svg xmlns=\"http://www.w3.org/2000/svg\"><g><x xmlns=\"\"/></g></svg>")
        for hostile in [
            "<!DOCTYPE svg [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><svg xmlns=\"http://www.w3.org/2000/svg\">&x;</svg>",
            "<!DOCTYPE svg [<!ENTITY x PUBLIC \"-//x\" \"http://127.0.0.1:1/x\">]><svg xmlns=\"http://www.w3.org/2000/svg\">&x;</svg>",
            "<!DOCTYPE svg [<!ENTITY % p SYSTEM \"file:///etc/passwd\"> %p;]><svg xmlns=\"http://www.w3.org/2000/svg\"/>",
            "<!DOCTYPE svg [<!ENTITY\n%\tp \"<!ENTITY x SYSTEM 'file:///etc/passwd'>\"> %p;]><svg xmlns=\"http://www.w3.org/2000/svg\">&x;</svg>"
        ] {
            let error = #expect(throws: ImageCodingError.self) { try sanitized(hostile) }
            #expect("\(error.map { "\($0)" } ?? "")".contains("entity"), "\(hostile)")
        }
        var laughs = "<!DOCTYPE svg [<!ENTITY a0 \"lol\">"
        for i in 1...12 { laughs += "<!ENTITY a\(i) \"" + String(repeating: "&a\(i - 1);", count: 10) + "\">" }
        laughs += "]><svg xmlns=\"http://www.w3.org/2000/svg\"><text>&a12;</text></svg>"
        #expect(throws: ImageCodingError.self) { try sanitized(laughs) }
    }

    @Test("not an SVG, not well-formed, not UTF-8: typed errors with the reason")
    func refusals() throws {
        #expect(throws: ImageCodingError.self) { try sanitized("<html><script/></html>") }
        let broken = #expect(throws: ImageCodingError.self) { try sanitized("<svg xmlns=\"http://www.w3.org/2000/svg\">\n<g></svg>") }
        #expect("\(broken.map { "\($0)" } ?? "")".contains("line 2"))
        #expect(throws: ImageCodingError.self) { try sanitized("") }
        #expect(throws: ImageCodingError.self) { try SVGSanitizer.sanitize(Data([0xFF, 0xFE, 0x3C, 0x00])) }
        // Comments, CDATA and text escapes survive as XML that means the same.
        let kept = try sanitized("<svg xmlns=\"http://www.w3.org/2000/svg\"><!-- a - b --><style><![CDATA[a>b]]></style><text>1 &lt; 2</text></svg>")
        #expect(kept == "<svg xmlns=\"http://www.w3.org/2000/svg\"><!-- a - b --><style><![CDATA[a>b]]></style><text>1 &lt; 2</text></svg>")
    }

    @Test("resvg's test documents render the same after sanitising", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func rendersUnchanged() throws {
        let files = Corpus.files(in: "resvg/tests", extensions: ["svg"])
        #expect(files.count >= 140)
        var same = 0, refused: [String] = []
        for url in files {
            let data = try Data(contentsOf: url)
            guard let original = try? SVGCoder().decode(data, options: .default) else { continue }
            let clean: Data
            do {
                clean = try SVGSanitizer.sanitize(data)
            } catch {
                refused.append("\(url.lastPathComponent): \(error)")
                continue
            }
            let after = try SVGCoder().decode(clean, options: .default)
            let psnr = PixelMetrics.psnrPremultiplied(original.frames[0].buffer, after.frames[0].buffer)
            #expect(psnr.isInfinite || psnr > 60, "\(url.lastPathComponent): \(psnr) dB")
            same += 1
        }
        #expect(refused.isEmpty, "\(refused)")
        #expect(same >= 140)
    }
}
