// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CPixman
public import ImagoCore

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a resize filters.
public enum ResamplingQuality: String, Sendable, Hashable, CaseIterable {
    /// Lanczos3 (pixman's separable convolution), after a box pre-shrink for large factors.
    /// Sharp and alias-free: the default.
    case lanczos3
    /// Bilinear, after the same box pre-shrink: faster, slightly softer.
    case bilinear
    /// Lanczos3 in linear light, without the pre-shrink: a fine pattern keeps the brightness it
    /// shows (libvips' resize in scRGB, imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`). Slower.
    case linearLight
}

/// Resizes pixel buffers in premultiplied ARGB32, so transparent pixels never bleed dark
/// fringes into their neighbours.
///
/// Large reductions first average whole blocks of pixels (an integer box shrink, as libvips
/// does) until at most a factor of 2 remains, then filter the rest: Lanczos3 in two 1D passes
/// (pixman's separable-convolution filter evaluates the full 2D kernel per pixel and measured
/// about 5× slower), or bilinear through pixman, cairo's rasterizer. Output sizes are exact.
public enum Resampler {
    /// Resizes `buffer` to exactly `size`.
    ///
    /// The result is `PixelFormat.argb32Premultiplied`; other inputs are converted first.
    ///
    /// - Parameters:
    ///   - buffer: The pixels to resize.
    ///   - size: The output size, at least 1×1.
    ///   - quality: Default ``ResamplingQuality/lanczos3``.
    ///   - limits: The output may have at most `limits.maxPixels` pixels. Default `DecodingLimits.default`.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a size under 1×1,
    ///   `ImageCodingError.exceedsLimit(_:found:limit:)` for an output over the limit.
    public static func resize(
        _ buffer: PixelBuffer, to size: PixelSize, quality: ResamplingQuality = .lanczos3,
        limits: DecodingLimits = .default
    ) throws -> PixelBuffer {
        guard size.width > 0, size.height > 0 else {
            throw ImageCodingError.invalidArgument("resize target \(size) must be at least 1x1")
        }
        let pixels = size.pixelCount ?? Int.max
        if pixels > limits.maxPixels { throw ImageCodingError.exceedsLimit(.maxPixels, found: pixels, limit: limits.maxPixels) }
        if buffer.size == size { return buffer.converted(to: .argb32Premultiplied) }
        switch quality {
        case .lanczos3:
            return try streamed(buffer, to: size, limits: limits)
        case .linearLight:
            return try LinearLightResampler.resize(buffer, to: size)
        case .bilinear:
            var source = buffer.converted(to: .argb32Premultiplied)
            let (kx, ky) = boxFactors(from: source.size, to: size)
            if kx > 1 || ky > 1 { source = try boxShrink(source, kx: kx, ky: ky) }
            return try filter(source, to: size, quality: quality)
        }
    }

    /// The Lanczos3 resize, row by row through a ``StreamingResampler``: each source row is
    /// converted to premultiplied ARGB32 (when it is not already), box-averaged and filtered
    /// horizontally into a ring a kernel tall, from which the output rows are filtered
    /// vertically. The pixels are those of the whole-buffer passes (box shrink, then
    /// `LanczosResampler.resize(_:to:)`); what is saved is their intermediates, each as large as
    /// the source or the output's width times the source's height: memory the kernel had to
    /// fault in and zero, and that the vertical pass read back from far outside the cache.
    static func streamed(_ buffer: PixelBuffer, to size: PixelSize, limits: DecodingLimits) throws -> PixelBuffer {
        let resampler = try StreamingResampler(target: size, limits: limits)
        try resampler.begin(size: buffer.size)
        let rowBytes = buffer.width * 4, stride = buffer.bytesPerRow
        if buffer.format == .argb32Premultiplied {
            try buffer.withUnsafeBytes { raw in
                for y in 0..<buffer.height {
                    try resampler.consume(row: UnsafeRawBufferPointer(rebasing: raw[(y * stride)..<(y * stride + rowBytes)]), y: y)
                }
            }
        } else {
            let row = UnsafeMutableRawBufferPointer.allocate(byteCount: rowBytes, alignment: 16)
            defer { row.deallocate() }
            for y in 0..<buffer.height {
                buffer.convertRow(y, to: .argb32Premultiplied, into: row)
                try resampler.consume(row: UnsafeRawBufferPointer(row), y: y)
            }
        }
        return try resampler.result()
    }

    /// Resizes `buffer` as ``resize(_:to:quality:limits:)`` does, reusing `previous`: the same
    /// resize of an input that differs from `buffer` only inside `changed` (`x0..<x1` by
    /// `y0..<y1`, in `buffer`'s pixels). Only the output pixels whose filters reach the change are
    /// computed; the bytes are those of a whole resize. For the frames of an animation, which
    /// mostly change in a small part: `PixelBuffer.changedRect(from:)` finds the part.
    ///
    /// Bilinear resizes, and a `previous` of another size or format, are resized whole.
    ///
    /// - Throws: as ``resize(_:to:quality:limits:)``.
    public static func resize(
        _ buffer: PixelBuffer, to size: PixelSize, quality: ResamplingQuality = .lanczos3,
        limits: DecodingLimits = .default, reusing previous: PixelBuffer,
        changed: (x0: Int, y0: Int, x1: Int, y1: Int)
    ) throws -> PixelBuffer {
        guard quality == .lanczos3, previous.size == size, previous.format == .argb32Premultiplied,
            size.width > 0, size.height > 0, size != buffer.size
        else {
            return try resize(buffer, to: size, quality: quality, limits: limits)
        }
        let pixels = size.pixelCount ?? Int.max
        if pixels > limits.maxPixels { throw ImageCodingError.exceedsLimit(.maxPixels, found: pixels, limit: limits.maxPixels) }
        let x0 = max(0, changed.x0), y0 = max(0, changed.y0), x1 = min(buffer.width, changed.x1), y1 = min(buffer.height, changed.y1)
        guard x0 < x1, y0 < y1 else { return previous }
        var source = buffer.converted(to: .argb32Premultiplied)
        let (kx, ky) = boxFactors(from: source.size, to: size)
        if kx > 1 || ky > 1 { source = try boxShrink(source, kx: kx, ky: ky) }
        // A box covers whole blocks: the blocks the change touches changed.
        return try LanczosResampler.resize(
            source, to: size, updating: previous,
            changed: (x0 / kx, y0 / ky, (x1 + kx - 1) / kx, (y1 + ky - 1) / ky))
    }

