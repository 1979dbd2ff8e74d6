// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// `%XX` escapes in URL text, decoded once for every layer that reads them (`data:` URLs, the
/// service's plain sources and file names).
package enum PercentDecoding {
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
}
