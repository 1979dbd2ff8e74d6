// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

/// A read of an SVG document's markup before librsvg parses it, to refuse what would cost more
/// than the limits allow while parsing or rendering: the encoding (UTF-8 only, as resvg reads),
/// the element count and nesting depth with every XML entity expanded, and the size the entities
/// expand to (the "billion laughs"), against ``DecodingLimits/maxElements``,
/// ``DecodingLimits/maxNestingDepth`` and ``DecodingLimits/maxBytes``.
///
/// It is a scanner, not a parser: it follows tags, comments, CDATA, processing instructions and
/// the internal DTD subset well enough to count, and leaves well-formedness to libxml2.
struct SVGPreflight {
    /// What a stretch of markup amounts to once its entities are expanded.
    struct Cost {
        var elements = 0
        var depth = 0
        var bytes = 0

        mutating func add(_ other: Cost, at depth: Int) {
            elements = Self.sum(elements, other.elements)
            bytes = Self.sum(bytes, other.bytes)
            self.depth = max(self.depth, Self.sum(depth, other.depth))
        }

        static func sum(_ a: Int, _ b: Int) -> Int {
            let (s, o) = a.addingReportingOverflow(b)
            return o ? .max : s
        }
    }

    private let b: [UInt8]
    private let limits: DecodingLimits
    /// Declared general entities: their replacement text as a range of `b`, or `nil` for an
    /// external one (which librsvg, with no base location, refuses to load).
    private var declared: [String: Range<Int>?] = [:]
    private var evaluated: [String: Cost] = [:]
    private var evaluating: Set<String> = []

    /// Checks `bytes` against `limits`.
    ///
    /// - Throws: `.unsupportedFeature(.svg, …)` for a document that is not UTF-8;
    ///   `.corrupt(.svg, …)` for an entity that refers to itself; `.exceedsLimit` with
    ///   `.maxElements`, `.maxNestingDepth` or `.maxBytes` (the expanded size).
    static func check(_ bytes: [UInt8], limits: DecodingLimits) throws {
        var scan = SVGPreflight(b: bytes, limits: limits)
        try scan.run()
    }

    private mutating func run() throws {
        var start = 0
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        if b.starts(with: [0xFE, 0xFF]) || b.starts(with: [0xFF, 0xFE]) || (b.count > 1 && (b[0] == 0 || b[1] == 0)) {
            throw ImageCodingError.unsupportedFeature(.svg, "the document is UTF-16; only UTF-8 SVG is read")
        }
        try checkEncoding(from: start)
        let cost = try scan(start..<b.count, topLevel: true)
        try check(cost)
    }

    private func check(_ cost: Cost) throws {
        if cost.elements > limits.maxElements {
            throw ImageCodingError.exceedsLimit(.maxElements, found: cost.elements, limit: limits.maxElements)
        }
        if cost.depth > limits.maxNestingDepth {
            throw ImageCodingError.exceedsLimit(.maxNestingDepth, found: cost.depth, limit: limits.maxNestingDepth)
        }
        if cost.bytes > limits.maxBytes {
            throw ImageCodingError.exceedsLimit(.maxBytes, found: cost.bytes, limit: limits.maxBytes)
        }
    }

