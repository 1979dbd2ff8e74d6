// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoGlue
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// PDF drawn by poppler's own renderer, Splash, as `pdftoppm` draws it: Imago's small
/// `libImagoPDF` library links poppler (Debian's `libpoppler126`) and is opened the first time a
/// PDF is met, so a process that never reads one never maps poppler.
///
/// Pages come out as pdftoppm's do, pixel for pixel at the same resolution: laid out on the
/// page's MediaBox (not its CropBox), turned by its `/Rotate`, with font and vector
/// anti-aliasing. A document's pages are pages, not animation frames: `ImageInfo.pageCount` counts them and
/// ``DecodeOptions/page`` picks one (default the first); each decodes as a still. A page is
/// rendered as a vector at the size asked for, as SDWebImagePDFCoder does: with
/// ``DecodeOptions/thumbnailPixelSize`` at the thumbnail's size, otherwise at
/// ``DecodeOptions/renderDPI`` (default 72, one pixel per point; pdftoppm's default is 150). A page
/// turned a quarter comes out with its width and height swapped. Pages are drawn on white paper
/// and are opaque.
///
/// A document encrypted with an empty user password opens as any other; one that needs a
/// password is refused. The page count is bounded by `DecodingLimits.maxPages`, the rendered
/// size by `DecodingLimits.maxPixels` before allocating, and a render stops once it passes
/// `DecodingLimits.maxRenderSeconds` (checked between drawing operators).
///
/// A page of twice ``bandPixels`` or more is drawn in horizontal bands (up to 4, the page's
/// size decides), each the slice `pdftoppm -y -H` draws, by up to ``DecodeOptions/maxThreads``
/// threads at once (by default the cores, up to 4): less time for a little more CPU, as each band
/// reads the page's drawing operators again. The bands do not depend on the threads, so the
/// pixels are the same on any machine; where an edge falls exactly on Splash's sampling grid
/// they can differ from a page drawn in one piece.
public struct PDFCoder: ImageDecoding, PageDecoding {
    /// Creates the coder. poppler itself is loaded only when a PDF is first met.
    public init() {}

    /// Whether the format is PDF and `libImagoPDF` and poppler can be loaded.
    public func canDecode(_ format: ImageFormat) -> Bool {
        format == .pdf && (try? Self.library.get()) != nil
    }

    /// The pixels a band of a large page holds, about: pages of twice as many or more are drawn
    /// in bands (2 megapixels).
    public static let bandPixels = 2_000_000

    /// The most bands a page is drawn in.
    static let maxBands = 4

    /// The bands a page of `size` is drawn in: its pixels over ``bandPixels``, 1 to
    /// ``maxBands``. The page alone decides them, never the threads, so that the pixels are the
    /// same on every machine.
    static func bands(for size: PixelSize) -> Int {
        max(1, min(maxBands, size.width * size.height / bandPixels, size.height / 64))
    }

    /// `libImagoPDF`, opened once: beside the executable, in `../lib/imago` from it, or where
    /// the dynamic loader looks.
    static let library = ImagoLibraries.open("libImagoPDF.so") { path in
        var message = [CChar](repeating: 0, count: 512)
        return imago_pdf_load(path, &message, message.count) != 0 ? nil : glueMessage(message)
    }

    /// The first page's size in pixels at 72 dpi (MediaBox points rounded up, as pdftoppm sizes
    /// a page; `/Rotate` applied) and the page count.
    ///
    /// - Throws: as ``decode(_:options:)`` before rendering.
    public func info(of data: Data) throws -> ImageInfo {
        let document = try Document(data, limits: .default)
        let size = try document.pageSize(0)
        return ImageInfo(
            format: .pdf, width: VectorRender.covering(size.width), height: VectorRender.covering(size.height),
            pageCount: document.pageCount)
    }

