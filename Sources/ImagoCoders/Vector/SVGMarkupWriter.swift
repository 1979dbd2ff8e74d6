// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import ImagoCore

/// An element as ``SVGMarkupWriter`` read it, for ``SVGMarkupRules`` to keep, change, drop or
/// replace.
struct SVGElement {
    /// One attribute: its qualified name as written (`xlink:href`), its local name (`href`) and
    /// its value with entities and character references expanded.
    struct Attribute {
        var name: String
        var localName: String
        var value: String
    }

    /// The qualified name as written (`svg:rect`).
    let name: String
    /// The local name as written (`feDropShadow`); SVG's names are case-sensitive.
    let localName: String
    var attributes: [Attribute]
    /// Whether the element has no content (`<x/>` or `<x></x>`).
    let isEmpty: Bool

    /// The value of the first attribute whose local name is `localName`.
    func value(of localName: String) -> String? { attributes.first { $0.localName == localName }?.value }
}

/// What the writer does with an element.
enum SVGElementAction {
    /// Write the element, with its attributes as the rules left them, and its content.
    case keep
    /// Leave out the element and everything inside it.
    case drop
    /// Write this markup (already escaped) instead of the element and everything inside it.
    case replace(String)
}

/// A rewrite of an SVG document, element by element.
protocol SVGMarkupRules {
    /// Decides what becomes of `element`, and may change its attributes.
    mutating func rewrite(_ element: inout SVGElement) throws -> SVGElementAction
}

/// Writes an SVG document again from what libxml2 (loaded on first use) reads of it, element by
/// element through a set of ``SVGMarkupRules``: the sanitiser's rules, and the render fixes'.
///
/// The document's own entities come out expanded; processing instructions and the document type
/// are left out; text, CDATA and comments are kept; an element left with no content is written
/// as `<name/>`. Text outside the root (the whitespace around it) is left out.
struct SVGMarkupWriter<Rules: SVGMarkupRules> {
    private let reader: OpaquePointer
    private var rules: Rules
    private var out: [UInt8] = []
    /// Open elements; `true` while an element's start tag is still waiting for its `>`.
    private var open: [(name: String, pending: Bool)] = []
    private var sawRoot = false
    private let keepsEmptyDefaultNamespace: Bool

    /// Writes `bytes` again through `rules`.
    ///
    /// - Throws: `.unsupportedFeature(.svg, …)` without libxml2; `.corrupt(.svg, …)` for a
    ///   document that is not well-formed XML (libxml2's reason and the line) or whose root is
    ///   not `svg`; what the rules throw.
    static func write(_ bytes: [UInt8], rules: Rules) throws -> [UInt8] {
        var rules = rules
        return try write(bytes, rules: &rules)
    }

    /// Writes `bytes` again through `rules`, leaving them as the rewrite left them.
    ///
    /// - Throws: as ``write(_:rules:)``.
    static func write(_ bytes: [UInt8], rules: inout Rules) throws -> [UInt8] {
        guard imago_xml_available() != 0 else {
            throw ImageCodingError.unsupportedFeature(.svg, "libxml2 is not installed")
        }
        guard let reader = bytes.withUnsafeBufferPointer({ imago_xml_open($0.baseAddress, $0.count) }) else {
            throw ImageCodingError.corrupt(.svg, "the document cannot be read")
        }
        defer { imago_xml_close(reader) }
        var writer = SVGMarkupWriter(
            reader: reader, rules: rules, keepsEmptyDefaultNamespace: Self.declaresEmptyDefaultNamespace(bytes))
        try writer.run()
        rules = writer.rules
        return writer.out
    }

    private init(reader: OpaquePointer, rules: Rules, keepsEmptyDefaultNamespace: Bool) {
        self.reader = reader
        self.rules = rules
        self.keepsEmptyDefaultNamespace = keepsEmptyDefaultNamespace
    }

    private mutating func run() throws {
        var skip = false
        while true {
            let r = imago_xml_read(reader, skip ? 1 : 0)
            skip = false
            if r == 0 { break }
            guard r > 0 else { throw failure() }
            switch imago_xml_node_type(reader) {
            case 1: skip = try element()
            case 15: close()
            case 3, 13, 14: text(Self.escape(value(), attribute: false))
            case 4: text("<![CDATA[" + value().replacing("]]>", with: "]]]]><![CDATA[>") + "]]>")
            case 8: text("<!--" + value().replacing("--", with: "- -") + "-->")
            default: continue  // processing instructions, the document type, entity bounds
            }
        }
        guard sawRoot else { throw ImageCodingError.corrupt(.svg, "the document has no root element") }
    }

    private func failure() -> ImageCodingError {
        var line: Int32 = 0
        guard let message = imago_xml_error(reader, &line) else { return .corrupt(.svg, "not well-formed XML") }
        return .corrupt(.svg, "not well-formed XML: \(String(cString: message)) (line \(line))")
    }

    private func value() -> String { imago_xml_value(reader).map { String(cString: $0) } ?? "" }
    private func name() -> String { imago_xml_name(reader).map { String(cString: $0) } ?? "" }
    private func localName() -> String { imago_xml_local_name(reader).map { String(cString: $0) } ?? "" }

    /// Writes an element's start; `true` when its subtree must be skipped (dropped or replaced).
    private mutating func element() throws -> Bool {
        let local = localName()
        if !sawRoot {
            guard local.lowercased() == "svg" else { throw ImageCodingError.corrupt(.svg, "the root element is <\(name())>, not <svg>") }
            sawRoot = true
        }
        var element = SVGElement(name: name(), localName: local, attributes: [], isEmpty: imago_xml_is_empty(reader) != 0)
        while imago_xml_next_attribute(reader) != 0 {
            let qualified = name(), v = value()
            if qualified == "xmlns", v.isEmpty, !keepsEmptyDefaultNamespace { continue }
            element.attributes.append(SVGElement.Attribute(name: qualified, localName: localName(), value: v))
        }
        imago_xml_to_element(reader)
        switch try rules.rewrite(&element) {
        case .drop:
            return !element.isEmpty
        case .replace(let markup):
            text(markup)
            return !element.isEmpty
        case .keep:
            break
        }
        openPending()
        var tag = "<" + element.name
        for a in element.attributes { tag += " \(a.name)=\"\(Self.escape(a.value, attribute: true))\"" }
        out.append(contentsOf: tag.utf8)
        if element.isEmpty {
            out.append(contentsOf: "/>".utf8)
        } else {
            open.append((element.name, true))
        }
        return false
    }

    /// Closes the innermost element: `/>` when nothing was written inside it.
    private mutating func close() {
        guard let last = open.popLast() else { return }
        out.append(contentsOf: (last.pending ? "/>" : "</\(last.name)>").utf8)
    }

    private mutating func text(_ s: String) {
        guard !open.isEmpty else { return }
        openPending()
        out.append(contentsOf: s.utf8)
    }

    /// Ends the innermost start tag with `>` now that it has content.
    private mutating func openPending() {
        guard let last = open.last, last.pending else { return }
        open[open.count - 1].pending = false
        out.append(UInt8(ascii: ">"))
    }

    /// `s` escaped for text, or for a double-quoted attribute value.
    static func escape(_ s: String, attribute: Bool) -> String {
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
}
