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
        return Data(try SVGMarkupWriter.write(bytes, rules: Rules()))
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

    /// The sanitiser's rules, applied to each element as it is written again.
    struct Rules: SVGMarkupRules {
        func rewrite(_ element: inout SVGElement) throws -> SVGElementAction {
            let local = element.localName.lowercased()
            if SVGSanitizer.droppedElements.contains(local) { return .drop }
            var kept: [SVGElement.Attribute] = []
            for a in element.attributes {
                let attribute = a.localName.lowercased(), v = a.value
                if attribute.hasPrefix("on") || a.name.lowercased() == "xml:base" { continue }
                if SVGSanitizer.urlAttributes.contains(attribute) {
                    let schemes: Set<String> = local == "image" || local == "feimage" ? ["http", "https", "data"] : ["http", "https"]
                    if local == "use" ? !(v.isEmpty || v.hasPrefix("#")) : !SVGSanitizer.isSafe(v, schemes: schemes) { continue }
                }
                if attribute == "attributename", SVGSanitizer.animations.contains(local) {
                    let target = String((v.split(separator: ":").last ?? Substring(v)).filter { !$0.isWhitespace }).lowercased()
                    if target == "href" || target.hasPrefix("on") { return .drop }
                }
                kept.append(a)
            }
            element.attributes = kept
            return .keep
        }
    }
}
