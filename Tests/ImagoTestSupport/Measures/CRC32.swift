// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// CRC-32 (IEEE, as zlib's `crc32`), for comparing against checksums other projects publish.
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The checksum of `bytes`, continuing from `crc` (0 to start); over buffer pointers, which
    /// keeps it quick in debug builds.
    public static func checksum(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        var c = ~crc
        table.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { bytes in
                for i in 0..<bytes.count { c = table[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8) }
            }
        }
        return ~c
    }

    /// The checksum of `bytes`, continuing from `crc` (0 to start).
    public static func checksum<S: Sequence>(_ bytes: S, continuing crc: UInt32 = 0) -> UInt32 where S.Element == UInt8 {
        var c = ~crc
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return ~c
    }
}
