// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImageQuant
import CImagoGlue
import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A colour table, optionally with one transparent entry, and the remapping of pixels onto it.
///
/// Frames holding no more colours than a GIF palette can (a GIF re-encoded, a flat-colour
/// graphic) get exactly those colours and are remapped by lookup, so they come back unchanged
/// and no quantizer runs. Anything richer is quantized by libimagequant and remapped dithered.
final class GIFPalette {
    /// The colours (alpha 0 only for the transparent entry), at most 256.
    private(set) var colors: [RGBA8]
    /// The transparent entry, when there is one.
    private(set) var transparentIndex: Int?

    /// libimagequant's state, for a quantized palette; `nil` for an exact one.
    private let quantizer: (attr: OpaquePointer, result: OpaquePointer)?
    /// The encode's thread limit (``EncodeOptions/maxThreads``) for libimagequant's team.
    private let maxThreads: Int?
    /// Palette entries libimagequant made for (mostly) transparent pixels map to the transparent entry.
    private var lookup: [UInt8]
    /// An exact palette's index for each colour word; colours met later that it lacks are added
    /// with their nearest entry.
    private var exactIndex: [UInt32: UInt8] = [:]
    /// The dithered error (mean squared, per channel) past which a frame gets a palette of its own.
    static let badFit = 64.0
    /// libimagequant's speed for an animation's palettes (its default, for stills, is 4). An
    /// animation reaches libimagequant only when its frames hold more colours than a palette (a
    /// resized GIF, a video). At 7 a 31-frame 320x240 GIF resized and re-encoded takes about 5%
    /// less CPU with the same fidelity (68 dB from the unquantized frames); from 8 up,
    /// libimagequant's shortcuts cost visible error on frames with local palettes.
    ///
    /// An animation's frames also enter the histogram with a flat importance map, so that
    /// libimagequant does not compute its noise and edge maps (which weight a still's smooth
    /// areas): bench-server's GIF stream (a 31-frame GIF resized) went from about 39 to 48 req/s,
    /// and the palettes fit as well (chi.gif at 200 px: 68.4 dB against 68.1; Muybridge's 380 frames:
    /// 51.9 dB both ways).
    static let animationSpeed: Int32 = 7

    /// A palette for `frames` (whole, or the rectangle `rect` of each): their own colours when
    /// they fit, otherwise at most 255 colours quantized by libimagequant (at ``animationSpeed``
    /// with `animationFrames`); plus a transparent entry when `reservingTransparent` is set or
    /// the pixels need one; 256 colours without either. libimagequant runs on at most
    /// `maxThreads` threads (see ``CodecThreads``).
    init(
        quantizing frames: [GIFCanvasPixels], in rect: GIFRect? = nil, reservingTransparent: Bool,
        animationFrames: Bool = false, maxThreads: Int?
    ) throws {
        self.maxThreads = maxThreads
        if let exact = Self.distinctColors(frames, in: rect, reservingTransparent: reservingTransparent) {
            quantizer = nil
            let table = Self.exactTable(exact, reservingTransparent: reservingTransparent)
            colors = table.colors
            lookup = []
            exactIndex = table.index
            transparentIndex = table.transparentIndex
            return
        }
        Self.chooseThreads(
            pixels: rect.map { $0.width * $0.height } ?? frames.first.map { $0.width * $0.height } ?? 0, maxThreads: maxThreads)
        guard let attr = liq_attr_create() else { throw ImageCodingError.encoderUnavailable(.gif) }
        var ok = false
        defer { if !ok { liq_attr_destroy(attr) } }
        liq_set_max_colors(attr, reservingTransparent ? 255 : 256)
        if animationFrames { liq_set_speed(attr, Self.animationSpeed) }
        guard let histogram = liq_histogram_create(attr) else { throw ImageCodingError.corrupt(.gif, "libimagequant could not start a histogram") }
        defer { liq_histogram_destroy(histogram) }
        try Self.addToHistogram(histogram, frames, in: rect, attr: attr, animationFrames: animationFrames)
        var result: OpaquePointer?
        guard liq_histogram_quantize(histogram, attr, &result) == LIQ_OK, let result, let p = liq_get_palette(result)?.pointee else {
            throw ImageCodingError.corrupt(.gif, "libimagequant could not quantize the frames")
        }
        quantizer = (attr, result)
        ok = true
        liq_set_dithering_level(result, 1.0)
        let table = Self.quantizedTable(p, reservingTransparent: reservingTransparent)
        colors = table.colors
        lookup = table.lookup
        transparentIndex = table.transparentIndex
    }

