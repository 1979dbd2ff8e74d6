import CImageQuant
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore

/// A colour table from libimagequant, optionally with one transparent entry, and the remapping
/// of pixels onto it.
final class GIFPalette {
    /// The colours (alpha 0 only for the transparent entry), at most 256.
    private(set) var colors: [RGBA8]
    /// The transparent entry, when there is one.
    private(set) var transparentIndex: Int?

    private let attr: OpaquePointer
    private let result: OpaquePointer
    /// Palette entries libimagequant made for (mostly) transparent pixels map to the transparent entry.
    private var lookup: [UInt8]
    /// The dithered error (mean squared, per channel) past which a frame gets a palette of its own.
    static let badFit = 64.0

    /// Quantizes `frames` (whole, or the rectangle `rect` of each) to at most 255 colours, plus a
    /// transparent entry when `reservingTransparent` is set or the colours need one; 256 colours
    /// without either.
    init(quantizing frames: [GIFCanvasPixels], in rect: GIFRect? = nil, reservingTransparent: Bool) throws {
        guard let attr = liq_attr_create() else { throw ImageCodingError.encoderUnavailable(.gif) }
        self.attr = attr
        var ok = false
        defer { if !ok { liq_attr_destroy(attr) } }
        liq_set_max_colors(attr, reservingTransparent ? 255 : 256)
        guard let histogram = liq_histogram_create(attr) else { throw ImageCodingError.corrupt(.gif, "libimagequant could not start a histogram") }
        defer { liq_histogram_destroy(histogram) }
        for frame in frames {
            try Self.withImage(frame, in: rect ?? GIFRect(x: 0, y: 0, width: frame.width, height: frame.height), attr: attr) { image in
                guard liq_histogram_add_image(histogram, attr, image) == LIQ_OK else {
                    throw ImageCodingError.corrupt(.gif, "libimagequant could not add a frame to its histogram")
                }
            }
        }
        var result: OpaquePointer?
        guard liq_histogram_quantize(histogram, attr, &result) == LIQ_OK, let result, let p = liq_get_palette(result)?.pointee else {
            throw ImageCodingError.corrupt(.gif, "libimagequant could not quantize the frames")
        }
        self.result = result
        ok = true
        liq_set_dithering_level(result, 1.0)
        colors = withUnsafeBytes(of: p.entries) { e in
            (0..<Int(p.count)).map { i in RGBA8(r: e[i * 4], g: e[i * 4 + 1], b: e[i * 4 + 2], a: e[i * 4 + 3]) }
        }
        lookup = (0..<256).map { UInt8($0) }
        // GIF transparency is one index: every (mostly) transparent entry becomes it.
        let clear = colors.indices.filter { colors[$0].a < 128 }
        if reservingTransparent || !clear.isEmpty {
            let t = clear.first ?? colors.count
            if t == colors.count { colors.append(RGBA8(r: 0, g: 0, b: 0, a: 0)) }
            colors[t] = RGBA8(r: 0, g: 0, b: 0, a: 0)
            for i in clear { lookup[i] = UInt8(t) }
            transparentIndex = t
        }
    }

    deinit {
        liq_result_destroy(result)
        liq_attr_destroy(attr)
    }

    /// `pixels` inside `rect` as indices into this palette, dithered; transparent pixels get the
    /// transparent entry. With `checkingFit`, the result says whether the palette fits these
    /// pixels badly (a pass over them; only a shared palette needs it).
    func remap(_ pixels: GIFCanvasPixels, in rect: GIFRect, checkingFit: Bool = false) throws -> GIFIndexedFrame {
        var indices = [UInt8](repeating: 0, count: rect.width * rect.height)
        try Self.withImage(pixels, in: rect, attr: attr) { image in
            let status = indices.withUnsafeMutableBytes { out -> liq_error in
                guard let o = out.baseAddress else { return LIQ_BUFFER_TOO_SMALL }
                return liq_write_remapped_image(result, image, o, out.count)
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
    private static func withImage(_ pixels: GIFCanvasPixels, in rect: GIFRect, attr: OpaquePointer,
                                  _ body: (OpaquePointer) throws -> Void) throws {
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
