// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy Pro's video thumbnails: a video source answered with a frame of it, processed.
@Suite("Service video thumbnails", .enabled(if: VideoFrames.isAvailable && VideoFixtures.isAvailable, "FFmpeg or ffmpeg is not installed"))
struct ServiceVideoTests {
    @Test("a frame of an MP4 or WebM, resized and negotiated as any source; vts and vtk choose it; off by default")
    func thumbnails() async throws {
        let mp4 = try await VideoFixtures.clip("mp4")
        let webm = try await VideoFixtures.clip("webm", seconds: 2)
        try await ServiceHarness.with({ $0.sources.enableVideoThumbnails = true }) { h in
            h.origin.register("clip.mp4", data: mp4, contentType: "video/mp4")
            h.origin.register("clip.webm", data: webm, contentType: "video/webm")
            let r = try await h.get(h.plain("w:160", "/img/clip.mp4"))
            #expect(r.status == 200 && r["content-type"] == "image/jpeg", "\(r.status) \(String(decoding: r.body.prefix(200), as: UTF8.self))")
            #expect(try r.image().pixelSize == PixelSize(width: 160, height: 120))
            // The default time is 1 s; vts moves it; vtk takes the keyframe before.
            let at1 = try r.image().buffer
            let expected = try await VideoFixtures.frame(mp4, at: 1)
            let full = try await h.get(h.plain("f:png", "/img/clip.mp4"))
            let fullPixels = try full.image().buffer.converted(to: .rgba8)
            let reference = try PixelBuffer(width: 320, height: 240, format: .rgba8, bytes: expected)
            #expect(PixelMetrics.psnr(fullPixels, reference) > 40)
            // The frame goes to the pipeline decoded: no image header is read, and nothing is
            // decoded from bytes again (a BMP round trip would read one).
            let probe = PipelineProbe()
            let probed = await PipelineProbe.$current.withValue(probe) {
                await h.service.respond(method: .get, path: h.plain("w:100/vts:1.5", "/img/clip.mp4"), headers: [:])
            }
            #expect(probed.status == .ok && probe.count(ProbeEvent.headerParse) == 0, "\(probe.all)")
            #expect(probe.count(ProbeEvent.resultLookup) == 1 && probe.count(ProbeEvent.lookup("decode")) == 1, "\(probe.all)")
            let later = try await h.get(h.plain("w:160/vts:2.5", "/img/clip.mp4"))
            #expect(later["etag"] != r["etag"])
            let laterPixels = try later.image().buffer
            #expect(PixelMetrics.psnr(laterPixels, at1) < 35)
            let key = try await h.get(h.plain("w:160/vts:2.5/vtk:1", "/img/clip.mp4"))
            let key2 = try await h.get(h.plain("w:160/vts:2", "/img/clip.mp4"))
            let (keyPixels, key2Pixels) = (try key.image().buffer, try key2.image().buffer)
            #expect(PixelMetrics.psnr(keyPixels, key2Pixels) > 40, "the keyframe at 2 s")
            let w = try await h.get(h.plain("rs:fill:64:64/f:webp", "/img/clip.webm"))
            #expect(w.status == 200 && w["content-type"] == "image/webp")
            #expect(try w.image().pixelSize == PixelSize(width: 64, height: 64))
            #expect(try await h.get(h.plain("vts:-1", "/img/clip.mp4")).status == 404)
            // /info: the container and the stream, and the pixel options on the frame.
            let info = try await h.get("/info" + h.plain("bh:3:3/vts:2", "/img/clip.mp4"))
            let json = try #require(try JSONSerialization.jsonObject(with: info.body) as? [String: Any], "\(info.status)")
            #expect((json["format"] as? String)?.contains("mp4") == true && json["mime_type"] as? String == "video/mp4")
            #expect(json["width"] as? Int == 320 && json["height"] as? Int == 240 && json["size"] as? Int == mp4.count)
            let streams = try #require(json["video_streams"] as? [[String: Any]])
            #expect(streams.first?["codec"] as? String == "h264" && abs((streams.first?["duration"] as? Double ?? 0) - 4) < 0.2)
            #expect((json["blurhash"] as? String)?.count == 4 + 2 * 9)
            // video_meta: the container's tags, as ffmpeg wrote them.
            let meta = try #require(json["video_meta"] as? [String: String])
            #expect(meta["major_brand"] == "isom" && meta["encoder"]?.hasPrefix("Lavf") == true, "\(meta)")
        }
        try await ServiceHarness.with { h in
            h.origin.register("clip.mp4", data: mp4, contentType: "video/mp4")
            let off = try await h.get(h.plain("w:160", "/img/clip.mp4"))
            #expect(off.status == 422, "off by default, as imgproxy Pro's")
        }
    }
}