    /// An exact palette's colours (in the order met), each colour word's index, and a transparent
    /// entry when `reservingTransparent` is set or a pixel needs one; one black entry for no colours.
    private static func exactTable(
        _ exact: (colors: [UInt32], hasTransparent: Bool), reservingTransparent: Bool
    ) -> (colors: [RGBA8], index: [UInt32: UInt8], transparentIndex: Int?) {
        var colors = exact.colors.map { RGBA8(r: UInt8($0 & 0xFF), g: UInt8($0 >> 8 & 0xFF), b: UInt8($0 >> 16 & 0xFF)) }
        var index: [UInt32: UInt8] = [:]
        var transparentIndex: Int?
        for (i, word) in exact.colors.enumerated() { index[word] = UInt8(i) }
        if reservingTransparent || exact.hasTransparent {
            transparentIndex = colors.count
            colors.append(RGBA8(r: 0, g: 0, b: 0, a: 0))
        }
        if colors.isEmpty { colors.append(RGBA8(r: 0, g: 0, b: 0)) }
        return (colors, index, transparentIndex)
    }

    /// Adds every frame (its rectangle `rect`, or the whole frame) to libimagequant's histogram,
    /// with a flat importance map for an animation's frames.
    private static func addToHistogram(
        _ histogram: OpaquePointer, _ frames: [GIFCanvasPixels], in rect: GIFRect?, attr: OpaquePointer, animationFrames: Bool
    ) throws {
        var flat: [UInt8] = []
        for frame in frames {
            let r = rect ?? GIFRect(x: 0, y: 0, width: frame.width, height: frame.height)
            try Self.withImage(frame, in: r, attr: attr) { image in
                if animationFrames {
                    // Every pixel equally important: libimagequant then skips its noise and edge
                    // maps, most of an animation's palette time, at the same fidelity.
                    if flat.count < r.width * r.height { flat = [UInt8](repeating: 255, count: r.width * r.height) }
                    let status = flat.withUnsafeMutableBufferPointer { b -> liq_error in
                        guard let base = b.baseAddress else { return LIQ_OK }
                        return liq_image_set_importance_map(image, base, r.width * r.height, LIQ_COPY_PIXELS)
                    }
                    guard status == LIQ_OK else { throw ImageCodingError.corrupt(.gif, "libimagequant refused an importance map") }
                }
                guard liq_histogram_add_image(histogram, attr, image) == LIQ_OK else {
                    throw ImageCodingError.corrupt(.gif, "libimagequant could not add a frame to its histogram")
                }
            }
        }
    }

    /// The quantized palette's colours, and the lookup that sends every (mostly) transparent entry
    /// to the one transparent entry (added when `reservingTransparent` is set and none exists).
    private static func quantizedTable(
        _ p: liq_palette, reservingTransparent: Bool
    ) -> (colors: [RGBA8], lookup: [UInt8], transparentIndex: Int?) {
        var colors = withUnsafeBytes(of: p.entries) { e in
            (0..<Int(p.count)).map { i in RGBA8(r: e[i * 4], g: e[i * 4 + 1], b: e[i * 4 + 2], a: e[i * 4 + 3]) }
        }
        var lookup = (0..<256).map { UInt8($0) }
        var transparentIndex: Int?
        // GIF transparency is one index: every (mostly) transparent entry becomes it.
        let clear = colors.indices.filter { colors[$0].a < 128 }
        if reservingTransparent || !clear.isEmpty {
            let t = clear.first ?? colors.count
            if t == colors.count { colors.append(RGBA8(r: 0, g: 0, b: 0, a: 0)) }
            colors[t] = RGBA8(r: 0, g: 0, b: 0, a: 0)
            for i in clear { lookup[i] = UInt8(t) }
            transparentIndex = t
        }
        return (colors, lookup, transparentIndex)
    }

