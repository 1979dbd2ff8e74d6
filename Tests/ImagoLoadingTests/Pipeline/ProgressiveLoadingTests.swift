// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@testable import ImagoLoading

@Suite("Progressive loading through the one decode step", .serialized)
struct ProgressiveLoadingTests {
    @Test("partial images arrive in order before the result; one caller leaving leaves the load to the other")
    func partialsThenResult() async throws {
        try await withServer { server in
            let manager = patientManager()
            var partials = 0
            var final: ImageLoadResult?
            for try await event in manager.imageEvents(with: ImageRequest(url: server.url("/gated/p.jpg?parts=3"), options: .progressive)) {
                switch event {
                case .partialImage:
                    #expect(final == nil)
                    partials += 1
                    server.openGate()
                case .completed(let r): final = r
                case .progress: break
                }
            }
            #expect(partials >= 2)
            #expect(final?.image == (try ImageCoderRegistry.shared.decode(LoadingFixtures.progressiveJPEG)))

            let url = server.url("/slow/a.png?chunk=64&delay=30")
            let leaving = Task { try await manager.loadImage(with: url) }
            let staying = Task { try await manager.loadImage(with: url) }
            try await Task.sleep(for: .milliseconds(40))
            leaving.cancel()
            #expect(await failure { _ = try await leaving.value } == .cancelled)
            #expect(try await staying.value.data == LoadingFixtures.png)
            #expect(server.count("/slow/a.png") == 1)
        }
    }

    @Test("partial images get the request's processing: the thumbnail's size and the transformers")
    func partialsAreProcessed() async throws {
        try await withServer { server in
            let manager = patientManager()
            let runs = Counter()
            let request = ImageRequest(
                url: server.url("/gated/p.jpg?parts=3"), thumbnail: .init(maxPixelSize: PixelSize(width: 64, height: 64)),
                transformers: [CountingTransformer(name: "p", runs: runs)], options: .progressive)
            var partials: [Image] = []
            var final: ImageLoadResult?
            for try await event in manager.imageEvents(with: request) {
                switch event {
                case .partialImage(let image):
                    partials.append(image)
                    server.openGate()
                case .completed(let r): final = r
                case .progress: break
                }
            }
            let result = try #require(final)
            #expect(result.image.pixelSize == PixelSize(width: 64, height: 48))
            #expect(partials.count >= 2, "\(partials.count) partial images")
            #expect(partials.allSatisfy { $0.pixelSize == result.image.pixelSize }, "\(partials.map(\.pixelSize))")
            // Every partial went through the transformer, and so did the final image.
            #expect(runs.count == partials.count + 1, "\(runs.count) transforms for \(partials.count) partials")
        }
    }

    @Test(
        "a progressive JPEG XL shows partial images as its bytes trickle in, then the whole image",
        .enabled(if: JXLCoder().canEncode(.jxl), "libjxl is not installed: run scripts/bootstrap"))
    func progressiveJPEGXL() async throws {
        var bytes = [UInt8](repeating: 255, count: 1024 * 768 * 4)
        for y in 0..<768 {
            for x in 0..<1024 {
                let o = (y * 1024 + x) * 4
                bytes[o] = UInt8(x / 4)
                bytes[o + 1] = UInt8(max(0, min(255, 128 + 100 * sin(Double(x) / 7) * cos(Double(y) / 11))))
                bytes[o + 2] = UInt8(y / 3)
            }
        }
        var options = EncodeOptions(quality: 0.9)
        options.progressive = true
        let jxl = try ImageCoderRegistry.shared.encode(
            Image(buffer: try PixelBuffer(width: 1024, height: 768, format: .rgba8, bytes: bytes)),
            as: .jxl, options: options)
        try await withServer { server in
            server.register("p.jxl", data: jxl, contentType: "image/jxl")
            let manager = patientManager()
            var partials: [Image] = []
            var final: ImageLoadResult?
            // The body comes in 8 pieces, each sent once a partial image of the ones before has
            // arrived, or after 0.4 s without one (a piece may not add a pass): paced by what the
            // loader has shown, so a busy machine cannot outrun its partial decodes.
            let opened = Counter()
            let pacer = Task {
                var last = -1
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(400))
                    if opened.count == last {
                        opened.increment()
                        server.openGate()
                    }
                    last = opened.count
                }
            }
            defer { pacer.cancel() }
            let url = server.url("/gated/p.jxl?parts=8")
            for try await event in manager.imageEvents(with: ImageRequest(url: url, options: .progressive)) {
                switch event {
                case .partialImage(let image):
                    #expect(final == nil)
                    partials.append(image)
                    opened.increment()
                    server.openGate()
                case .completed(let r): final = r
                case .progress: break
                }
            }
            #expect(!partials.isEmpty, "no partial image while the JPEG XL arrived")
            #expect(partials.allSatisfy { $0.pixelSize == PixelSize(width: 1024, height: 768) })
            #expect(final?.image == (try ImageCoderRegistry.shared.decode(jxl)))
        }
    }

    @Test("a progressive and a plain load of one URL share the download; only the progressive one sees partial images")
    func mixedCallersShareTheDownload() async throws {
        try await withServer { server in
            let manager = patientManager()
            let url = server.url("/gated/p.jpg?parts=3")
            let plain = Task { try await manager.loadImage(with: url) }
            var partials = 0
            for try await event in manager.imageEvents(with: ImageRequest(url: url, options: .progressive)) {
                if case .partialImage = event {
                    partials += 1
                    server.openGate()
                }
            }
            #expect(try await plain.value.image.pixelSize == PixelSize(width: 640, height: 480))
            #expect(partials >= 2 && server.count("/gated/p.jpg") == 1)
        }
    }
}
