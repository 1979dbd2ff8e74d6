// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The first image file directory of a TIFF (classic or BigTIFF), read without decoding pixels:
/// size, samples, bits, orientation, alpha (ExtraSamples), ICC presence, and the number of
/// directories (pages) in the main chain.
struct TIFFHeader {
    var width = 0
    var height = 0
    var bitsPerSample = 1
    var samplesPerPixel = 1
    var orientation = ImageOrientation.up
    var hasAlpha = false
    var hasICC = false
    var pageCount = 0

    private let r: DataReader
    private let big: Bool
    private let bigEndian: Bool

    /// - Throws: `.truncated` when the header or first directory is incomplete, `.corrupt` for a bad
    ///   header, `.exceedsLimit(.maxFrames, …)` for a directory chain longer than the frame limit.
    init(_ r: DataReader, limits: DecodingLimits = .default) throws {
        self.r = r
        guard let b0 = r.u8(0) else { throw ImageCodingError.truncated(.tiff, "the header is missing") }
        bigEndian = b0 == 0x4D
        guard let magic = bigEndian ? r.u16be(2) : r.u16le(2), magic == 42 || magic == 43 else {
            throw ImageCodingError.corrupt(.tiff, "the TIFF header has no 42/43 marker")
        }
        big = magic == 43
        guard var ifd = big ? u64(8) : u32(4) else { throw ImageCodingError.truncated(.tiff, "the header is incomplete") }
        var visited = Set<Int>()
        while ifd != 0 {
            guard ifd > 0, !visited.contains(ifd) else { break }  // a loop in the chain ends it
            visited.insert(ifd)
            guard let next = try readDirectory(at: ifd, first: pageCount == 0) else {
                if pageCount == 0 { throw ImageCodingError.truncated(.tiff, "the first image directory is incomplete") }
                break
            }
            pageCount += 1
            try limits.check(frameCount: pageCount, framePixels: 0)
            ifd = next
        }
    }

    private func u16(_ o: Int) -> Int? { bigEndian ? r.u16be(o) : r.u16le(o) }
    private func u32(_ o: Int) -> Int? { bigEndian ? r.u32be(o) : r.u32le(o) }
    private func u64(_ o: Int) -> Int? {
        guard let a = u32(o), let b = u32(o + 4) else { return nil }
        let (hi, lo) = bigEndian ? (a, b) : (b, a)
        guard hi < 0x8000_0000 else { return nil }
        return hi << 32 | lo
    }

    /// Reads one directory; returns the offset of the next one (0 for none), or `nil` if cut short.
    private mutating func readDirectory(at offset: Int, first: Bool) throws -> Int? {
        let entrySize = big ? 20 : 12
        guard let count = big ? u64(offset) : u16(offset), count < 65_536 else { return nil }
        let entries = offset + (big ? 8 : 2)
        if first {
            for i in 0..<count {
                let e = entries + i * entrySize
                guard let tag = u16(e), let type = u16(e + 2) else { return nil }
                let valueOffset = e + (big ? 12 : 8)
                func value() -> Int? {
                    switch type {
                    case 3: return u16(valueOffset)
                    case 4: return u32(valueOffset)
                    case 16: return u64(valueOffset)
                    default: return nil
                    }
                }
                switch tag {
                case 256: width = value() ?? 0
                case 257: height = value() ?? 0
                case 258:
                    // One value inline; several (one per sample) stored elsewhere: read the first.
                    let n = big ? (u64(e + 4) ?? 1) : (u32(e + 4) ?? 1)
                    let inlineCapacity = big ? 4 : 2
                    if n <= inlineCapacity {
                        bitsPerSample = u16(valueOffset) ?? 1
                    } else if let at = big ? u64(valueOffset) : u32(valueOffset) {
                        bitsPerSample = u16(at) ?? 1
                    }
                case 274: orientation = value().flatMap(ImageOrientation.init(exifValue:)) ?? .up
                case 277: samplesPerPixel = value() ?? 1
                case 338: hasAlpha = true
                case 34675: hasICC = true
                default: break
                }
            }
        }
        let nextAt = entries + count * entrySize
        return big ? u64(nextAt) : u32(nextAt)
    }

