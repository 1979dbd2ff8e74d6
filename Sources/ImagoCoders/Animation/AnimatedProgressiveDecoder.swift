// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Incremental decoding for animated formats whose frames arrive one after another (GIF): the
/// image from the bytes so far holds the frames complete so far, and is marked incremental
/// until the final update.
final class AnimatedProgressiveDecoder: ProgressiveImageDecoding {
    private let readInfo: (Data) -> ImageInfo?
    private let options: DecodeOptions
    private let decode: (Data, DecodeOptions) throws -> Image
    private var data = Data()
    private var final = false
    private(set) var info: ImageInfo?
    private(set) var isComplete = false

    /// - Parameters:
    ///   - readInfo: The header from the bytes so far, or `nil` while it is incomplete.
    ///   - decode: A one-shot decode that gives the frames complete in the bytes it is given.
    init(options: DecodeOptions, readInfo: @escaping (Data) -> ImageInfo?, decode: @escaping (Data, DecodeOptions) throws -> Image) {
        self.readInfo = readInfo
        self.options = options
        self.decode = decode
    }

    /// Keeps the bytes; reads the header once it has arrived.
    ///
    /// - Throws: `.exceedsLimit` for input over the limit; with `isFinal`, the decode's errors.
    func update(_ data: Data, isFinal: Bool) throws {
        try options.limits.check(inputBytes: data.count)
        self.data = data
        final = isFinal
        if info == nil { info = readInfo(data) }
        if isFinal {
            _ = try currentImage()
            isComplete = true
        }
    }

    /// The frames complete so far, or `nil` before the first one is.
    ///
    /// - Throws: with the final update, the decode's errors; before it, only errors that more
    ///   data cannot cure (limits, corrupt data in complete frames).
    func currentImage() throws -> Image? {
        do {
            var image = try decode(data, options)
            image.isIncremental = !final
            return image
        } catch let error as ImageCodingError {
            if case .truncated = error, !final { return nil }
            throw error
        }
    }
}
