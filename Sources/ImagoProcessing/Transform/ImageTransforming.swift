#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import ImagoCore

/// Turns one image into another, with a stable ``key`` that names the transformation, so the
/// result can be cached under the original key plus this one (SDWebImage's `SDImageTransformer`).
public protocol ImageTransforming: Sendable {
    /// Identifies the transformation and all its parameters; equal keys mean equal results.
    var key: String { get }
    /// Transforms one frame's pixels.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for parameters that do not fit
    ///   the image (an empty crop, for example).
    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer

    /// Transforms a whole image: by default (see the extension) upright first, then every frame
    /// or the first only. A transformer that needs the image as a whole (its orientation, all
    /// its frames at once) implements this itself.
    func transform(_ image: Image, animated: Bool) throws -> Image

    /// Whether ``transform(_:animated:)`` takes a lazy animation (`Image.animation`, frames
    /// decoded on demand) as it is, decoding its frames one at a time itself, so that only its
    /// results are held rather than every full-size canvas. Default `false`: the pipeline
    /// decodes every frame before calling it.
    var acceptsLazyAnimations: Bool { get }
}

extension ImageTransforming {
    /// `false`: the pipeline hands this transformer fully decoded animations.
    public var acceptsLazyAnimations: Bool { false }

    /// Applies the transformation to every frame (SDWebImage's `transformAnimatedImage`), or to
    /// the first frame only when `animated` is `false`. The image is turned upright first, since
    /// sizes and rectangles refer to what a viewer sees.
    ///
    /// - Throws: as ``transform(_:)``.
    public func transform(_ image: Image, animated: Bool = true) throws -> Image {
        let upright = image.applyingOrientation()
        // Frame by frame, so a lazy animation's canvases are decoded one at a time.
        let transformed = try (0..<(animated ? upright.frameCount : 1)).map { index in
            let frame = try upright.frame(at: index)
            return ImageFrame(buffer: try transform(frame.buffer), duration: frame.duration)
        }
        return try Image(frames: transformed, loopCount: upright.loopCount, scale: upright.scale, format: upright.format,
                         metadata: upright.metadata, hasAlpha: upright.hasAlpha || transformed[0].buffer.format.hasAlphaChannel)
    }
}

/// Cache keys for transformed and thumbnailed images, as SDWebImage composes them: the suffix
/// goes before the path extension of a URL's path, and the query is kept.
public enum TransformedKey {
    /// `https://x/a.png?v=1` with `Resize(…)` gives `https://x/a-Resize(…).png?v=1`.
    public static func key(_ key: String, transformerKey: String) -> String {
        insert("-" + transformerKey, into: key)
    }

    /// The key of a thumbnail of `size`, preserving the aspect ratio or not.
    public static func thumbnailKey(_ key: String, size: PixelSize, preserveAspectRatio: Bool) -> String {
        insert("-Thumbnail(\(size.width)x\(size.height),\(preserveAspectRatio ? 1 : 0))", into: key)
    }

    private static func insert(_ suffix: String, into key: String) -> String {
        if var components = URLComponents(string: key), components.scheme != nil {
            let path = components.percentEncodedPath
            let (stem, ext) = PathName.splitExtension(path)
            let encodedSuffix = PathName.percentEncodedPath(suffix)
            components.percentEncodedPath = ext.isEmpty ? path + encodedSuffix
                : stem + encodedSuffix + "." + ext
            return components.string ?? key + suffix
        }
        let (stem, ext) = PathName.splitExtension(key)
        return ext.isEmpty ? key + suffix : stem + suffix + "." + ext
    }
}