    /// The whole factors of the box pre-shrink from `source` to `target`: as large as possible
    /// while leaving at least 2× for the filter in each direction (the filter then sees enough
    /// pixels to be alias-free), and at most 256 (a block's sums then fit 32 bits: 256 × 256 ×
    /// 255; the filter takes the rest of a larger reduction).
    static func boxFactors(from source: PixelSize, to target: PixelSize) -> (kx: Int, ky: Int) {
        (min(256, max(1, source.width / target.width / 2)), min(256, max(1, source.height / target.height / 2)))
    }

    /// Averages `kx`×`ky` blocks (partial blocks at the right and bottom edges average what they have).
    static func boxShrink(_ src: PixelBuffer, kx: Int, ky: Int) throws -> PixelBuffer {
        let box = BoxShrinkRows(inputWidth: src.width, kx: kx)
        let oh = (src.height + ky - 1) / ky
        return try PixelBuffer(uninitializedWidth: box.outputWidth, height: oh, format: .argb32Premultiplied) { out in
            guard let dst = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            src.withUnsafeBytes { raw in
                guard let s = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                for oy in 0..<oh {
                    for y in (oy * ky)..<min(src.height, oy * ky + ky) { box.add(s + y * src.bytesPerRow) }
                    box.emit(into: dst + oy * box.outputWidth * 4)
                }
            }
        }
    }

    /// The pixman pass: a scale transform with pad edges and the chosen filter.
    static func filter(_ src: PixelBuffer, to size: PixelSize, quality: ResamplingQuality) throws -> PixelBuffer {
        var source = src
        let sx = Double(src.width) / Double(size.width), sy = Double(src.height) / Double(size.height)
        return try PixelBuffer(uninitializedWidth: size.width, height: size.height, format: .argb32Premultiplied) { out in
            try source.withUnsafeMutableBytes { raw in
                guard
                    let srcImage = pixman_image_create_bits(
                        PIXMAN_a8r8g8b8, Int32(src.width), Int32(src.height),
                        raw.baseAddress?.assumingMemoryBound(to: UInt32.self),
                        Int32(src.bytesPerRow)),
                    let dstImage = pixman_image_create_bits(
                        PIXMAN_a8r8g8b8, Int32(size.width), Int32(size.height),
                        out.baseAddress?.assumingMemoryBound(to: UInt32.self),
                        Int32(size.width * 4))
                else {
                    throw ImageCodingError.invalidArgument("pixman could not wrap a \(src.size) or \(size) buffer")
                }
                defer {
                    pixman_image_unref(srcImage)
                    pixman_image_unref(dstImage)
                }
                var transform = pixman_transform()
                pixman_transform_init_scale(&transform, fixed(sx), fixed(sy))
                pixman_image_set_transform(srcImage, &transform)
                pixman_image_set_repeat(srcImage, PIXMAN_REPEAT_PAD)
                switch quality {
                case .bilinear:
                    pixman_image_set_filter(srcImage, PIXMAN_FILTER_BILINEAR, nil, 0)
                case .lanczos3, .linearLight:
                    var count: Int32 = 0
                    // Upscaling reconstructs with Lanczos3; downscaling samples with a Lanczos3 widened by the factor.
                    let up = sx < 1 && sy < 1
                    guard
                        let params = pixman_filter_create_separable_convolution(
                            &count, fixed(max(sx, 1)), fixed(max(sy, 1)),
                            up ? PIXMAN_KERNEL_LANCZOS3 : PIXMAN_KERNEL_IMPULSE, up ? PIXMAN_KERNEL_LANCZOS3 : PIXMAN_KERNEL_IMPULSE,
                            up ? PIXMAN_KERNEL_IMPULSE : PIXMAN_KERNEL_LANCZOS3, up ? PIXMAN_KERNEL_IMPULSE : PIXMAN_KERNEL_LANCZOS3,
                            4, 4)
                    else {
                        throw ImageCodingError.invalidArgument("pixman could not build a Lanczos3 filter")
                    }
                    defer { free(params) }
                    pixman_image_set_filter(srcImage, PIXMAN_FILTER_SEPARABLE_CONVOLUTION, params, count)
                }
                pixman_image_composite32(
                    PIXMAN_OP_SRC, srcImage, nil, dstImage, 0, 0, 0, 0, 0, 0,
                    Int32(size.width), Int32(size.height))
            }
        }
    }

    private static func fixed(_ v: Double) -> pixman_fixed_t { pixman_fixed_t(v * 65536) }
}
