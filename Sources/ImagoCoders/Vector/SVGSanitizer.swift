// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Makes an SVG safe to send to a browser as SVG: parsed by libxml2 (loaded on first use) and
/// written again from what it parsed, so nothing a browser would read differently survives.
/// imgproxy's rules, and a few more:
///
/// - `script`, `iframe`, `form`, `object`, `embed`, `frame`, `frameset`, `applet`, `base`,
///   `link`, `meta` and `handler` elements go, with everything inside them;
/// - every event attribute (`on…`) goes, and `xml:base`;
/// - `href` (and `xlink:href`, `src`, `action`, `formaction`) keeps only fragments, relative
///   references and `http`/`https` URLs; on `use` only fragments (`#id`); on `image` and
///   `feImage` also `data:` (tabs, newlines and control characters, which browsers skip, do not
///   hide a scheme);
/// - animations that would set an `href` or an event attribute go;
/// - processing instructions (`<?xml-stylesheet?>`) and the document type go; the document's
///   own entities are expanded (bounded by `DecodingLimits`), and a document declaring an
///   external or parameter entity is refused, so nothing is read from outside.
///
/// Comments, CDATA, whitespace and everything else are kept; an element left with no content
/// is written as `<name/>`.
///
/// ```swift
/// let safe = try SVGSanitizer.sanitize(untrustedSVG)
/// ```
public enum SVGSanitizer {
    /// Elements removed with their content.
    static let droppedElements: Set<String> = [
        "script", "iframe", "form", "object", "embed", "frame", "frameset", "applet", "base", "link", "meta", "handler"
    ]
    static let animations: Set<String> = ["animate", "set", "animatemotion", "animatetransform", "animatecolor"]
    static let urlAttributes: Set<String> = ["href", "src", "action", "formaction"]

    /// Returns the document, sanitised, as UTF-8.
    ///
    /// - Parameters:
    ///   - data: The SVG document, UTF-8.
    ///   - limits: The document's size, element count, nesting depth and entity expansion are
    ///     held to these (`DecodingLimits.maxBytes`, `maxElements`, `maxNestingDepth`). Default
    ///     `DecodingLimits.default`.
    /// - Throws: `.unsupportedFeature(.svg, …)` without libxml2, for a document that is not
    ///   UTF-8 or that declares external or parameter entities; `.corrupt(.svg, …)` for one that
    ///   is not well-formed XML (with libxml2's reason and the line) or whose root is not `svg`;
    ///   `.exceedsLimit` past a limit.
    public static func sanitize(_ data: Data, limits: DecodingLimits = .default) throws -> Data {
        try limits.check(inputBytes: data.count)
        let bytes = [UInt8](data)
        try SVGPreflight.check(bytes, limits: limits)
        try refuseOutsideEntities(bytes)
        guard imago_xml_available() != 0 else {
            throw ImageCodingError.unsupportedFeature(.svg, "libxml2 is not installed")
        }
        guard let reader = bytes.withUnsafeBufferPointer({ imago_xml_open($0.baseAddress, $0.count) }) else {
            throw ImageCodingError.corrupt(.svg, "the document cannot be read")
        }
        defer { imago_xml_close(reader) }
        var writer = Writer(reader: reader, keepsEmptyDefaultNamespace: declaresEmptyDefaultNamespace(bytes))
        try writer.run()
        return Data(writer.out)
    }

