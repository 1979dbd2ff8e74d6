// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

/// IPTC-IIM records (the "IPTC" of photo metadata, as Photoshop stores it): the application
/// record's datasets by their IIM titles, as imgproxy Pro's `/info` names them (`Name`,
/// `Caption`, `Keywords`, `Copyright Notice`, …).
public enum IPTC {
    /// One field: its title and its values (several for a repeated dataset).
    public struct Field: Sendable, Hashable {
        /// The dataset's IIM title, such as `Keywords` or `Copyright Notice`.
        public var name: String
        /// The dataset's text, one entry per occurrence, in the order read.
        public var values: [String]
        /// Whether the dataset may repeat (keywords, creators, contacts): reported as a list
        /// even with one value.
        public var repeatable: Bool
    }

    /// The application record's (2) datasets by number: title, and whether it repeats.
    static let datasets: [UInt8: (String, Bool)] = [
        3: ("Object Type Reference", false), 4: ("Object Attribute Reference", true), 5: ("Name", false), 7: ("Edit Status", false),
        10: ("Urgency", false), 12: ("Subject Reference", true), 15: ("Category", false), 20: ("Supplemental Category", true),
        22: ("Fixture Identifier", false), 25: ("Keywords", true), 26: ("Content Location Code", true),
        27: ("Content Location Name", true), 30: ("Release Date", false), 35: ("Release Time", false),
        37: ("Expiration Date", false), 38: ("Expiration Time", false), 40: ("Special Instructions", false),
        42: ("Action Advised", false), 45: ("Reference Service", true), 47: ("Reference Date", true),
        50: ("Reference Number", true), 55: ("Date Created", false), 60: ("Time Created", false),
        62: ("Digital Creation Date", false), 63: ("Digital Creation Time", false), 65: ("Originating Program", false),
        70: ("Program Version", false), 75: ("Object Cycle", false), 80: ("By-line", true), 85: ("By-line Title", true),
        90: ("City", false), 92: ("Sub-location", false), 95: ("Province/State", false),
        100: ("Country/Primary Location Code", false), 101: ("Country/Primary Location Name", false),
        103: ("Original Transmission Reference", false), 105: ("Headline", false), 110: ("Credit", false),
        115: ("Source", false), 116: ("Copyright Notice", false), 118: ("Contact", true), 120: ("Caption", false),
        122: ("Writer/Editor", true), 135: ("Language Identifier", false)
    ]

    /// The application record's fields in `records`, in the order first met. Text is UTF-8 when
    /// the envelope says so (1:90 `ESC % G`) or when it is valid UTF-8, else Latin-1. Datasets
    /// without a title here, and records cut short, are left out.
    public static func fields(in records: Data) -> [Field] {
        let b = [UInt8](records)
        var out: [Field] = []
        var index: [String: Int] = [:]
        var utf8 = false
        var i = 0
        while i + 5 <= b.count, b[i] == 0x1C {
            let record = b[i + 1], dataset = b[i + 2]
            var length = Int(b[i + 3]) << 8 | Int(b[i + 4])
            var start = i + 5
            if length & 0x8000 != 0 {
                // An extended dataset: the next (length & 0x7FFF) bytes hold the length.
                let count = length & 0x7FFF
                guard count <= 4, start + count <= b.count else { break }
                length = b[start..<(start + count)].reduce(0) { $0 << 8 | Int($1) }
                start += count
            }
            guard length <= b.count - start else { break }
            let value = Array(b[start..<(start + length)])
            i = start + length
            if record == 1, dataset == 90 { utf8 = value == [0x1B, 0x25, 0x47] }
            guard record == 2, let (name, repeatable) = datasets[dataset] else { continue }
            let text = decode(value, utf8: utf8)
            if let at = index[name] {
                out[at].values.append(text)
            } else {
                index[name] = out.count
                out.append(Field(name: name, values: [text], repeatable: repeatable))
            }
        }
        return out
    }

    static func decode(_ bytes: [UInt8], utf8: Bool) -> String {
        let trimmed = bytes.last == 0 ? Array(bytes.dropLast()) : bytes
        if let s = String(validating: trimmed, as: UTF8.self) { return s }
        if utf8 { return String(decoding: trimmed, as: UTF8.self) }
        return String(String.UnicodeScalarView(trimmed.map { Unicode.Scalar($0) }))
    }
}
