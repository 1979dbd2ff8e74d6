#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore

/// An APNG's frames, decoded on demand: each frame is rebuilt as a standalone PNG stream and
/// decoded by libpng, then composited with its dispose and blend ops.
final class APNGAnimation: AnimatedImageDecoding {
    let data: Data
    let structure: APNGStructure
    let composer: AnimationComposer
    let frameCount: Int
    let canvasSize: PixelSize
    var pixelFormat: PixelFormat { .argb32Premultiplied }

    init(data: Data, structure: APNGStructure, options: DecodeOptions) throws {
        let canvas = PixelSize(width: structure.width, height: structure.height)
        try options.limits.check(width: canvas.width, height: canvas.height, format: .apng)
        self.data = data
        self.structure = structure
        canvasSize = canvas
        frameCount = options.firstFrameOnly ? 1 : structure.frames.count
        var frameOptions = options
        frameOptions.pixelFormat = .argb32Premultiplied
        frameOptions.thumbnailPixelSize = nil
        let layouts = structure.frames.prefix(frameCount).map(\.layout)
        composer = AnimationComposer(canvas: canvas, layouts: Array(layouts)) { [data, structure, frameOptions] index in
            let stream = structure.frameStream(index, in: data)
            return try PNGCoder().decodeStill(stream, options: frameOptions).buffer
        }
    }

    var loopCount: Int { frameCount > 1 ? structure.plays : 1 }

    func duration(at index: Int) -> Double {
        composer.layouts.indices.contains(index) ? composer.layouts[index].duration : 0
    }

    func frame(at index: Int) throws -> PixelBuffer { try composer.frame(at: index) }

    /// Every frame, frame 0 alone, or frame 0 and this source; `base` gives the metadata.
    func image(options: DecodeOptions, metadata: ImageMetadata, orientation: ImageOrientation) throws -> Image {
        let first = try frame(at: 0)
        var image: Image
        if frameCount == 1 {
            image = Image(buffer: first, orientation: orientation, format: .apng, metadata: metadata, hasAlpha: true)
        } else if options.decodesFramesLazily {
            image = try Image(animation: self, firstFrame: first, orientation: orientation, format: .apng, metadata: metadata, hasAlpha: true)
        } else {
            try options.limits.check(frameCount: frameCount, framePixels: canvasSize.pixelCount ?? Int.max)
            var frames = [ImageFrame(buffer: first, duration: duration(at: 0))]
            for i in 1..<frameCount { frames.append(ImageFrame(buffer: try frame(at: i), duration: duration(at: i))) }
            composer.reset()
            image = try Image(frames: frames, loopCount: loopCount, orientation: orientation, format: .apng,
                              metadata: metadata, hasAlpha: true)
        }
        image.scale = options.scale
        return options.pixelFormat == .argb32Premultiplied ? image : image.converted(to: options.pixelFormat)
    }
}