    /// Refuses a document that declares an external entity (`SYSTEM`, `PUBLIC`) or a parameter
    /// entity (`%`), which could read files or reach the network once entities are expanded.
    /// Conservative: any `<!ENTITY` whose name is not followed directly by a quoted value counts.
    static func refuseOutsideEntities(_ b: [UInt8]) throws {
        let marker = Array("<!ENTITY".utf8)
        var i = 0
        while let at = b[i...].firstRange(of: marker)?.lowerBound {
            var j = at + marker.count
            func skipSpace() { while j < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[j]) { j += 1 } }
            skipSpace()
            let nameStart = j
            while j < b.count, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: ">")].contains(b[j]) { j += 1 }
            let name = b[nameStart..<j]
            skipSpace()
            let quoted = j < b.count && (b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'"))
            guard !name.isEmpty, name.first != UInt8(ascii: "%"), quoted else {
                throw ImageCodingError.unsupportedFeature(.svg, "the document declares an external or parameter entity")
            }
            i = j
        }
    }

    /// Whether the document itself writes `xmlns=""`. libxml2 gives elements that come from an
    /// entity no namespace and undeclares the default one on them; a browser reads them in the
    /// namespace where the entity is used, so such declarations are left out unless the
    /// document has its own.
    static func declaresEmptyDefaultNamespace(_ b: [UInt8]) -> Bool {
        let marker = Array("xmlns".utf8)
        var i = 0
        while let at = b[i...].firstRange(of: marker)?.lowerBound {
            var j = at + marker.count
            while j < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[j]) { j += 1 }
            if j < b.count, b[j] == UInt8(ascii: "=") {
                j += 1
                while j < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[j]) { j += 1 }
                if j + 1 < b.count, b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'"), b[j + 1] == b[j] { return true }
            }
            i = at + 1
        }
        return false
    }

    /// Whether a URL attribute's value may stay: a fragment, a relative reference, or one of
    /// `schemes`.
    static func isSafe(_ value: String, schemes: Set<String>) -> Bool {
        // Browsers drop tabs and newlines anywhere in a URL and trim controls and spaces.
        let cleaned = value.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }
        guard let first = cleaned.first, first != "#" else { return true }
        var scheme = ""
        for c in cleaned {
            if c == ":" { return !scheme.isEmpty && schemes.contains(scheme.lowercased()) }
            let isLetter = ("a"..."z").contains(c) || ("A"..."Z").contains(c)
            guard isLetter || (!scheme.isEmpty && (("0"..."9").contains(c) || c == "+" || c == "-" || c == ".")) else { return true }
            scheme.unicodeScalars.append(c)
        }
        return true  // no scheme: relative
    }

    /// Writes the nodes libxml2 reads, leaving out what the rules drop.
    private struct Writer {
        let reader: OpaquePointer
        var out: [UInt8] = []
        /// Open elements; `true` while an element's start tag is still waiting for its `>`.
        var open: [(name: String, pending: Bool)] = []
        var sawRoot = false
        let keepsEmptyDefaultNamespace: Bool

        init(reader: OpaquePointer, keepsEmptyDefaultNamespace: Bool) {
            self.reader = reader
            self.keepsEmptyDefaultNamespace = keepsEmptyDefaultNamespace
        }

        mutating func run() throws {
            var skip = false
            while true {
                let r = imago_xml_read(reader, skip ? 1 : 0)
                skip = false
                if r == 0 { break }
                guard r > 0 else { throw failure() }
                switch imago_xml_node_type(reader) {
                case 1: skip = try element()
                case 15: close()
                case 3, 13, 14: text(escape(value(), attribute: false))
                case 4: text("<![CDATA[" + value().replacing("]]>", with: "]]]]><![CDATA[>") + "]]>")
                case 8: text("<!--" + value().replacing("--", with: "- -") + "-->")
                default: continue  // processing instructions, the document type, entity bounds
                }
            }
            guard sawRoot else { throw ImageCodingError.corrupt(.svg, "the document has no root element") }
        }

        func failure() -> ImageCodingError {
            var line: Int32 = 0
            guard let message = imago_xml_error(reader, &line) else { return .corrupt(.svg, "not well-formed XML") }
            return .corrupt(.svg, "not well-formed XML: \(String(cString: message)) (line \(line))")
        }

        func value() -> String { imago_xml_value(reader).map { String(cString: $0) } ?? "" }
        func name() -> String { imago_xml_name(reader).map { String(cString: $0) } ?? "" }
        func localName() -> String { imago_xml_local_name(reader).map { String(cString: $0) } ?? "" }

        /// Writes an element's start; `true` when it is dropped and its subtree must be skipped.
        mutating func element() throws -> Bool {
            let local = localName().lowercased()
            if !sawRoot {
                guard local == "svg" else { throw ImageCodingError.corrupt(.svg, "the root element is <\(name())>, not <svg>") }
                sawRoot = true
            }
            let empty = imago_xml_is_empty(reader) != 0
            var attributes: [(String, String)] = []
            var dropElement = SVGSanitizer.droppedElements.contains(local)
            while !dropElement, imago_xml_next_attribute(reader) != 0 {
                let attribute = localName().lowercased(), qualified = name(), v = value()
                if attribute.hasPrefix("on") || qualified.lowercased() == "xml:base" { continue }
                if qualified == "xmlns", v.isEmpty, !keepsEmptyDefaultNamespace { continue }
                if SVGSanitizer.urlAttributes.contains(attribute) {
                    let schemes: Set<String> = local == "use" ? [] : local == "image" || local == "feimage" ? ["http", "https", "data"] : ["http", "https"]
                    if local == "use" ? !(v.isEmpty || v.hasPrefix("#")) : !SVGSanitizer.isSafe(v, schemes: schemes) { continue }
                }
                if attribute == "attributename", SVGSanitizer.animations.contains(local) {
                    let target = String((v.split(separator: ":").last ?? Substring(v)).filter { !$0.isWhitespace }).lowercased()
                    if target == "href" || target.hasPrefix("on") { dropElement = true }
                }
                attributes.append((qualified, v))
            }
            imago_xml_to_element(reader)
            if dropElement { return !empty }
            openPending()
            var tag = "<" + name()
            for (n, v) in attributes { tag += " \(n)=\"\(escape(v, attribute: true))\"" }
            out.append(contentsOf: tag.utf8)
            if empty {
                out.append(contentsOf: "/>".utf8)
            } else {
                open.append((name(), true))
            }
            return false
        }

        /// Closes the innermost element: `/>` when nothing was written inside it.
        mutating func close() {
            guard let last = open.popLast() else { return }
            out.append(contentsOf: (last.pending ? "/>" : "</\(last.name)>").utf8)
        }

        mutating func text(_ s: String) {
            // Text outside the root (whitespace around it) is left out.
            guard !open.isEmpty else { return }
            openPending()
            out.append(contentsOf: s.utf8)
        }

        /// Ends the innermost start tag with `>` now that it has content.
        mutating func openPending() {
            guard let last = open.last, last.pending else { return }
            open[open.count - 1].pending = false
            out.append(UInt8(ascii: ">"))
        }

        func escape(_ s: String, attribute: Bool) -> String {
            var r = ""
            r.reserveCapacity(s.utf8.count)
            for c in s.unicodeScalars {
                switch c {
                case "&": r += "&amp;"
                case "<": r += "&lt;"
                case ">": r += "&gt;"
                case "\"" where attribute: r += "&quot;"
                case "\t" where attribute: r += "&#9;"
                case "\n" where attribute: r += "&#10;"
                case "\r": r += "&#13;"
                default: r.unicodeScalars.append(c)
                }
            }
            return r
        }
    }
}