    /// The distinct opaque colours of `frames` in `rect` (in order of first appearance), and
    /// whether a transparent pixel was met; `nil` when they need more entries than a palette has.
    private static func distinctColors(
        _ frames: [GIFCanvasPixels], in rect: GIFRect?,
        reservingTransparent: Bool
    ) -> (colors: [UInt32], hasTransparent: Bool)? {
        var seen = Set<UInt32>(minimumCapacity: 512)
        var order: [UInt32] = []
        var hasTransparent = false
        for frame in frames {
            let r = rect ?? GIFRect(x: 0, y: 0, width: frame.width, height: frame.height)
            let fits = frame.words.withUnsafeBufferPointer { w -> Bool in
                for y in 0..<r.height {
                    let row = (r.y + y) * frame.width + r.x
                    for x in 0..<r.width {
                        let word = w[row + x]
                        if word == 0 {
                            hasTransparent = true
                            continue
                        }
                        if seen.insert(word).inserted {
                            order.append(word)
                            if order.count > 256 { return false }
                        }
                    }
                }
                return true
            }
            guard fits else { return nil }
        }
        let room = reservingTransparent || hasTransparent ? 255 : 256
        return order.count <= room ? (order, hasTransparent) : nil
    }

    /// Frames under a megapixel are quantized and remapped on the calling thread alone: OpenMP's
    /// team costs more than it saves there (a third of the CPU of a 320x240 animation's encode,
    /// spent waking and spinning), and callers already run images in parallel. Larger frames get
    /// a team of ``CodecThreads``' limit.
    private static func chooseThreads(pixels: Int, maxThreads: Int?) {
        imago_openmp_set_threads(Int32(CodecThreads.limit(maxThreads, pixels: pixels)))
    }

    deinit {
        if let quantizer {
            liq_result_destroy(quantizer.result)
            liq_attr_destroy(quantizer.attr)
        }
    }

    /// `pixels` inside `rect` as indices into this palette, dithered; transparent pixels get the
    /// transparent entry. With `checkingFit`, the result says whether the palette fits these
    /// pixels badly (a pass over them; only a shared palette needs it).
    func remap(_ pixels: GIFCanvasPixels, in rect: GIFRect, checkingFit: Bool = false) throws -> GIFIndexedFrame {
        guard let quantizer else { return exactRemap(pixels, in: rect, checkingFit: checkingFit) }
        Self.chooseThreads(pixels: rect.width * rect.height, maxThreads: maxThreads)
        var indices = [UInt8](repeating: 0, count: rect.width * rect.height)
        try Self.withImage(pixels, in: rect, attr: quantizer.attr) { image in
            let status = indices.withUnsafeMutableBytes { out -> liq_error in
                guard let o = out.baseAddress else { return LIQ_BUFFER_TOO_SMALL }
                return liq_write_remapped_image(quantizer.result, image, o, out.count)
            }
            guard status == LIQ_OK else { throw ImageCodingError.corrupt(.gif, "libimagequant could not remap a frame") }
        }
        let fitsBadly = checkingFit && meanSquaredError(pixels, in: rect, indices: indices) > Self.badFit
        if let t = transparentIndex {
            let clear = UInt8(t)
            lookup.withUnsafeBufferPointer { l in
                pixels.words.withUnsafeBufferPointer { w in
                    indices.withUnsafeMutableBufferPointer { out in
                        for y in 0..<rect.height {
                            let row = (rect.y + y) * pixels.width + rect.x
                            for x in 0..<rect.width {
                                let o = y * rect.width + x
                                out[o] = w[row + x] == 0 ? clear : l[Int(out[o])]
                            }
                        }
                    }
                }
            }
        }
        return GIFIndexedFrame(rect: rect, indices: indices, transparent: transparentIndex, fitsBadly: fitsBadly)
    }

