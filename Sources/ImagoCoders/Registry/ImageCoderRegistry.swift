// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An ordered registry of decoders and encoders.
///
/// ```swift
/// import Foundation
/// import Imago
///
/// let data = try Data(contentsOf: URL(fileURLWithPath: "photo.jpg"))
/// let info = try ImageCoderRegistry.shared.info(of: data)         // header only: format, size, frames
/// let image = try ImageCoderRegistry.shared.decode(data, options: DecodeOptions(
///     thumbnailPixelSize: PixelSize(width: 512, height: 512)))     // decoded at 1/4 in the DCT
/// let webp = try ImageCoderRegistry.shared.encode(image, as: .webp, options: EncodeOptions(quality: 0.8))
///
/// ImageCoderRegistry.shared.add(MyDecoder())                       // asked before the built-ins
/// ```
///
/// As in SDWebImage's `SDImageCodersManager`, the coder added last is asked first, so an
/// app can override a built-in coder by adding its own. Thread-safe: the lists sit behind
/// a `Mutex` and every lookup copies them out before calling any coder.
public final class ImageCoderRegistry: Sendable {
    private struct State {
        var decoders: [any ImageDecoding]
        var encoders: [any ImageEncoding]
    }

    private let state: Mutex<State>

    /// Creates a registry holding exactly the given coders. Later elements take precedence.
    public init(decoders: [any ImageDecoding] = [], encoders: [any ImageEncoding] = []) {
        state = Mutex(State(decoders: decoders, encoders: encoders))
    }

    /// A registry with Imago's built-in coders: JPEG (libjpeg-turbo), PNG (libpng), WebP (libwebp),
    /// GIF (giflib; libimagequant for encoding), APNG (libpng with our chunk reader and writer),
    /// HEIC/HEIF (libheif, with the codecs it has at run time), AVIF (libavif with dav1d and aom,
    /// loaded on first use), TIFF (libtiff), BMP and
    /// ICO/CUR and ICNS (written here), JPEG 2000 (openjpeg, decoding), JPEG XL (libjxl, loaded
    /// on first use), SVG (librsvg, rendered with cairo) and PDF (poppler's Splash renderer, as
    /// pdftoppm draws, through Imago's `libImagoPDF`), both loaded on first use (decoding).
    public static func makeDefault() -> ImageCoderRegistry {
        // Later entries are asked first: AVIF goes to libavif before libheif.
        ImageCoderRegistry(
            decoders: [
                PDFCoder(), SVGCoder(), JXLCoder(), ICNSCoder(), JPEG2000Coder(), ICOCoder(), BMPCoder(), TIFFCoder(), HEIFCoder(), AVIFCoder(), GIFCoder(),
                WebPCoder(), PNGCoder(), JPEGCoder()
            ],
            encoders: [JXLCoder(), BMPCoder(), TIFFCoder(), HEIFCoder(), AVIFCoder(), GIFCoder(), WebPCoder(), PNGCoder(), JPEGCoder(), ICOCoder()])
    }

    /// The shared registry used when no other is given. Starts with ``makeDefault()``'s coders.
    public static let shared = ImageCoderRegistry.makeDefault()

    /// Adds a decoder that is asked before every decoder already present.
    public func add<D: ImageDecoding>(_ decoder: D) {
        state.withLock { $0.decoders.append(decoder) }
    }

    /// Adds an encoder that is asked before every encoder already present.
    public func add<E: ImageEncoding>(_ encoder: E) {
        state.withLock { $0.encoders.append(encoder) }
    }

    /// Adds a coder that both decodes and encodes, ahead of the ones already present.
    public func add<C: ImageDecoding & ImageEncoding>(_ coder: C) {
        state.withLock {
            $0.decoders.append(coder)
            $0.encoders.append(coder)
        }
    }

    /// Removes every decoder and encoder of type `type`.
    public func remove<T>(_ type: T.Type) {
        state.withLock {
            $0.decoders.removeAll { Swift.type(of: $0) == type }
            $0.encoders.removeAll { Swift.type(of: $0) == type }
        }
    }

