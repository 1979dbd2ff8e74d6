// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An animation made of separate images (YYImage's `YYFrameImage`): decoded images, or encoded
/// ones decoded when their frame is asked for, each shown for its own duration. Frames may
/// differ in size: each canvas is the size of its image.
public struct FrameImage: AnimatedImage {
    private enum Source: Sendable {
        case decoded([PixelBuffer])
        case encoded([Data], ImageCoderRegistry, DecodeOptions)
    }

    private let source: Source
    private let durations: [Double]
    /// Total plays; 0 means forever.
    public let loopCount: Int
    /// The largest frame's pixels × 4 bytes.
    public let bytesPerFrame: Int
    /// The size of the first frame.
    public let canvasSize: PixelSize
    /// Premultiplied ARGB32, the format frames are drawn in.
    public var pixelFormat: PixelFormat { .argb32Premultiplied }

    /// Frames from decoded images (the first frame of each).
    ///
    /// - Parameters:
    ///   - images: The frames, in order; each contributes its first frame.
    ///   - durations: One per image, or one for all.
    ///   - loopCount: Total plays; 0 (the default) means forever.
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for no images or a duration
    ///   count that is neither 1 nor the image count.
    public init(images: [Image], durations: [Double], loopCount: Int = 0) throws {
        guard !images.isEmpty else { throw ImageCodingError.invalidArgument("a frame image needs at least one image") }
        self.durations = try Self.expand(durations, count: images.count)
        let buffers = images.map { $0.buffer.converted(to: .argb32Premultiplied) }
        source = .decoded(buffers)
        self.loopCount = max(0, loopCount)
        bytesPerFrame = buffers.map { $0.width * $0.height * 4 }.max() ?? 0
        canvasSize = buffers[0].size
    }

    /// Frames from encoded images, decoded one at a time when the player asks.
    ///
    /// - Parameters:
    ///   - encoded: The encoded frames, in order; only the first is decoded now.
    ///   - durations: One per image, or one for all.
    ///   - loopCount: Total plays; 0 (the default) means forever.
    ///   - coders: Default `ImageCoderRegistry.shared`.
    ///   - options: Decode options. Default: the first frame of each, premultiplied.
    /// - Throws: as ``init(images:durations:loopCount:)``; the header errors of the first image
    ///   (its size sets ``bytesPerFrame``).
    public init(
        encoded: [Data], durations: [Double], loopCount: Int = 0, coders: ImageCoderRegistry = .shared,
        options: DecodeOptions = DecodeOptions(firstFrameOnly: true)
    ) throws {
        guard let first = encoded.first else { throw ImageCodingError.invalidArgument("a frame image needs at least one image") }
        self.durations = try Self.expand(durations, count: encoded.count)
        source = .encoded(encoded, coders, options)
        self.loopCount = max(0, loopCount)
        let info = try coders.info(of: first)
        bytesPerFrame = info.width * info.height * 4
        canvasSize = info.pixelSize
    }

    /// One frame per image.
    public var frameCount: Int { durations.count }

    /// Seconds frame `index` is shown (a negative duration given is 0); 0 for an index out of range.
    public func duration(at index: Int) -> Double { durations.indices.contains(index) ? durations[index] : 0 }

    /// The image at `index`; an encoded one is decoded now.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` out of range; decoding errors.
    public func canvas(at index: Int) throws -> PixelBuffer {
        guard durations.indices.contains(index) else {
            throw ImageCodingError.invalidArgument("frame \(index) is out of range: \(frameCount) frame(s)")
        }
        switch source {
        case .decoded(let buffers): return buffers[index]
        case .encoded(let data, let coders, let options):
            return try coders.decode(data[index], options: options).buffer.converted(to: .argb32Premultiplied)
        }
    }

    private static func expand(_ durations: [Double], count: Int) throws -> [Double] {
        if durations.count == count { return durations.map { max(0, $0) } }
        if durations.count == 1 { return Array(repeating: max(0, durations[0]), count: count) }
        throw ImageCodingError.invalidArgument("\(durations.count) durations for \(count) images: give one per image or one for all")
    }
}
