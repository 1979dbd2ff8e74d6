// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// A fast 64-bit checksum for detecting damaged cache files, not for security.
///
/// Four independent lanes each absorb every fourth 64-bit word as `rotl((lane ^ w) × P, 31)`.
/// For a fixed lane state that step is a bijection of `w` (P is odd), so changing any single
/// word always changes the result, and truncation or extension is caught by the length folded
/// into the final mix. The lanes run in parallel, so it keeps up with reading the file.
package enum Checksum {
    package static func fast64(_ data: Data) -> UInt64 {
        data.withUnsafeBytes { fast64($0) }
    }

    static func fast64(_ raw: UnsafeRawBufferPointer) -> UInt64 {
        let p1: UInt64 = 0x9E37_79B1_85EB_CA87, p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        var a: UInt64 = 0x6A09_E667_F3BC_C908, b: UInt64 = 0xBB67_AE85_84CA_A73B
        var c: UInt64 = 0x3C6E_F372_FE94_F82B, d: UInt64 = 0xA54F_F53A_5F1D_36F1
        @inline(__always) func round(_ lane: UInt64, _ w: UInt64) -> UInt64 {
            let x = (lane ^ w) &* p1
            return (x << 31) | (x >> 33)
        }
        let count = raw.count
        var i = 0
        if let base = raw.baseAddress {
            while i + 32 <= count {
                a = round(a, base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                b = round(b, base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                c = round(c, base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
                d = round(d, base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
                i += 32
            }
            var tail: UInt64 = 0, shift: UInt64 = 0
            while i < count {
                tail |= UInt64(raw[i]) << shift
                shift += 8
                if shift == 64 {
                    a = round(a, tail)
                    tail = 0
                    shift = 0
                }
                i += 1
            }
            b = round(b, tail)
        }
        var h = round(a, UInt64(count)) ^ (b &* p2) ^ ((c << 17) | (c >> 47)) ^ (d &* p1)
        h ^= h >> 29
        h = h &* p2
        h ^= h >> 32
        return h
    }
}