    /// The decoders, in the order they are asked (last added first).
    public var decoders: [any ImageDecoding] { state.withLock { Array($0.decoders.reversed()) } }

    /// The encoders, in the order they are asked (last added first).
    public var encoders: [any ImageEncoding] { state.withLock { Array($0.encoders.reversed()) } }

    /// The decoder that will handle `format`, or `nil`.
    public func decoder(for format: ImageFormat) -> (any ImageDecoding)? {
        decoders.first { $0.canDecode(format) }
    }

    /// The encoder that will handle `format`, or `nil`.
    public func encoder(for format: ImageFormat) -> (any ImageEncoding)? {
        encoders.first { $0.canEncode(format) }
    }

    /// Whether some registered decoder decodes `format`.
    public func canDecode(_ format: ImageFormat) -> Bool { decoder(for: format) != nil }

    /// Whether some registered encoder writes `format`.
    public func canEncode(_ format: ImageFormat) -> Bool { encoder(for: format) != nil }

    /// Every format some decoder handles, in `ImageFormat.allCases` order.
    public var decodableFormats: [ImageFormat] { ImageFormat.allCases.filter(canDecode) }

    /// Every format some encoder writes, in `ImageFormat.allCases` order.
    public var encodableFormats: [ImageFormat] { ImageFormat.allCases.filter(canEncode) }

    /// Sniffs the format and checks the input size.
    ///
    /// - Throws: `ImageCodingError.emptyData`, `.unsupportedFormat(nil)`, or
    ///   `.exceedsLimit(.maxBytes, …)`.
    public func detectFormat(of data: Data, limits: DecodingLimits = .default) throws -> ImageFormat {
        guard !data.isEmpty else { throw ImageCodingError.emptyData }
        try limits.check(inputBytes: data.count)
        guard let format = ImageFormat(sniffing: data) else { throw ImageCodingError.unsupportedFormat(nil) }
        return format
    }

    /// Reads the header of `data` with the decoder for its format. For a recognised format
    /// that no decoder handles, reports what the container header gives (format, and the
    /// size where the header states it).
    ///
    /// - Throws: as ``detectFormat(of:limits:)`` and the decoder's `info(of:)`.
    public func info(of data: Data) throws -> ImageInfo {
        PipelineProbe.record(ProbeEvent.headerParse)
        let format = try detectFormat(of: data, limits: .unlimited)
        if let decoder = decoder(for: format) { return try decoder.info(of: data) }
        return try HeaderProbe.info(of: data, format: format)
    }

    /// Decodes `data` with the first decoder that claims its sniffed format.
    ///
    /// - Throws: `ImageCodingError`: `.emptyData`, `.unsupportedFormat` (unknown data,
    ///   or a known format without a decoder), `.exceedsLimit`, and whatever the decoder throws.
    public func decode(_ data: Data, options: DecodeOptions = .default) throws -> Image {
        let format = try detectFormat(of: data, limits: options.limits)
        guard let decoder = decoder(for: format) else { throw ImageCodingError.unsupportedFormat(format) }
        return try decode(data, with: decoder, options: options)
    }

    /// The registry whose decode is running on this thread or task (``decode(_:with:options:)``
    /// binds it), `nil` outside one: what ``decodeEmbedded(_:format:options:fallback:)`` decodes through.
    @TaskLocal static var decoding: ImageCoderRegistry?

    /// Decodes an image embedded in the one being decoded (an SVG's `data:` image, an ICNS
    /// entry) through the registry decoding the outer one, so that the inner image gets the same
    /// coders and the same isolation: a format that registry sends to worker processes is not
    /// decoded in this one because it came inside another. Outside a registry's decode (a coder
    /// called directly), through ``shared``; with `fallback` when the registry has no decoder for
    /// `format`.
    ///
    /// - Throws: the decoder's errors.
    package static func decodeEmbedded(
        _ data: Data, format: ImageFormat, options: DecodeOptions, fallback: any ImageDecoding
    ) throws -> Image {
        let registry = decoding ?? .shared
        return try registry.decode(data, with: registry.decoder(for: format) ?? fallback, options: options)
    }