    /// The XML declaration's encoding, when it names one, must be UTF-8 (or its ASCII subset).
    private func checkEncoding(from start: Int) throws {
        guard matches("<?xml", at: start), let end = find("?>", from: start) else { return }
        let declaration = Array(String(decoding: b[start..<end], as: UTF8.self).lowercased().utf8)
        let key = Array("encoding".utf8)
        guard let at = (0..<max(0, declaration.count - key.count)).first(where: { declaration[$0..<($0 + key.count)].elementsEqual(key) })
        else { return }
        let rest = declaration[(at + key.count)...].drop { $0 == 0x20 || $0 == UInt8(ascii: "=") || $0 == 0x09 }
        guard let quote = rest.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return }
        let name = String(decoding: rest.dropFirst().prefix { $0 != quote }, as: UTF8.self)
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(name) else {
            throw ImageCodingError.unsupportedFeature(.svg, "the document is encoded in \(name); only UTF-8 SVG is read")
        }
    }

    /// Counts the elements, nesting and expanded bytes of `range`, expanding entity references.
    private mutating func scan(_ range: Range<Int>, topLevel: Bool) throws -> Cost {
        var cost = Cost(bytes: range.count)
        var depth = 0
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            let c = b[i]
            if c == UInt8(ascii: "&") {
                i = try reference(at: i, end: end, depth: depth, into: &cost)
                continue
            }
            guard c == UInt8(ascii: "<"), i + 1 < end else {
                i += 1
                continue
            }
            if matches("<!--", at: i) {
                i = (find("-->", from: i + 4, end: end) ?? end) + 3
            } else if matches("<![CDATA[", at: i) {
                i = (find("]]>", from: i + 9, end: end) ?? end) + 3
            } else if matches("<?", at: i) {
                i = (find("?>", from: i + 2, end: end) ?? end) + 2
            } else if matches("<!DOCTYPE", at: i) {
                i = topLevel ? try doctype(at: i + 9) : skipTag(from: i + 2, end: end).next
            } else if b[i + 1] == UInt8(ascii: "/") {
                depth = max(0, depth - 1)
                i = skipTag(from: i + 2, end: end).next
            } else if b[i + 1] == UInt8(ascii: "!") {
                i = skipTag(from: i + 2, end: end).next
            } else {
                cost.elements = Cost.sum(cost.elements, 1)
                let tag = skipTag(from: i + 1, end: end)
                // Attribute values may hold entity references too.
                var j = i + 1
                while j < tag.next {
                    if b[j] == UInt8(ascii: "&") {
                        j = try reference(at: j, end: tag.next, depth: depth, into: &cost)
                    } else {
                        j += 1
                    }
                }
                if !tag.selfClosing {
                    depth += 1
                    cost.depth = max(cost.depth, depth)
                }
                i = tag.next
            }
            if topLevel { try check(cost) }
        }
        return cost
    }

    /// Adds the expansion of the reference at `i` (`&name;`) and returns the index after it.
    private mutating func reference(at i: Int, end: Int, depth: Int, into cost: inout Cost) throws -> Int {
        var j = i + 1
        while j < end, j - i < 256, b[j] != UInt8(ascii: ";"), b[j] != UInt8(ascii: "<"), b[j] != UInt8(ascii: "&") { j += 1 }
        guard j < end, b[j] == UInt8(ascii: ";") else { return i + 1 }
        let name = String(decoding: b[(i + 1)..<j], as: UTF8.self)
        if !name.hasPrefix("#"), !["lt", "gt", "amp", "apos", "quot"].contains(name) {
            cost.add(try expansion(of: name), at: depth)
        }
        return j + 1
    }

    /// What entity `name` expands to, computed once.
    private mutating func expansion(of name: String) throws -> Cost {
        if let known = evaluated[name] { return known }
        guard let entry = declared[name], let value = entry else { return Cost() }
        guard !evaluating.contains(name) else {
            throw ImageCodingError.corrupt(.svg, "the XML entity \"\(name)\" refers to itself")
        }
        evaluating.insert(name)
        let cost = try scan(value, topLevel: false)
        evaluating.remove(name)
        evaluated[name] = cost
        try check(cost)
        return cost
    }

    /// Reads the DOCTYPE's internal subset for general entity declarations; returns the index
    /// after the DOCTYPE.
    private mutating func doctype(at start: Int) throws -> Int {
        var i = start
        // The external id, up to the internal subset or the end.
        while i < b.count, b[i] != UInt8(ascii: "["), b[i] != UInt8(ascii: ">") {
            i = quoted(at: i) ?? i + 1
        }
        guard i < b.count, b[i] == UInt8(ascii: "[") else { return i + 1 }
        i += 1
        while i < b.count, b[i] != UInt8(ascii: "]") {
            if matches("<!ENTITY", at: i) {
                i = entityDeclaration(at: i + 8)
            } else if matches("<!--", at: i) {
                i = (find("-->", from: i + 4) ?? b.count) + 3
            } else if b[i] == UInt8(ascii: "<") {
                i = skipTag(from: i + 1, end: b.count).next
            } else {
                i += 1
            }
        }
        while i < b.count, b[i] != UInt8(ascii: ">") { i += 1 }
        return i + 1
    }

    /// Records `<!ENTITY name "value">` (general entities only) and returns the index after it.
    private mutating func entityDeclaration(at start: Int) -> Int {
        var i = skipSpace(start)
        let parameter = i < b.count && b[i] == UInt8(ascii: "%")
        if parameter { i = skipSpace(i + 1) }
        let nameStart = i
        while i < b.count, !isSpace(b[i]), b[i] != UInt8(ascii: ">") { i += 1 }
        let name = String(decoding: b[nameStart..<i], as: UTF8.self)
        i = skipSpace(i)
        var value: Range<Int>?
        if i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
            let close = quoted(at: i) ?? b.count
            value = (i + 1)..<max(i + 1, close - 1)
            i = close
        }
        let end = skipTag(from: i, end: b.count).next
        if !parameter, !name.isEmpty, declared[name] == nil { declared[name] = .some(value) }
        return end
    }

    /// The end of a tag begun before `from`: the index after its `>`, quotes respected, and
    /// whether it closed with `/>`.
    private func skipTag(from: Int, end: Int) -> (next: Int, selfClosing: Bool) {
        var i = from
        while i < end {
            if b[i] == UInt8(ascii: ">") { return (i + 1, i > from && b[i - 1] == UInt8(ascii: "/")) }
            i = quoted(at: i) ?? i + 1
        }
        return (end, true)
    }

    /// The index after the quoted string starting at `i`, or `nil` when `i` is not a quote.
    private func quoted(at i: Int) -> Int? {
        let q = b[i]
        guard q == UInt8(ascii: "\"") || q == UInt8(ascii: "'") else { return nil }
        var j = i + 1
        while j < b.count, b[j] != q { j += 1 }
        return min(b.count, j + 1)
    }

    private func matches(_ s: StaticString, at i: Int) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i >= 0, i + n <= b.count else { return false }
        return s.withUTF8Buffer { p in (0..<n).allSatisfy { b[i + $0] == p[$0] } }
    }

    private func find(_ s: StaticString, from: Int, end: Int? = nil) -> Int? {
        let limit = (end ?? b.count) - s.utf8CodeUnitCount
        guard from <= limit else { return nil }
        var i = from
        while i <= limit {
            if matches(s, at: i) { return i }
            i += 1
        }
        return nil
    }

    private func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    private func skipSpace(_ from: Int) -> Int {
        var i = from
        while i < b.count, isSpace(b[i]) { i += 1 }
        return i
    }
}
