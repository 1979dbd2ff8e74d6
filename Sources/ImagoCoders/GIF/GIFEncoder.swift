import CGIF
import CImageQuant
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore

/// Writes GIF: each frame quantized to at most 256 colours by libimagequant (with dithering),
/// written by giflib with its own local colour table.
///
/// Transparency: palette entries with alpha under 128 become the frame's one transparent index
/// (GIF has 1-bit transparency). Frames cover the canvas; an animation with transparency
/// disposes each frame to background so the next shows alone, one without keeps frames ("none").
/// Delays are written in hundredths of a second (the format's resolution); the loop count as a
/// NETSCAPE2.0 block storing plays − 1 (none for a single play, 0 for forever).
enum GIFEncoder {
    private final class Sink {
        var data = Data()
    }

    static func encode(_ frames: [ImageFrame], loopCount: Int, options: EncodeOptions) throws -> Data {
        guard let first = frames.first else { throw ImageCodingError.invalidArgument("a GIF needs at least one frame") }
        let width = first.buffer.width, height = first.buffer.height
        guard width <= 65535, height <= 65535 else {
            throw ImageCodingError.invalidArgument("GIF sizes are at most 65535x65535, not \(width)x\(height)")
        }
        guard frames.allSatisfy({ $0.buffer.size == first.buffer.size }) else {
            throw ImageCodingError.invalidArgument("every frame of a GIF must be the canvas size")
        }
        let animated = frames.count > 1
        let anyAlpha = frames.contains { !$0.buffer.isOpaque }
        let sink = Sink()
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        var error: Int32 = 0
        guard let gif = EGifOpen(context.toOpaque(), { gif, bytes, count in
            guard let gif, let bytes, let user = gif.pointee.UserData else { return 0 }
            Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().data.append(bytes, count: Int(count))
            return count
        }, &error) else {
            throw ImageCodingError.corrupt(.gif, "giflib could not start a GIF (error \(error))")
        }
        var closed = false
        defer { if !closed { EGifCloseFile(gif, nil) } }
        EGifSetGifVersion(gif, true)
        try check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, nil), gif, "the screen descriptor")
        if animated, loopCount != 1 {
            let stored = loopCount == 0 ? 0 : min(65535, loopCount - 1)
            try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), gif, "the loop block")
            var name = Array("NETSCAPE2.0".utf8)
            try check(EGifPutExtensionBlock(gif, 11, &name), gif, "the loop block")
            var loop: [UInt8] = [1, UInt8(stored & 0xFF), UInt8(stored >> 8)]
            try check(EGifPutExtensionBlock(gif, 3, &loop), gif, "the loop block")
            try check(EGifPutExtensionTrailer(gif), gif, "the loop block")
        }
        for (index, frame) in frames.enumerated() {
            let q = try quantize(frame.buffer)
            if animated || q.transparent != nil {
                let delay = min(65535, max(0, Int((frame.duration * 100).rounded())))
                let disposal: UInt8 = animated ? (anyAlpha ? 2 : 1) : 0
                var gce: [UInt8] = [disposal << 2 | (q.transparent != nil ? 1 : 0), UInt8(delay & 0xFF), UInt8(delay >> 8),
                                    UInt8(q.transparent ?? 0)]
                try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, &gce), gif, "frame \(index)'s control block")
            }
            var colors = q.palette.map { GifColorType(Red: $0.r, Green: $0.g, Blue: $0.b) }
            let size = max(2, 1 << (Int.bitWidth - (max(2, colors.count) - 1).leadingZeroBitCount))
            colors += Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size - colors.count)
            guard let map = GifMakeMapObject(Int32(size), &colors) else {
                throw ImageCodingError.corrupt(.gif, "giflib could not make a colour table (out of memory)")
            }
            defer { GifFreeMapObject(map) }
            try check(EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), false, map), gif, "frame \(index)'s descriptor")
            var indices = q.indices
            try indices.withUnsafeMutableBufferPointer { p in
                guard let base = p.baseAddress else { return }
                for y in 0..<height {
                    try check(EGifPutLine(gif, base + y * width, Int32(width)), gif, "frame \(index)'s pixels")
                }
            }
        }
        closed = true
        guard EGifCloseFile(gif, &error) == GIF_OK else {
            throw ImageCodingError.corrupt(.gif, "giflib could not finish the GIF (error \(error))")
        }
        return sink.data
    }

    /// libimagequant's palette and remapped indices for one frame, with one transparent index.
    static func quantize(_ buffer: PixelBuffer) throws -> (palette: [RGBA8], indices: [UInt8], transparent: Int?) {
        let rgba = buffer.converted(to: .rgba8)
        guard let attr = liq_attr_create() else { throw ImageCodingError.encoderUnavailable(.gif) }
        defer { liq_attr_destroy(attr) }
        return try rgba.withUnsafeBytes { raw in
            guard let base = raw.baseAddress,
                  let image = liq_image_create_rgba(attr, base, Int32(rgba.width), Int32(rgba.height), 0) else {
                throw ImageCodingError.corrupt(.gif, "libimagequant could not take the frame")
            }
            defer { liq_image_destroy(image) }
            var result: OpaquePointer?
            guard liq_image_quantize(image, attr, &result) == LIQ_OK, let result else {
                throw ImageCodingError.corrupt(.gif, "libimagequant could not quantize the frame")
            }
            defer { liq_result_destroy(result) }
            liq_set_dithering_level(result, 1.0)
            var indices = [UInt8](repeating: 0, count: rgba.width * rgba.height)
            let status = indices.withUnsafeMutableBytes { out -> liq_error in
                guard let buffer = out.baseAddress else { return LIQ_BUFFER_TOO_SMALL }
                return liq_write_remapped_image(result, image, buffer, out.count)
            }
            guard status == LIQ_OK, let paletteRef = liq_get_palette(result) else {
                throw ImageCodingError.corrupt(.gif, "libimagequant could not remap the frame")
            }
            let p = paletteRef.pointee
            var palette: [RGBA8] = withUnsafeBytes(of: p.entries) { entries in
                (0..<Int(p.count)).map { i in RGBA8(r: entries[i * 4], g: entries[i * 4 + 1], b: entries[i * 4 + 2], a: entries[i * 4 + 3]) }
            }
            // GIF transparency is one index: entries mostly transparent all become it.
            let clear = palette.indices.filter { palette[$0].a < 128 }
            guard let transparent = clear.first else { return (palette, indices, nil) }
            if clear.count > 1 {
                var map = Array(0..<256).map(UInt8.init)
                for i in clear { map[i] = UInt8(transparent) }
                for i in indices.indices { indices[i] = map[Int(indices[i])] }
            }
            palette[transparent] = RGBA8(r: 0, g: 0, b: 0, a: 0)
            return (palette, indices, transparent)
        }
    }

    private static func check(_ status: Int32, _ gif: UnsafeMutablePointer<GifFileType>, _ what: String) throws {
        guard status == GIF_OK else {
            let message = GifErrorString(gif.pointee.Error).map { String(cString: $0) } ?? "error \(gif.pointee.Error)"
            throw ImageCodingError.corrupt(.gif, "giflib failed writing \(what): \(message)")
        }
    }
}