    /// The header of an image embedded in the one being decoded, read as
    /// ``decodeEmbedded(_:format:options:fallback:)`` decodes it.
    ///
    /// - Throws: the decoder's header errors.
    package static func embeddedInfo(of data: Data, format: ImageFormat, fallback: any ImageDecoding) throws -> ImageInfo {
        try ((decoding ?? .shared).decoder(for: format) ?? fallback).info(of: data)
    }

    /// Decodes `data`, whose format `decoder` handles: one page alone when asked, composited from
    /// frames decoded on demand for formats without pages of their own. Binds ``decoding`` to
    /// this registry while it runs.
    func decode(_ data: Data, with decoder: any ImageDecoding, options: DecodeOptions) throws -> Image {
        try Self.$decoding.withValue(self) { try decodeBound(data, with: decoder, options: options) }
    }

    private func decodeBound(_ data: Data, with decoder: any ImageDecoding, options: DecodeOptions) throws -> Image {
        guard let page = options.page, !(decoder is any PageDecoding) else { return try decoder.decode(data, options: options) }
        guard page >= 0 else { throw ImageCodingError.invalidArgument("page \(page) is negative") }
        // Any other format: frame `page`, composited from frames decoded on demand, so only the
        // canvases it needs are in memory.
        var all = options
        all.page = nil
        all.firstFrameOnly = page == 0
        all.decodesFramesLazily = page > 0
        let image = try decoder.decode(data, options: all)
        guard page < image.frameCount else {
            throw ImageCodingError.invalidArgument("page \(page) is out of range: the image has \(image.frameCount) frame(s)")
        }
        let frame = page == 0 ? image.frames[0] : try image.frame(at: page)
        let buffer = frame.buffer.format == options.pixelFormat ? frame.buffer : frame.buffer.converted(to: options.pixelFormat)
        return try Image(
            frames: [ImageFrame(buffer: buffer)], loopCount: 1, orientation: image.orientation, scale: image.scale,
            format: image.format, metadata: image.metadata, hasAlpha: image.hasAlpha)
    }

    /// Encodes `image`. With `format` `nil`, picks SDWebImage's rule: PNG for an image with
    /// alpha, JPEG otherwise.
    ///
    /// - Throws: `ImageCodingError.encoderUnavailable(_:)` when no encoder writes the
    ///   format, and whatever the encoder throws.
    public func encode(_ image: Image, as format: ImageFormat? = nil, options: EncodeOptions = .default) throws -> Data {
        let target = format ?? (image.hasAlpha ? .png : .jpeg)
        guard let encoder = encoder(for: target) else { throw ImageCodingError.encoderUnavailable(target) }
        return try encoder.encode(image, as: target, options: options)
    }

    /// The format to write `image` in when the caller names none: its own format when an
    /// encoder writes it (and, for an animation, the format can animate), otherwise PNG for an
    /// image with alpha and JPEG without (SDWebImage's rule).
    public func preferredEncodingFormat(for image: Image) -> ImageFormat {
        if let format = image.format, canEncode(format), !image.isAnimated || format.supportsAnimation,
            format != .ico || max(image.pixelSize.width, image.pixelSize.height) <= ICOCoder.maxSide
        {
            return format
        }
        return image.hasAlpha ? .png : .jpeg
    }

    /// A progressive decoder for data whose first bytes are `prefix`, or `nil` when the format
    /// is not yet recognisable from them or its decoder has no progressive mode.
    public func makeProgressiveDecoder(for prefix: Data, options: DecodeOptions = .default) -> (any ProgressiveImageDecoding)? {
        guard let format = ImageFormat(sniffing: prefix), let decoder = decoder(for: format) else { return nil }
        return decoder.makeProgressiveDecoder(options: options)
    }
}

/// The registry's former name.
@available(*, deprecated, renamed: "ImageCoderRegistry")
public typealias ImageCoders = ImageCoderRegistry