    /// An exact palette's remapping: each colour's own entry, or (for a colour the palette was
    /// not made from) its nearest, undithered; transparent pixels get the transparent entry.
    private func exactRemap(_ pixels: GIFCanvasPixels, in rect: GIFRect, checkingFit: Bool) -> GIFIndexedFrame {
        var indices = [UInt8](repeating: 0, count: rect.width * rect.height)
        let clear = UInt8(transparentIndex ?? 0)
        var missed = false
        pixels.words.withUnsafeBufferPointer { w in
            for y in 0..<rect.height {
                let row = (rect.y + y) * pixels.width + rect.x
                for x in 0..<rect.width {
                    let word = w[row + x]
                    let index: UInt8
                    if word == 0 {
                        index = clear
                    } else if let known = exactIndex[word] {
                        index = known
                    } else {
                        index = nearest(word)
                        exactIndex[word] = index
                        missed = true
                    }
                    indices[y * rect.width + x] = index
                }
            }
        }
        let fitsBadly = checkingFit && missed && meanSquaredError(pixels, in: rect, indices: indices) > Self.badFit
        return GIFIndexedFrame(rect: rect, indices: indices, transparent: transparentIndex, fitsBadly: fitsBadly)
    }

    /// The opaque entry closest to `word` in RGB.
    private func nearest(_ word: UInt32) -> UInt8 {
        let r = Int(word & 0xFF), g = Int(word >> 8 & 0xFF), b = Int(word >> 16 & 0xFF)
        var best = 0, bestDistance = Int.max
        for (i, c) in colors.enumerated() where i != transparentIndex {
            let dr = r - Int(c.r), dg = g - Int(c.g), db = b - Int(c.b)
            let d = dr * dr + dg * dg + db * db
            if d < bestDistance {
                bestDistance = d
                best = i
            }
        }
        return UInt8(best)
    }

    /// Mean squared error per channel (0–255 scale) of the opaque pixels drawn with `indices`.
    private func meanSquaredError(_ pixels: GIFCanvasPixels, in rect: GIFRect, indices: [UInt8]) -> Double {
        var sum = 0, count = 0
        colors.withUnsafeBufferPointer { palette in
            pixels.words.withUnsafeBufferPointer { w in
                indices.withUnsafeBufferPointer { idx in
                    for y in 0..<rect.height {
                        let row = (rect.y + y) * pixels.width + rect.x
                        for x in 0..<rect.width {
                            let p = w[row + x]
                            guard p != 0 else { continue }
                            let c = palette[min(Int(idx[y * rect.width + x]), palette.count - 1)]
                            let dr = Int(p & 0xFF) - Int(c.r), dg = Int(p >> 8 & 0xFF) - Int(c.g), db = Int(p >> 16 & 0xFF) - Int(c.b)
                            sum += dr * dr + dg * dg + db * db
                            count += 1
                        }
                    }
                }
            }
        }
        return count == 0 ? 0 : Double(sum) / Double(count * 3)
    }

    /// A libimagequant image over `rect` of `pixels`, borrowed for the call.
    private static func withImage(
        _ pixels: GIFCanvasPixels, in rect: GIFRect, attr: OpaquePointer,
        _ body: (OpaquePointer) throws -> Void
    ) throws {
        try pixels.words.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return }
            // libimagequant only reads the rows; its API takes them as mutable pointers.
            var rows: [UnsafeMutableRawPointer?] = (0..<rect.height).map {
                UnsafeMutableRawPointer(mutating: base + (rect.y + $0) * pixels.width + rect.x)
            }
            guard let image = liq_image_create_rgba_rows(attr, &rows, Int32(rect.width), Int32(rect.height), 0) else {
                throw ImageCodingError.corrupt(.gif, "libimagequant could not take a frame")
            }
            defer { liq_image_destroy(image) }
            try body(image)
        }
    }
}
