// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Usage: imago-decode-timer [isolated-]full|scaled|straight|rgb|thumb FILE ITERATIONS
// Decodes FILE (from memory, to the premultiplied display format) ITERATIONS times and prints
// "median_ms min_ms width height" — the same protocol as the peers in scripts/bench/.
// "isolated-MODE" decodes in one sandboxed worker process (this program, DecoderIsolation),
// whatever the format: what isolation adds to one request.
import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing

DecoderWorker.runIfRequested()  // a worker of the isolated modes never returns from this
var args = CommandLine.arguments
let isolated = args.count > 1 && args[1].hasPrefix("isolated-")
if isolated { args[1] = String(args[1].dropFirst("isolated-".count)) }
let everyFormat: Set<ImageFormat> = [.jpeg, .png, .gif, .webp, .tiff, .heic, .heif, .avif, .jxl, .jp2, .pdf, .svg, .bmp, .ico, .icns]
let coders: ImageCoderRegistry =
    isolated ? ImageCoderRegistry.shared.isolating(DecoderIsolation(formats: everyFormat, workers: 1)) : .shared
guard args.count == 4, let iterations = Int(args[3]), iterations > 0 else {
    FileHandle.standardError.write(Data("usage: imago-decode-timer full|scaled|straight|rgb|thumb FILE ITERATIONS\n".utf8))
    exit(2)
}
let data: Data
do { data = try Data(contentsOf: URL(fileURLWithPath: args[2])) } catch {
    FileHandle.standardError.write(Data("cannot read \(args[2]): \(error)\n".utf8))
    exit(1)
}
var options = DecodeOptions()
if args[1] == "straight" { options.pixelFormat = .rgba8 }  // straight RGBA: no premultiplication
if args[1] == "rgb" { options.pixelFormat = .rgb8 }  // 3-byte RGB, what Pillow and libvips produce
if args[1] == "scaled" {
    // 1/8 of the long side: JPEG decodes at DCT scale 1/8, WebP scales while decoding.
    if let info = try? ImageCoderRegistry.shared.info(of: data) {
        options.thumbnailPixelSize = PixelSize(width: max(1, info.width / 8), height: max(1, info.height / 8))
    }
}
if args[1] == "anim-first" { options.firstFrameOnly = true }
// Animations: every frame at once ("anim-all"), frame 0 only ("anim-first"), every frame through
// the lazy source in turn ("anim-lazy"); encodes of every frame ("enc-gif", "enc-webp": the
// decode is done once, outside the timing, and the output size is reported in place of the width).
let encodeTarget: ImageFormat? = args[1] == "enc-gif" ? .gif : args[1] == "enc-webp" ? .webp : nil
let decodedOnce: Image? = encodeTarget == nil ? nil : try? ImageCoderRegistry.shared.decode(data)
var times: [Double] = []
var size = PixelSize(width: 0, height: 0)
for _ in 0..<iterations {
    let start = ContinuousClock.now
    do {
        if let encodeTarget, let decodedOnce {
            let bytes = try ImageCoderRegistry.shared.encode(decodedOnce, as: encodeTarget, options: EncodeOptions(quality: 0.8))
            size = PixelSize(width: bytes.count, height: decodedOnce.frameCount)
        } else if args[1] == "anim-lazy" {
            let image = try coders.decode(data, options: DecodeOptions(decodesFramesLazily: true))
            for i in 0..<image.frameCount { _ = try image.frame(at: i) }
            size = PixelSize(width: image.pixelSize.width, height: image.frameCount)
        } else {
            let image =
                args[1] == "thumb"
                ? try Thumbnailer.thumbnail(of: ImageInput(data), fitting: PixelSize(width: 256, height: 256), coders: coders)  // 256-px thumbnail
                : try coders.decode(data, options: options)
            size = args[1].hasPrefix("anim") ? PixelSize(width: image.pixelSize.width, height: image.frameCount) : image.pixelSize
        }
    } catch {
        FileHandle.standardError.write(Data("decode failed: \(error)\n".utf8))
        exit(1)
    }
    times.append((ContinuousClock.now - start) / .milliseconds(1))
}
let first = times[0]
times.sort()
// median, best, width, height, first run (cold allocator: nothing freed yet to reuse)
print(String(format: "%.3f %.3f %d %d %.3f", times[times.count / 2], times[0], size.width, size.height, first))
