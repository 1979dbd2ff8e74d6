// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoServiceURL

extension ImageService {
    /// A video source's frame as the source to process (`IMAGO_ENABLE_VIDEO_THUMBNAILS`): the
    /// frame at `vts` (else `IMAGO_VIDEO_THUMBNAIL_SECOND`), a keyframe with `vtk`, taken with
    /// FFmpeg on the workers under the decoding limits, then handed to the pipeline as an
    /// uncompressed image named by the video's digest and the time, so it is processed, cached
    /// and negotiated as any source is (its own format, BMP, is not a preferred one: the answer is
    /// JPEG unless asked otherwise). `nil` when the source is not a video or thumbnails are off.
    ///
    /// - Throws: ``ServiceError`` 422 when the video cannot give a frame.
    func videoFrameSource(_ source: ServiceSource, options: ProcessingOptions) async throws -> ServiceSource? {
        guard configuration.enableVideoThumbnails else { return nil }
        let input = source.loaded.input
        guard let head = try? input.head(), VideoFrames.looksLikeVideo(head) else { return nil }
        let seconds = options.videoThumbnailSecond ?? configuration.videoThumbnailSecond
        let keyframes = options.videoThumbnailKeyframes ?? configuration.videoThumbnailKeyframes
        let limits = manager.configuration.decodingLimits
        let frame: Data
        do {
            frame = try await workers.run { [coders] in
                let (image, _) = try VideoFrames.frame(of: try input.contents(), at: seconds, keyframesOnly: keyframes, limits: limits)
                return try coders.encode(image, as: .bmp)
            }
        } catch let error as ImageCodingError {
            throw ServiceError(error)
        }
        let key = "imago:video:\(String(source.digest, radix: 36)):\(seconds):\(keyframes ? 1 : 0)"
        let request = ImageRequest(data: frame, key: key)
        do {
            let loaded = try await manager.loadSource(with: request)
            return ServiceSource(
                loaded: loaded, request: request, name: source.name, contentType: ImageFormat.bmp.mimeType,
                lastModified: source.lastModified, host: source.host, baseName: source.baseName)
        } catch {
            throw ServiceError(error)
        }
    }
}
