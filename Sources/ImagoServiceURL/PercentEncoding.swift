/// Percent-escapes in URL text.
enum PercentEncoding {
    /// `text` with its `%XX` escapes turned into bytes and read as UTF-8; `nil` for a broken
    /// escape or bytes that are not UTF-8.
    static func decode(_ text: String) -> String? {
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
            guard c == 0x25 else { out.append(c); continue }
            guard let h = it.next().flatMap(hex), let l = it.next().flatMap(hex) else { return nil }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
    }

    /// `text` percent-encoded for a `plain/` source: everything but unreserved characters and
    /// `:/` is escaped, so `?`, `@`, `%` and `#` never reach the path raw.
    static func encodeSource(_ text: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/".utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in text.utf8 {
            if allowed.contains(b) { out.append(b) } else { out += [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 0x0F)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
