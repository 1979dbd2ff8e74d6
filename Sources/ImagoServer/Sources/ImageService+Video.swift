// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import HTTPTypes
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoServiceURL
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageService {
    /// A video source's frame as the source to process (`IMAGO_ENABLE_VIDEO_THUMBNAILS`): the
    /// frame at `vts` (else `IMAGO_VIDEO_THUMBNAIL_SECOND`), a keyframe with `vtk`, taken with
    /// FFmpeg on the workers under the decoding limits (in a decoder worker unless
    /// `IMAGO_ISOLATED_FORMATS` leaves `video` out), then handed to the pipeline decoded
    /// (``ImageRequest/Source/image(_:key:)``, named by the video's digest and the time), so it is
    /// processed, cached and negotiated as any source is, without being encoded and decoded again
    /// (it reads as BMP, which is not a preferred format: the answer is JPEG unless asked
    /// otherwise). `nil` when the source is not a video, thumbnails are off, or `raw` asks for the
    /// video itself.
    ///
    /// - Throws: ``ServiceError`` 422 when the video cannot give a frame.
    func videoFrameSource(_ source: ServiceSource, options: ProcessingOptions) async throws -> ServiceSource? {
        guard configuration.sources.enableVideoThumbnails, !options.raw else { return nil }
        let input = source.loaded.input
        guard let head = try? input.head(), VideoFrames.looksLikeVideo(head) else { return nil }
        let seconds = options.videoThumbnailSecond ?? configuration.sources.videoThumbnailSecond
        let keyframes = options.videoThumbnailKeyframes ?? configuration.sources.videoThumbnailKeyframes
        let limits = manager.configuration.decodingLimits, coders = coders
        let frame: Image
        do {
            frame = try await workers.run {
                try coders.videoFrame(of: try input.contents(), at: seconds, keyframesOnly: keyframes, limits: limits).image
            }
        } catch let error as ImageCodingError {
            throw ServiceError(error)
        }
        let key = "imago:video:\(String(source.digest, radix: 36)):\(seconds):\(keyframes ? 1 : 0)"
        var request = ImageRequest(image: frame, key: key)
        request.options.formUnion(source.request.options.intersection(ClientCookies.cacheBypass))  // a client's frame stays its own
        do {
            let loaded = try await manager.loadSource(with: request)
            return ServiceSource(
                loaded: loaded, request: request, name: source.name, contentType: ImageFormat.bmp.mimeType,
                lastModified: source.lastModified, host: source.host, baseName: source.baseName)
        } catch {
            throw ServiceError(error)
        }
    }

    /// `/info` for a video source (when video thumbnails are on), with imgproxy Pro's keys as far
    /// as Imago reads them: `size`, `format` (the container's FFmpeg names), `mime_type`, the video
    /// stream's `width` and `height`, `video_streams` (`type`, `codec`, `duration`), and the pixel
    /// options computed on the frame `vts` names. `nil` when the source is not a video or
    /// thumbnails are off.
    func videoInfoResponse(
        _ wanted: InfoOptions, source: ServiceSource, options: ProcessingOptions, headers: HTTPFields
    )
        async throws -> ServiceResponse?
    {
        guard configuration.sources.enableVideoThumbnails, let head = try? source.loaded.input.head(), VideoFrames.looksLikeVideo(head) else {
            return nil
        }
        let etag = ServiceHeaders.etag(source.digest, "video-info," + wanted.canonical + "," + options.canonicalPath)
        if ServiceHeaders.isNotModified(headers, etag: etag, lastModified: source.lastModified) {
            return notModified(etag: etag, source: source, varies: false)
        }
        let input = source.loaded.input
        let seconds = options.videoThumbnailSecond ?? configuration.sources.videoThumbnailSecond
        let keyframes = options.videoThumbnailKeyframes ?? configuration.sources.videoThumbnailKeyframes
        let limits = manager.configuration.decodingLimits, coders = coders
        let frame: (image: Image, info: VideoFrames.Info)
        do {
            frame = try await workers.run {
                try coders.videoFrame(of: try input.contents(), at: seconds, keyframesOnly: keyframes, limits: limits)
            }
        } catch let error as ImageCodingError {
            throw ServiceError(error)
        }
        var report = InfoReport()
        if wanted.size { report["size"] = .int(source.count) }
        if wanted.format {
            report["format"] = .string(frame.info.container)
            report["mime_type"] = .string(source.contentType ?? "video/mp4")
        }
        if wanted.dimensions {
            report["width"] = .int(frame.info.size.width)
            report["height"] = .int(frame.info.size.height)
            report["orientation"] = .int(1)
        }
        if wanted.videoMeta {
            var stream: [String: InfoReport.Value] = ["type": .string("video"), "codec": .string(frame.info.codec)]
            if let duration = frame.info.duration { stream["duration"] = .double(duration) }
            report["video_streams"] = .array([.object(stream)])
            // The container's tags, as imgproxy Pro's video_meta.
            report["video_meta"] = .object(frame.info.tags.mapValues { .string($0) })
        }
        if wanted.needsPixels {
            for (key, value) in try await pixelAnalysis(frame.image, wanted) { report[key] = value }
        }
        let body: Data
        do {
            body = try report.encoded()
        } catch {
            throw ServiceError.unprocessable("the video cannot be reported")
        }
        var fields = validatorFields(etag: etag, source: source, varies: false)
        fields[.contentType] = "application/json"
        return ServiceResponse(status: .ok, headers: fields, body: .bytes(ByteBuffer(bytes: body)))
    }
}
