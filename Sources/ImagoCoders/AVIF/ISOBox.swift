// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ISO base media file format box (ISO/IEC 14496-12 §4.2): its four-character type and the
/// bytes of its body, for the few boxes Imago reads itself in AVIF files that libavif 0.11 does
/// not (``AVIFRepetition``, ``AVIFContentLight``).
struct ISOBox {
    let type: String
    let body: Range<Int>

    /// The boxes laid end to end in `range`, stopping at the first that does not fit (at most
    /// 4,096).
    static func boxes(_ r: DataReader, _ range: Range<Int>) -> [ISOBox] {
        var out: [ISOBox] = []
        var o = range.lowerBound
        while o + 8 <= range.upperBound, out.count < 4096 {
            guard let size32 = r.u32be(o), let typeBytes = r.bytes(o + 4, 4) else { break }
            var header = 8, size = size32
            if size32 == 1 {
                guard let large = u64(r, o + 8), large <= UInt64(Int.max) else { break }
                size = Int(large)
                header = 16
            } else if size32 == 0 {
                size = range.upperBound - o
            }
            guard size >= header, size <= range.upperBound - o else { break }
            out.append(ISOBox(type: String(decoding: typeBytes, as: UTF8.self), body: (o + header)..<(o + size)))
            o += size
        }
        return out
    }

    /// The children of a full box (its body after the version and flags), or none when it is
    /// too short.
    static func fullBoxChildren(_ r: DataReader, _ box: ISOBox) -> [ISOBox] {
        box.body.count >= 4 ? boxes(r, (box.body.lowerBound + 4)..<box.body.upperBound) : []
    }

    static func u64(_ r: DataReader, _ o: Int) -> UInt64? {
        guard let hi = r.u32be(o), let lo = r.u32be(o + 4) else { return nil }
        return UInt64(hi) << 32 | UInt64(lo)
    }
}
