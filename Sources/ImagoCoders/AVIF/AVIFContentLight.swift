// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The maximum content light level of an AVIF still image's primary item: its `clli` property
/// (CTA-861.3 in a HEIF item property, ISO/IEC 23008-12), which libavif 1.x reads and libavif
/// 0.11, which decodes here, does not. libheif gives the same value for HEIC; ``HDRToSDR`` maps
/// PQ light from it.
package enum AVIFContentLight {
    /// The primary item's maximum content light level in nits, or `nil` when the file has no
    /// such property for it (or the boxes cannot be read).
    package static func maximum(in data: Data) -> Double? {
        let r = DataReader(data)
        guard let meta = ISOBox.boxes(r, 0..<r.count).first(where: { $0.type == "meta" }) else { return nil }
        let children = ISOBox.fullBoxChildren(r, meta)
        guard let primary = primaryItem(r, children),
            let iprp = children.first(where: { $0.type == "iprp" })
        else { return nil }
        let properties = ISOBox.boxes(r, iprp.body)
        guard let ipco = properties.first(where: { $0.type == "ipco" }) else { return nil }
        let items = ISOBox.boxes(r, ipco.body)
        for ipma in properties where ipma.type == "ipma" {
            for index in associations(r, ipma, item: primary) where index >= 1 && index <= items.count {
                let property = items[index - 1]
                guard property.type == "clli", let level = r.u16be(property.body.lowerBound), level > 0 else { continue }
                return Double(level)
            }
        }
        return nil
    }

    /// The item id the `pitm` box names.
    private static func primaryItem(_ r: DataReader, _ children: [ISOBox]) -> Int? {
        guard let pitm = children.first(where: { $0.type == "pitm" }), let version = r.u8(pitm.body.lowerBound) else { return nil }
        return version == 0 ? r.u16be(pitm.body.lowerBound + 4) : r.u32be(pitm.body.lowerBound + 4)
    }

    /// The 1-based property indices an `ipma` box associates with `item`.
    private static func associations(_ r: DataReader, _ ipma: ISOBox, item: Int) -> [Int] {
        let start = ipma.body.lowerBound
        guard let version = r.u8(start), let flags = r.u32be(start).map({ $0 & 0xFF_FFFF }), let count = r.u32be(start + 4) else {
            return []
        }
        let idBytes = version < 1 ? 2 : 4, wide = flags & 1 == 1
        var o = start + 8
        for _ in 0..<min(count, 1 << 16) {
            guard let id = idBytes == 2 ? r.u16be(o) : r.u32be(o), let n = r.u8(o + idBytes).map(Int.init) else { return [] }
            o += idBytes + 1
            guard o + n * (wide ? 2 : 1) <= ipma.body.upperBound else { return [] }
            if id == item {
                // Each association: an "essential" bit, then the index in 7 or 15 bits.
                return (0..<n).compactMap { k in wide ? r.u16be(o + 2 * k).map { $0 & 0x7FFF } : r.u8(o + k).map { Int($0 & 0x7F) } }
            }
            o += n * (wide ? 2 : 1)
        }
        return []
    }
}
