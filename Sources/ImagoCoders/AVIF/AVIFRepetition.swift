// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// How many times an AVIF image sequence plays, read from its colour track's boxes, as libavif
/// 1.x reads it (libavif 0.11, which decodes here, does not): the track header's duration and
/// the edit list's repeat flag and segment duration (ISO/IEC 23008-12 §9.6.1).
///
/// - No `edts` box: unknown, played forever (0), as browsers play it.
/// - An edit list without the repeat flag: played once (1).
/// - Repeating, with an indefinite track duration: forever (0).
/// - Repeating: the edit list repeats until the track duration is filled, so
///   ⌈track duration ÷ segment duration⌉ plays (0, forever, when that passes `Int32.max`).
package enum AVIFRepetition {
    /// Total plays (0 means forever) of the sequence in `data`, or `nil` when no colour track
    /// can be read (then the caller's default holds).
    package static func plays(in data: Data) -> Int? {
        let r = DataReader(data)
        guard let moov = ISOBox.boxes(r, 0..<r.count).first(where: { $0.type == "moov" }) else { return nil }
        for trak in ISOBox.boxes(r, moov.body) where trak.type == "trak" {
            let children = ISOBox.boxes(r, trak.body)
            // The colour track: a picture track that is not an auxiliary (alpha, depth) one.
            guard let mdia = children.first(where: { $0.type == "mdia" }),
                let hdlr = ISOBox.boxes(r, mdia.body).first(where: { $0.type == "hdlr" }),
                r.matches("pict", at: hdlr.body.lowerBound + 8)
            else { continue }
            if let tref = children.first(where: { $0.type == "tref" }), ISOBox.boxes(r, tref.body).contains(where: { $0.type == "auxl" }) {
                continue
            }
            guard let tkhd = children.first(where: { $0.type == "tkhd" }), let version = r.u8(tkhd.body.lowerBound) else { return nil }
            // tkhd: version and flags, two times, track ID, reserved, then the duration.
            let trackDuration: UInt64?
            if version == 1 {
                trackDuration = ISOBox.u64(r, tkhd.body.lowerBound + 4 + 8 + 8 + 4 + 4)
            } else {
                trackDuration = r.u32be(tkhd.body.lowerBound + 4 + 4 + 4 + 4 + 4).map { $0 == 0xFFFF_FFFF ? UInt64.max : UInt64($0) }
            }
            guard let edts = children.first(where: { $0.type == "edts" }) else { return 0 }
            guard let elst = ISOBox.boxes(r, edts.body).first(where: { $0.type == "elst" }),
                let elstVersion = r.u8(elst.body.lowerBound), let flags = r.u32be(elst.body.lowerBound)
            else { return nil }
            guard flags & 1 == 1 else { return 1 }
            guard let duration = trackDuration else { return nil }
            if duration == UInt64.max { return 0 }
            // elst: version and flags, entry count, then the first entry's segment duration.
            let segment =
                elstVersion == 1
                ? ISOBox.u64(r, elst.body.lowerBound + 8)
                : r.u32be(elst.body.lowerBound + 8).map { UInt64($0) }
            guard let segment, segment > 0, duration > 0 else { return 0 }
            let plays = duration / segment + (duration % segment != 0 ? 1 : 0)
            return plays > UInt64(Int32.max) ? 0 : Int(plays)
        }
        return nil
    }
}