    func info() throws -> ImageInfo {
        guard width > 0, height > 0 else { throw ImageCodingError.corrupt(.tiff, "the first directory has no image size") }
        return ImageInfo(
            format: .tiff, width: width, height: height, orientation: orientation,
            frameCount: max(1, pageCount), loopCount: 1, durations: Array(repeating: 0, count: max(1, pageCount)),
            hasAlpha: hasAlpha, bitDepth: bitsPerSample, hasICCProfile: hasICC, progressive: false)
    }
}

/// A JPEG 2000 header: the `ihdr` box of a JP2 file, or the `SIZ` marker of a bare codestream.
struct JPEG2000Header {
    var width = 0
    var height = 0
    var components = 0
    var bitDepth = 8
    var hasICC = false

    /// - Throws: `.truncated` when the header is incomplete, `.corrupt` when it is malformed.
    init(_ r: DataReader) throws {
        if r.u16be(0) == 0xFF4F {
            try readSIZ(r, at: 2)
            return
        }
        // Walk boxes: [length u32][type 4cc][(u64 length if length == 1)] ...
        var found = false
        func walk(from start: Int, to end: Int) throws {
            var o = start
            while o + 8 <= end, let length = r.u32be(o), let type = r.bytes(o + 4, 4) {
                var header = 8
                var size = length
                if length == 1 {
                    guard let hi = r.u32be(o + 8), let lo = r.u32be(o + 12), hi < 0x8000_0000 else { return }
                    size = hi << 32 | lo
                    header = 16
                } else if length == 0 {
                    size = end - o
                }
                guard size >= header else { throw ImageCodingError.corrupt(.jp2, "a box is shorter than its header") }
                let body = o + header
                let kind = String(decoding: type, as: UTF8.self)
                if kind == "jp2h" { try walk(from: body, to: min(end, o + size)) }
                if kind == "ihdr", let h = r.u32be(body), let w = r.u32be(body + 4), let nc = r.u16be(body + 8),
                    let bpc = r.u8(body + 10)
                {
                    height = h
                    width = w
                    components = nc
                    bitDepth = Int(bpc & 0x7F) + 1
                    found = true
                }
                if kind == "colr", r.u8(body) == 2 { hasICC = true }
                if kind == "jp2c", !found {
                    try readSIZ(r, at: body + 2)
                    found = true
                }
                let (next, overflow) = o.addingReportingOverflow(size)
                if overflow || next <= o { return }
                o = next
            }
        }
        try walk(from: 0, to: r.count)
        guard found else { throw ImageCodingError.truncated(.jp2, "no image header (ihdr box) was found") }
    }

    private mutating func readSIZ(_ r: DataReader, at o: Int) throws {
        guard r.u16be(o) == 0xFF51, let xs = r.u32be(o + 6), let ys = r.u32be(o + 10),
            let xo = r.u32be(o + 14), let yo = r.u32be(o + 18), let c = r.u16be(o + 38), let ssiz = r.u8(o + 40)
        else {
            throw ImageCodingError.truncated(.jp2, "the SIZ marker is incomplete")
        }
        guard xs > xo, ys > yo else { throw ImageCodingError.corrupt(.jp2, "the SIZ marker gives an empty image") }
        width = xs - xo
        height = ys - yo
        components = c
        bitDepth = Int(ssiz & 0x7F) + 1
    }

    func info() -> ImageInfo {
        ImageInfo(
            format: .jp2, width: width, height: height, hasAlpha: components == 2 || components == 4,
            bitDepth: bitDepth, hasICCProfile: hasICC)
    }
}
