#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCoders
import ImagoCore
import ImagoProcessing

/// Bytes to pixels for one request: the pipeline's one decode step, for the final image and the
/// partial ones alike. It runs on the pipeline's work queue.
struct DecodeStep: Sendable {
    let spec: DecodeSpec
    let coders: ImageCoderRegistry

    /// The coders' options: pixel format, scale, frames, colour management, limits.
    var options: DecodeOptions {
        var o = DecodeOptions(pixelFormat: spec.pixelFormat, scale: spec.scale, firstFrameOnly: spec.frames == .first,
                              decodesFramesLazily: spec.frames == .lazy, thumbnailPixelSize: spec.sizeHint,
                              colorManagement: spec.colorManagement, limits: spec.limits)
        o.page = spec.page
        return o
    }

    /// Options for a progressive decoder: as ``options``, shrinking on load towards a thumbnail
    /// (the box is squared, since the orientation is not known before the header).
    var progressiveOptions: DecodeOptions {
        var o = options
        if let t = spec.thumbnail {
            let side = max(t.maxPixelSize.width, t.maxPixelSize.height)
            o.thumbnailPixelSize = PixelSize(width: side, height: side)
        }
        return o
    }

    /// Decodes the fetched bytes, or the fetched file where it lies: a thumbnail, scaled down, or
    /// whole, as the request asks.
    ///
    /// - Throws: as ``decode(_:)-(Data)``; a file's read errors as `ImageCodingError.corrupt`.
    func decode(_ fetched: FetchedData) throws -> Image {
        guard let file = fetched.file else { return try decode(fetched.data) }
        return try decode(head: { (try? file.read(at: 0, maxLength: 64)) ?? Data() },
                          thumbnail: { t in try Thumbnailer.thumbnail(of: file, fitting: t.maxPixelSize,
                                                                      preserveAspectRatio: t.preserveAspectRatio,
                                                                      options: options, coders: coders) },
                          scaledDown: { limit in try ScaleDown.decode(file, limitBytes: limit, options: options, coders: coders) },
                          whole: { try coders.decode(file, options: options) })
    }

    /// Decodes all of `data`: a thumbnail, scaled down, or whole, as the request asks.
    ///
    /// - Throws: `ImageCodingError`; any other failure is reported as corrupt data
    ///   of the format the bytes start with.
    func decode(_ data: Data) throws -> Image {
        try decode(head: { data },
                   thumbnail: { t in try Thumbnailer.thumbnail(of: data, fitting: t.maxPixelSize,
                                                               preserveAspectRatio: t.preserveAspectRatio,
                                                               options: options, coders: coders) },
                   scaledDown: { limit in try ScaleDown.decode(data, limitBytes: limit, options: options, coders: coders) },
                   whole: { try coders.decode(data, options: options) })
    }

    /// The request's choice among the three decodes of one input, and the error of any failure
    /// that is not an `ImageCodingError`: corrupt data of the format `head()` starts with.
    private func decode(head: () -> Data, thumbnail: (ImageRequest.Thumbnail) throws -> Image,
                        scaledDown: (Int) throws -> Image, whole: () throws -> Image) throws -> Image {
        do {
            if let t = spec.thumbnail { return try thumbnail(t) }
            if let limit = spec.scaleDownLimitBytes { return try scaledDown(limit) }
            return try whole()
        } catch let e as ImageCodingError {
            throw e
        } catch {
            guard let format = ImageFormat(sniffing: head()) else { throw ImageCodingError.unsupportedFormat(nil) }
            throw ImageCodingError.corrupt(format, String(describing: error))
        }
    }

    /// Brings a partial image to the size and orientation the final one will have.
    func finishPartial(_ image: Image) throws -> Image {
        if let t = spec.thumbnail {
            let upright = image.applyingOrientation()
            let target = Thumbnailer.targetSize(for: upright.pixelSize, within: t.maxPixelSize,
                                                preserveAspectRatio: t.preserveAspectRatio)
            guard target != upright.pixelSize else { return upright }
            let frames = try upright.frames.map { frame in
                ImageFrame(buffer: try Resampler.resize(frame.buffer, to: target, limits: spec.limits), duration: frame.duration)
            }
            return try Image(frames: frames, loopCount: upright.loopCount, scale: upright.scale, format: upright.format,
                             metadata: upright.metadata, hasAlpha: upright.hasAlpha)
        }
        if let limit = spec.scaleDownLimitBytes { return try image.scaledDown(limitBytes: limit) }
        return image
    }
}
