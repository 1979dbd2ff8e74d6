// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// An IPv4 or IPv6 address, parsed from every spelling a resolver accepts, and classified for
/// ``AddressPolicy``.
///
/// IPv4 is read as `inet_aton` reads it, so `2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1`
/// are all 127.0.0.1. IPv6 takes the usual forms, with `::` compression, an embedded dotted
/// IPv4 tail and surrounding brackets; a zone (`%eth0`) makes it not a literal.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// What an address is for, from the IANA special-purpose registries.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Routable on the internet.
        case global
        /// 127.0.0.0/8, ::1.
        case loopback
        /// RFC 1918 (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10), unique local
        /// (fc00::/7) and site-local (fec0::/10).
        case `private`
        /// 169.254/16 (cloud metadata services live here), fe80::/10.
        case linkLocal
        /// 0.0.0.0/8, `::`: "this host", which connects to the local machine.
        case unspecified
        /// 224/4, ff00::/8.
        case multicast
        /// 255.255.255.255.
        case broadcast
        /// Documentation, benchmarking, future use and other ranges no source lives on.
        case reserved
    }

    /// The address's 4 (IPv4) or 16 (IPv6) bytes, in network order.
    public let bytes: [UInt8]

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// An IPv4 address from its 32-bit value.
    public init(ipv4 value: UInt32) {
        self.init(raw: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    /// An IPv6 address from its 16 bytes; `nil` for any other count.
    public init?(ipv6 bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.init(raw: bytes)
    }

    private init(raw: [UInt8]) {
        bytes = raw
    }

    /// The address `text` spells, or `nil` when it is not an address literal (a host name).
    public init?(literal text: String) {
        var t = Substring(text)
        if t.hasPrefix("["), t.hasSuffix("]") { t = t.dropFirst().dropLast() }
        if t.contains(":") {
            guard let v6 = Self.parseIPv6(t) else { return nil }
            self.init(raw: v6)
        } else {
            guard let v4 = Self.parseIPv4(t) else { return nil }
            self.init(ipv4: v4)
        }
    }

    /// The IPv4 address an IPv6 address carries, when it is IPv4-mapped (`::ffff:a.b.c.d`),
    /// IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4
    /// (`2002::/16`) or Teredo (`2001::/32`, the client's address).
    public var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let b = bytes
        func v4(_ i: Int, inverted: Bool = false) -> IPAddress {
            let value = UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
            return IPAddress(ipv4: inverted ? ~value : value)
        }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return v4(12) }
        if b[0..<12].allSatisfy({ $0 == 0 }) && !(b[12..<15].allSatisfy { $0 == 0 } && b[15] <= 1) { return v4(12) }
        if b[0..<12] == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return v4(12) }
        if b[0..<6] == [0, 0x64, 0xFF, 0x9B, 0, 1] { return v4(12) }
        if b[0] == 0x20 && b[1] == 0x02 { return v4(2) }
        if b[0..<4] == [0x20, 0x01, 0, 0] { return v4(12, inverted: true) }
        return nil
    }

    /// What the address is for. An IPv6 address that carries an IPv4 one is what that one is.
    public var kind: Kind {
        if bytes.count == 4 { return Self.kindIPv4(bytes) }
        if let inner = embeddedIPv4 {
            // IPv4-mapped and -compatible addresses are their IPv4 address. NAT64, 6to4 and
            // Teredo reach the IPv4 address they carry: one that is not global makes the
            // IPv6 address what it carries; a global one leaves it global.
            let k = inner.kind
            let isIPv4Itself = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == bytes[11] && (bytes[10] == 0 || bytes[10] == 0xFF)
            if k != .global || isIPv4Itself { return k }
            return .global
        }
        let b = bytes
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if b[0] == 0xFF { return .multicast }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .private }
        if b[0] & 0xFE == 0xFC { return .private }
        if b[0..<8] == [0x01, 0, 0, 0, 0, 0, 0, 0] { return .reserved }  // 100::/64 discard
        if b[0..<4] == [0x20, 0x01, 0x0D, 0xB8] { return .reserved }  // documentation
        if b[0] & 0xE0 != 0x20 { return .reserved }  // outside 2000::/3
        return .global
    }

    private static func kindIPv4(_ b: [UInt8]) -> Kind {
        switch (b[0], b[1], b[2], b[3]) {
        case (0, _, _, _): return .unspecified
        case (127, _, _, _): return .loopback
        case (10, _, _, _): return .private
        case (172, 16...31, _, _): return .private
        case (192, 168, _, _): return .private
        case (100, 64...127, _, _): return .private
        case (169, 254, _, _): return .linkLocal
        case (255, 255, 255, 255): return .broadcast
        case (224...239, _, _, _): return .multicast
        case (240...255, _, _, _): return .reserved
        case (192, 0, 0, _), (192, 0, 2, _), (198, 51, 100, _), (203, 0, 113, _), (198, 18...19, _, _): return .reserved
        default: return .global
        }
    }

    /// Dotted decimal for IPv4; for IPv6, all eight hex groups, without `::` compression.
    public var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        var groups: [String] = []
        for i in stride(from: 0, to: 16, by: 2) { groups.append(String(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]), radix: 16)) }
        return groups.joined(separator: ":")
    }

    /// `inet_aton`: one to four parts in decimal, `0x` hex or leading-zero octal; the last part
    /// fills the remaining bytes.
    static func parseIPv4<S: StringProtocol>(_ text: S) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard !part.isEmpty else { return nil }
            let lower = part.lowercased()
            let value: UInt64?
            if lower.hasPrefix("0x") {
                value = lower.count == 2 ? 0 : UInt64(lower.dropFirst(2), radix: 16)
            } else if lower.count > 1 && lower.hasPrefix("0") {
                value = UInt64(lower.dropFirst(), radix: 8)
            } else {
                value = UInt64(lower, radix: 10)
            }
            guard let v = value, v <= UInt64(UInt32.max) else { return nil }
            values.append(v)
        }
        var result: UInt64 = 0
        for (i, v) in values.enumerated() {
            if i == values.count - 1 {
                let bits = UInt64(32 - 8 * i)
                guard v < (1 << bits) else { return nil }
                result |= v
            } else {
                guard v <= 0xFF else { return nil }
                result |= v << UInt64(24 - 8 * i)
            }
        }
        return UInt32(result)
    }

    static func parseIPv6(_ text: Substring) -> [UInt8]? {
        guard !text.contains("%") else { return nil }
        var head: [UInt16] = [], tail: [UInt16] = []
        var sawGap = false
        var rest = text
        if rest.hasPrefix("::") {
            sawGap = true
            rest = rest.dropFirst(2)
        } else if rest.hasPrefix(":") {
            return nil
        }
        var groups = rest.isEmpty ? [] : rest.split(separator: ":", omittingEmptySubsequences: false)
        var v4Tail: UInt32?
        if let last = groups.last, last.contains(".") {
            guard let v4 = parseDottedQuad(last) else { return nil }
            v4Tail = v4
            groups.removeLast()
        }
        for g in groups {
            if g.isEmpty {
                guard !sawGap else { return nil }
                sawGap = true
                continue
            }
            guard g.count <= 4, let v = UInt16(g, radix: 16) else { return nil }
            if sawGap { tail.append(v) } else { head.append(v) }
        }
        if let v4Tail {
            let parts = [UInt16(v4Tail >> 16), UInt16(v4Tail & 0xFFFF)]
            if sawGap { tail += parts } else { head += parts }
        }
        let count = head.count + tail.count
        guard sawGap ? count < 8 : count == 8 else { return nil }
        let all = head + Array(repeating: 0, count: 8 - count) + tail
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    /// Exactly four decimal parts (the only form allowed inside IPv6).
    private static func parseDottedQuad(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for p in parts {
            guard !p.isEmpty, p.count <= 3, let v = UInt32(p), v <= 255 else { return nil }
            value = value << 8 | v
        }
        return value
    }
}
