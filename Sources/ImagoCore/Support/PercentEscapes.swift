// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// `%XX` escapes in URL text, read and written once for every layer that uses them (`data:` URLs,
/// the service's plain sources, file names and headers).
package enum PercentEscapes {
    /// `text` with its `%XX` escapes turned into bytes; `nil` for a broken escape.
    package static func bytes(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x41 + 10
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        while let c = it.next() {
            guard c == 0x25 else {
                out.append(c)
                continue
            }
            guard let h = it.next().flatMap(hex), let l = it.next().flatMap(hex) else { return nil }
            out.append(h << 4 | l)
        }
        return out
    }

    /// `text` with every UTF-8 byte for which `keep` is false written as `%XX` (upper-case digits).
    package static func escaped(_ text: String, keeping keep: (UInt8) -> Bool) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            if keep(b) { out.append(b) } else { out += [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0x0F)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