    /// Renders page ``DecodeOptions/page`` (default 0) into ``DecodeOptions/pixelFormat``.
    ///
    /// - Throws: `.unsupportedFeature` without `libImagoPDF` or poppler, or for a document that needs a
    ///   password; `.invalidArgument` for a page out of range; `.exceedsLimit` for input bytes,
    ///   pages, the rendered pixel count or the render time; `.corrupt(.pdf, …)` with poppler's
    ///   reason for a document or page that cannot be read.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let document = try Document(data, limits: options.limits)
        let index = options.page ?? 0
        guard index >= 0, index < document.pageCount else {
            throw ImageCodingError.invalidArgument("page \(index) is out of range: the document has \(document.pageCount) page(s)")
        }
        let points = try document.pageSize(index)
        let size = VectorRender.size(natural: points, naturalDPI: 72, roundsUp: true, options: options)
        try options.limits.check(width: size.width, height: size.height, format: .pdf)
        let scale = VectorRender.scale(natural: points, naturalDPI: 72, options: options)
        var buffer = try document.render(
            index, size: size, scaleX: scale.x, scaleY: scale.y, into: options.pixelFormat, limits: options.limits,
            bands: Self.bands(for: size), threads: CodecThreads.limit(options.maxThreads))
        buffer.convert(to: options.pixelFormat)
        return Image(
            buffer: buffer, orientation: .up, scale: options.scale, format: .pdf,
            metadata: ImageMetadata(), hasAlpha: false)
    }

    /// An open document.
    final class Document {
        private let handle: OpaquePointer
        let pageCount: Int

        init(_ data: Data, limits: DecodingLimits) throws {
            if case .failure(let failure) = PDFCoder.library {
                throw ImageCodingError.unsupportedFeature(.pdf, "PDF needs libImagoPDF and poppler (libpoppler126): \(failure.message)")
            }
            try limits.check(inputBytes: data.count)
            var message = [CChar](repeating: 0, count: 512)
            var needsPassword: Int32 = 0
            let opened = data.withUnsafeBytes { raw in
                imago_pdf_open(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &needsPassword, &message, message.count)
            }
            guard let opened else {
                if needsPassword != 0 {
                    throw ImageCodingError.unsupportedFeature(.pdf, "the document is encrypted and needs a password")
                }
                throw ImageCodingError.corrupt(.pdf, glueMessage(message))
            }
            handle = opened
            pageCount = Int(imago_pdf_page_count(opened))
            guard pageCount > 0 else { throw ImageCodingError.corrupt(.pdf, "the document has no pages") }
            if pageCount > limits.maxPages {
                throw ImageCodingError.exceedsLimit(.maxPages, found: pageCount, limit: limits.maxPages)
            }
        }

        deinit { imago_pdf_close(handle) }

        /// Page `index`'s MediaBox in points, rotation applied.
        func pageSize(_ index: Int) throws -> (width: Double, height: Double) {
            var w = 0.0, h = 0.0
            guard let i = Int32(exactly: index), imago_pdf_page_size(handle, i, &w, &h) != 0 else {
                throw ImageCodingError.corrupt(.pdf, "page \(index) cannot be read")
            }
            guard w.isFinite, h.isFinite, w > 0, h > 0 else {
                throw ImageCodingError.corrupt(.pdf, "page \(index) has an empty size \(w)x\(h)")
            }
            return (w, h)
        }

        /// Draws page `index` at `size`, straight into `format` where the library writes it (RGB,
        /// RGBA and ARGB32: a page is opaque, so premultiplying changes nothing), otherwise into
        /// ARGB32 for the caller to convert; in `bands` horizontal bands, drawn by up to `threads`
        /// threads at once.
        func render(
            _ index: Int, size: PixelSize, scaleX: Double, scaleY: Double, into format: PixelFormat, limits: DecodingLimits,
            bands: Int, threads: Int
        ) throws -> PixelBuffer {
            let (drawn, layout): (PixelFormat, Int32) =
                switch format {
                case .rgb8: (.rgb8, Int32(IMAGO_PDF_RGB8))
                case .rgba8: (.rgba8, Int32(IMAGO_PDF_RGBA8))
                default: (.argb32Premultiplied, Int32(IMAGO_PDF_ARGB32))
                }
            var buffer = try PixelBuffer(uninitializedWidth: size.width, height: size.height, format: drawn) { _ in }
            guard let w = Int32(exactly: size.width), let h = Int32(exactly: size.height),
                let s = Int32(exactly: buffer.bytesPerRow), let i = Int32(exactly: index)
            else {
                throw ImageCodingError.exceedsLimit(.bytes, found: Int.max, limit: PixelBuffer.maxByteCount)
            }
            var message = [CChar](repeating: 0, count: 512)
            let started = ContinuousClock.now
            let result = buffer.withUnsafeMutableBytes { raw in
                imago_pdf_render(
                    handle, i, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), w, h, s, layout, scaleX, scaleY,
                    limits.maxRenderSeconds, Int32(clamping: bands), Int32(clamping: threads), &message, message.count)
            }
            try VectorRender.check(Int(result), started: started, limits: limits, format: .pdf, message: glueMessage(message))
            return buffer
        }
    }
}
