// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An APNG's frames, decoded on demand: each frame is rebuilt as a standalone PNG stream and
/// decoded by libpng, then composited with its dispose and blend ops.
final class APNGAnimation: ComposedAnimation {
    let data: Data
    let structure: APNGStructure
    let composer: AnimationComposer
    let frameCount: Int
    let canvasSize: PixelSize

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
        composer = AnimationComposer(format: .apng, canvas: canvas, layouts: Array(layouts)) { [data, structure, frameOptions] index in
            let stream = structure.frameStream(index, in: data)
            return try PNGCoder().decodeStill(stream, options: frameOptions).buffer
        }
    }

    var loopCount: Int { frameCount > 1 ? structure.plays : 1 }

    /// Every frame, frame 0 alone, or frame 0 and this source.
    func image(options: DecodeOptions, metadata: ImageMetadata, orientation: ImageOrientation) throws -> Image {
        try image(options: options, format: .apng, metadata: metadata, orientation: orientation, hasAlpha: true)
    }
}
