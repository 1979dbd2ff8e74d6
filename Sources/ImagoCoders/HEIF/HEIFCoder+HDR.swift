// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CHeif
import ImagoCore

/// HDR HEIF (HEIC and AVIF read by libheif): an image whose nclx colour (colr) box names PQ or
/// HLG is decoded to 16-bit samples and tone-mapped to sRGB by ``HDRToSDR``, as AVIF is
/// (libheif, like libavif, does not map).
extension HEIFCoder {
    /// The H.273 codes of an image whose nclx colour says PQ or HLG.
    struct HDRColor {
        let transfer: Int
        let primaries: Int
    }

    /// The handle's nclx colour when its transfer characteristics are PQ (16) or HLG (18), or
    /// `nil`. libheif 1.15 reads the colr box only, not the codec stream's own description.
    static func hdrColor(_ handle: OpaquePointer) -> HDRColor? {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        let error = heif_image_handle_get_nclx_color_profile(handle, &profile)
        guard error.code == heif_error_Ok, let profile else { return nil }
        defer { heif_nclx_color_profile_free(profile) }
        let transfer = Int(profile.pointee.transfer_characteristics.rawValue)
        guard HDRToSDR.Transfer(cicp: transfer) != nil else { return nil }
        return HDRColor(transfer: transfer, primaries: Int(profile.pointee.color_primaries.rawValue))
    }

    /// `handle` decoded to 16-bit RGBA by libheif and mapped row by row to 8-bit straight sRGB
    /// RGBA; PQ light is mapped from the image's maximum content light level when it has one
    /// (a clli box), else from 10,000 nits.
    ///
    /// - Throws: libheif's errors as `.corrupt`, `.truncated` or `.unsupportedFeature`;
    ///   `.exceedsLimit` from the decoded size.
    static func mappedPixels(_ handle: OpaquePointer, nclx: HDRColor, format: ImageFormat, limits: DecodingLimits) throws -> PixelBuffer {
        var image: OpaquePointer?
        let error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RRGGBBAA_LE, nil)
        guard error.code == heif_error_Ok, let image else { throw failure(error, format: format, during: "decoding the image") }
        defer { heif_image_release(image) }
        let w = Int(heif_image_get_width(image, heif_channel_interleaved)), h = Int(heif_image_get_height(image, heif_channel_interleaved))
        let bits = Int(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w > 0, h > 0, (8...16).contains(bits), let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
            Int(stride) >= w * 8
        else { throw ImageCodingError.corrupt(format, "libheif returned no 16-bit pixels") }
        try limits.check(width: w, height: h, format: format)
        guard let hdr = HDRToSDR(cicpTransfer: nclx.transfer, primaries: nclx.primaries, contentPeak: contentPeak(image)) else {
            throw ImageCodingError.corrupt(format, "the nclx colour names no HDR transfer")
        }
        let top = (1 << bits) - 1
        return try PixelBuffer(uninitializedWidth: w, height: h, format: .rgba8) { out in
            guard let target = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let row = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: w * 4)
            defer { row.deallocate() }
            guard let wide = row.baseAddress else { return }
            for y in 0..<h {
                let source = UnsafeRawPointer(plane) + y * Int(stride)
                // Samples of `bits` bits (libheif fills a missing alpha with 0xFFFF) to 16 bits.
                for i in 0..<(w * 4) {
                    let value = min(Int(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))), top)
                    wide[i] = UInt16((value * 65535 + top / 2) / top)
                }
                hdr.convert(wide, into: target + y * w * 4, count: w, channels: 4)
            }
        }
    }

    /// The image's maximum content light level in nits, when its clli box gives one.
    private static func contentPeak(_ image: OpaquePointer) -> Double? {
        guard heif_image_has_content_light_level(image) != 0 else { return nil }
        var level = heif_content_light_level()
        heif_image_get_content_light_level(image, &level)
        return level.max_content_light_level > 0 ? Double(level.max_content_light_level) : nil
    }
}
