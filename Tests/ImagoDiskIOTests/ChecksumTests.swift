// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoDiskIO
import Testing

@Suite("Checksum")
struct ChecksumTests {
    // Expected values: a Python port of Checksum.fast64 (little-endian 64-bit words, the tail's
    // bytes packed little-endian), cross-checked by compiling the algorithm from Checksum.swift
    // alone with swiftc; both gave these. The checksum is stored with cache files, so these must
    // never change. Data() hands over a non-nil address (the tail step runs once for it): a nil
    // address would give 0x51d9_55d6_df88_d9fe instead.
    static let strings: [(String, UInt64)] = [
        ("", 0xd286_f64a_1429_12c7), ("abc", 0xb802_a08a_e3f9_b395),
        ("The quick brown fox jumps over the lazy dog", 0x6dd1_c022_3155_ebce)
    ]
    /// `pattern(count)`: lengths around the 8-byte word and the 32-byte stride.
    static let patterns: [(Int, UInt64)] = [
        (1, 0x5a96_18e7_f487_65cf), (7, 0xbaa4_9281_532c_8914), (8, 0xe5d4_4b67_40af_0e01), (31, 0x5f17_d377_5264_b3cb),
        (32, 0x8761_bd65_d98a_7eef), (33, 0xd3bc_d120_c48f_cd43), (40, 0xafee_defa_108d_74b0), (64, 0x1658_4ccc_a24d_2469),
        (100, 0x294f_26e9_99b4_8268), (1000, 0xbf2c_45b5_b465_2862)
    ]

    @Test("known vectors")
    func knownVectors() {
        for (string, expected) in Self.strings {
            #expect(Checksum.fast64(Data(string.utf8)) == expected, "\(string)")
        }
        for (count, expected) in Self.patterns {
            #expect(Checksum.fast64(Data(pattern(count))) == expected, "pattern(\(count))")
        }
        #expect(Checksum.fast64(Data(count: 8)) == 0xd25d_d0fb_aab1_44c7)
        #expect(Checksum.fast64(Data(count: 9)) == 0x02ea_4b14_6de4_ef2a)
    }

    @Test("a slice with a non-zero start index sums as a copy of its bytes")
    func slices() {
        let whole = Data(pattern(1100))
        #expect(Checksum.fast64(whole[0..<100]) == 0x294f_26e9_99b4_8268)
        for range in [3..<103, 17..<18, 33..<1033, 40..<40] {
            #expect(Checksum.fast64(whole[range]) == Checksum.fast64(Data(Array(whole[range]))), "\(range)")
        }
    }

    @Test("changing any one bit, truncating, or appending a zero byte changes the checksum")
    func detectsDamage() {
        let bytes = pattern(100)
        let original = Checksum.fast64(Data(bytes))
        for index in bytes.indices {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[index] ^= UInt8(1) << bit
                #expect(Checksum.fast64(Data(damaged)) != original, "byte \(index) bit \(bit)")
            }
        }
        #expect(Checksum.fast64(Data(bytes.dropLast())) != original)
        #expect(Checksum.fast64(Data(bytes + [0])) != original)
        #expect(Checksum.fast64(Data()) != Checksum.fast64(Data([0])))
    }
}
