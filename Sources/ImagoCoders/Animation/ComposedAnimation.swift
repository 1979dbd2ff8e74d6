// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

/// What the GIF, APNG and WebP animation sources share: a composer over their frames, and the
/// way a decode turns them into an `Image`.
protocol ComposedAnimation: AnimatedImage, AnyObject {
    var composer: AnimationComposer { get }
}

extension ComposedAnimation {
    var pixelFormat: PixelFormat { .argb32Premultiplied }

    func duration(at index: Int) -> Double {
        composer.layouts.indices.contains(index) ? composer.layouts[index].duration : 0
    }

    func canvas(at index: Int) throws -> PixelBuffer { try composer.frame(at: index) }

    /// The decoded image: a still for one frame; frame 0 and this source with
    /// ``DecodeOptions/decodesFramesLazily``; otherwise every frame, within the limits. A damaged
    /// frame after the first ends the animation there, as browsers show what decodes.
    func image(
        options: DecodeOptions, format: ImageFormat, metadata: ImageMetadata = ImageMetadata(),
        orientation: ImageOrientation = .up, hasAlpha: Bool
    ) throws -> Image {
        let first = try canvas(at: 0)
        var image: Image
        if frameCount == 1 {
            image = Image(buffer: first, orientation: orientation, format: format, metadata: metadata, hasAlpha: hasAlpha)
        } else if options.decodesFramesLazily {
            image = try Image(
                animation: self, firstFrame: first, orientation: orientation, format: format,
                metadata: metadata, hasAlpha: hasAlpha)
        } else {
            try options.limits.check(frameCount: frameCount, framePixels: canvasSize.pixelCount ?? Int.max)
            var frames = [ImageFrame(buffer: first, duration: duration(at: 0))]
            for i in 1..<frameCount {
                guard let buffer = try? canvas(at: i) else { break }
                frames.append(ImageFrame(buffer: buffer, duration: duration(at: i)))
            }
            composer.reset()  // the frames are held by the image now; the composer's canvas is not needed
            image = try Image(
                frames: frames, loopCount: loopCount, orientation: orientation, format: format,
                metadata: metadata, hasAlpha: hasAlpha)
        }
        image.scale = options.scale
        return options.pixelFormat == .argb32Premultiplied ? image : image.converted(to: options.pixelFormat)
    }
}
