// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
import ImagoCore

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

/// An XMP packet's properties grouped by namespace prefix, as imgproxy Pro's `/info` reports
/// them: `{"dc": {"creator": ["…"], "format": "image/jpeg"}, "aux": {"Lens": "…"}}`. Read with
/// libxml2, loaded on first use.
///
/// The properties of each top-level `rdf:Description`, as attributes or as elements: a simple
/// value is text; a `rdf:Bag` or `rdf:Seq` is a list; a `rdf:Alt` (language alternatives) is its
/// `x-default` item, else its first. Structures are left out. A packet with a document type
/// declaration (where entities could hide) is refused whole.
public enum XMPFields {
    /// A property's value.
    public enum Value: Sendable, Hashable {
        case text(String)
        case list([String])
    }

    /// The most properties read from one packet.
    public static let maxProperties = 10_000

    /// The properties of `packet` by prefix, each prefix's in the order met; empty for a packet
    /// that is not XML, declares a document type, is over `MetadataBlocks.maxXMPBytes`, or when
    /// libxml2 is not installed.
    public static func properties(of packet: Data) -> [(prefix: String, properties: [(name: String, value: Value)])] {
        let bytes = [UInt8](packet)
        guard !bytes.isEmpty, bytes.count <= MetadataBlocks.maxXMPBytes, imago_xml_available() != 0,
            bytes.firstRange(of: Array("<!DOCTYPE".utf8)) == nil, bytes.firstRange(of: Array("<!ENTITY".utf8)) == nil
        else { return [] }
        return bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress, let reader = imago_xml_open(base, b.count) else { return [] }
            defer { imago_xml_close(reader) }
            var walk = Walk(reader: reader)
            walk.run()
            return walk.groups
        }
    }

    /// The reader's walk: an element stack, the property being read and its list items.
    private struct Walk {
        let reader: OpaquePointer
        var groups: [(prefix: String, properties: [(name: String, value: Value)])] = []
        var groupIndex: [String: Int] = [:]
        var stack: [String] = []
        var count = 0
        /// The property element being read: its prefix, name, depth, text, items, whether it is an Alt.
        var property: (prefix: String, name: String, depth: Int, text: String, items: [String], alt: Bool, list: Bool)?
        var item: (text: String, language: String?)?
        var altDefault: String?

        init(reader: OpaquePointer) { self.reader = reader }

        func string(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

        mutating func add(_ prefix: String, _ name: String, _ value: Value) {
            guard count < XMPFields.maxProperties, !prefix.isEmpty, !["rdf", "xml", "xmlns", "x"].contains(prefix) else { return }
            count += 1
            if let i = groupIndex[prefix] {
                guard !groups[i].properties.contains(where: { $0.name == name }) else { return }
                groups[i].properties.append((name, value))
            } else {
                groupIndex[prefix] = groups.count
                groups.append((prefix, [(name, value)]))
            }
        }

        static func split(_ qualified: String) -> (String, String) {
            guard let colon = qualified.firstIndex(of: ":") else { return ("", qualified) }
            return (String(qualified[..<colon]), String(qualified[qualified.index(after: colon)...]))
        }

        mutating func run() {
            while imago_xml_read(reader, 0) == 1 {
                switch imago_xml_node_type(reader) {
                case 1: element()
                case 3, 4:
                    let text = string(imago_xml_value(reader))
                    if item != nil {
                        item?.text += text
                    } else if property != nil, stack.count == (property?.depth ?? 0) + 1 {
                        property?.text += text
                    }
                case 15: end()
                default: break
                }
            }
        }

        mutating func element() {
            let name = string(imago_xml_name(reader))
            let empty = imago_xml_is_empty(reader) != 0
            if name == "rdf:Description", stack.last == "rdf:RDF" {
                // Properties as attributes.
                while imago_xml_next_attribute(reader) != 0 {
                    let (prefix, local) = Self.split(string(imago_xml_name(reader)))
                    add(prefix, local, .text(string(imago_xml_value(reader))))
                }
                imago_xml_to_element(reader)
            } else if stack.last == "rdf:Description", stack.count >= 2, stack[stack.count - 2] == "rdf:RDF" {
                let (prefix, local) = Self.split(name)
                property = (prefix, local, stack.count, "", [], false, false)
                altDefault = nil
                if empty {
                    property = nil
                    return
                }
            } else if property != nil, ["rdf:Bag", "rdf:Seq", "rdf:Alt"].contains(name), stack.count == (property?.depth ?? 0) + 1 {
                property?.list = name != "rdf:Alt"
                property?.alt = name == "rdf:Alt"
            } else if property != nil, name == "rdf:li", stack.count == (property?.depth ?? 0) + 2 {
                var language: String?
                while imago_xml_next_attribute(reader) != 0 {
                    if string(imago_xml_name(reader)) == "xml:lang" { language = string(imago_xml_value(reader)) }
                }
                imago_xml_to_element(reader)
                item = ("", language)
                if empty { end(li: true) }
            }
            if !empty { stack.append(name) }
        }

        mutating func end(li: Bool = false) {
            let name = li ? "rdf:li" : (stack.popLast() ?? "")
            if name == "rdf:li", let finished = item {
                item = nil
                property?.items.append(finished.text)
                if finished.language == "x-default" { altDefault = finished.text }
            } else if let p = property, stack.count == p.depth {
                property = nil
                if p.list {
                    // Items that are structures read as empty text: left out, and a list of them too.
                    let items = p.items.filter { !$0.isEmpty }
                    if !items.isEmpty { add(p.prefix, p.name, .list(items)) }
                } else if p.alt {
                    if let chosen = altDefault ?? p.items.first { add(p.prefix, p.name, .text(chosen)) }
                } else {
                    let text = p.text.trimmingCharacters(in: " \n\r\t")
                    if !text.isEmpty { add(p.prefix, p.name, .text(text)) }
                }
            }
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.last, set.contains(c) { s.removeLast() }
        while let c = s.first, set.contains(c) { s.removeFirst() }
        return String(s)
    }
}
