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

/// The encode stage: outputs as part of the request, shared encodes, the cheapest way chosen from
/// the header (pass-through, rows, exact pixels), the byte budget, and one fetch, sniff and header
/// read per load.
@Suite("Pipeline: the encode stage")
struct PipelineEncodeTests {
    /// A manager decoding PNG through `decoder` (so decodes are counted), encoding PNG, JPEG and WebP.
    func makeManager(
        loader: MockDataLoader, decoder: InstrumentedDecoder, disk: (any DataCaching)? = nil,
        retention: ImageManager.ResultRetention? = nil
    ) -> ImageManager {
        let registry = ImageCoderRegistry(decoders: [decoder], encoders: [WebPCoder(), JPEGCoder(), PNGCoder()])
        var configuration = ImageManager.Configuration(
            memoryCache: nil, dataCache: disk,
            downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]),
            coders: registry, processingQueue: WorkQueue(label: "encode-test", maxConcurrentCount: 2))
        configuration.resultRetention = retention
        return ImageManager(configuration: configuration)
    }

    func thumbnailRequest(_ url: URL, side: Int = 32, format: ImageFormat, quality: Double = 0.8) -> ImageRequest {
        var request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: PixelSize(width: side, height: side)))
        request.output = ImageRequest.Output(format: format, quality: quality)
        return request
    }

    @Test("identical outputs share one encode; other outputs of the same image share its decode, not its encode")
    func sharing() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 96))
        let decoder = InstrumentedDecoder()
        decoder.hold(width: 96)
        let manager = makeManager(loader: loader, decoder: decoder)
        let url = loader.url("/a.png")
        let results = try await withThrowingTaskGroup(of: EncodedImageResult.self) { group in
            for n in 0..<12 {
                group.addTask { try await manager.loadEncodedImage(with: self.thumbnailRequest(url, format: n < 8 ? .webp : .jpeg)) }
            }
            try await waitUntil { decoder.running == 1 }
            // Every load has joined the one decode (the process stage) before it goes on.
            try await waitUntil {
                manager.pipeline.processes.subscriberCount(manager.pipeline.keys(for: self.thumbnailRequest(url, format: .webp)).process) == 2
            }
            decoder.release(width: 96)
            var out: [EncodedImageResult] = []
            for try await r in group { out.append(r) }
            return out
        }
        #expect(decoder.count == 1, "one decode for every output")
        #expect(manager.encodeCounts.started == 2, "one encode per output")
        #expect(loader.count("/a.png") == 1)
        let webps = results.filter { $0.format == .webp }, jpegs = results.filter { $0.format == .jpeg }
        #expect(webps.count == 8 && jpegs.count == 4)
        let webpBytes = Set(try webps.map { try $0.data() }), jpegBytes = Set(try jpegs.map { try $0.data() })
        #expect(webpBytes.count == 1 && jpegBytes.count == 1)
        #expect(results.allSatisfy { $0.method == .rendered && $0.pixelSize == PixelSize(width: 32, height: 24) })
        let decoded = try ImageCoderRegistry.shared.decode(try webps[0].data())
        #expect(decoded.format == .webp && decoded.pixelSize == PixelSize(width: 32, height: 24))
    }

    @Test("an unprocessed load in the source's format passes the fetched bytes through: no decode, the cache's own file")
    func passThrough() async throws {
        let source = try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.noisy(width: 300, height: 200)), as: .png)
        #expect(source.count > 16 << 10, "large enough to be stored in a file of its own")
        let loader = MockDataLoader()
        loader.register("/p.png", data: source)
        let decoder = InstrumentedDecoder()
        let disk = try DiskCache(directory: TestFiles.temporaryDirectory("imago-encode-pass"))
        let manager = makeManager(loader: loader, decoder: decoder, disk: disk)
        var request = ImageRequest(url: loader.url("/p.png"), options: [.waitStoreCache])
        let first = try await manager.loadEncodedImage(with: request)
        #expect(first.method == .passedThrough && first.source == .network && first.format == .png)
        #expect(try first.data() == source && first.pixelSize == PixelSize(width: 300, height: 200))
        let second = try await manager.loadEncodedImage(with: request)
        guard case .file(let file) = second.contents else {
            Issue.record("a cached source passes through as its file")
            return
        }
        let passed = try second.data()
        #expect(second.source == .disk && file.size == source.count && passed == source)
        #expect(decoder.count == 0, "nothing decoded")
        // Another format, or no pass-through asked: encoded.
        request.output = ImageRequest.Output(format: .png, passesThroughUnchanged: false)
        let again = try await manager.loadEncodedImage(with: request)
        #expect(again.method == .rendered && decoder.count == 1)
        #expect(try ImageCoderRegistry.shared.decode(try again.data()).pixelSize == PixelSize(width: 300, height: 200))
    }

    @Test(
        "a conversion that changes no pixel streams rows, byte for byte what the whole-image path writes",
        arguments: [ImageFormat.jpeg, .webp])
    func streamed(_ format: ImageFormat) async throws {
        let source = try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.noisy(width: 257, height: 131)), as: .png)
        let loader = MockDataLoader()
        loader.register("/s.png", data: source)
        func load(streams: Bool) async throws -> EncodedImageResult {
            var configuration = ImageManager.Configuration(
                memoryCache: nil,
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]))
            configuration.streamsConversions = streams
            var request = ImageRequest(url: loader.url("/s.png"))
            request.output = ImageRequest.Output(format: format, quality: 0.7)
            return try await ImageManager(configuration: configuration).loadEncodedImage(with: request)
        }
        let rows = try await load(streams: true), whole = try await load(streams: false)
        #expect(rows.method == .streamed && whole.method == .rendered)
        #expect(try rows.data() == whole.data())
        #expect(rows.format == format && rows.pixelSize == PixelSize(width: 257, height: 131))
    }

    @Test("work that only moves whole pixels decodes exactly: straight alpha survives a flip untouched")
    func exactPixels() async throws {
        // Low alpha, where premultiplying would round the colour away.
        var buffer = try PixelBuffer(width: 4, height: 2, format: .rgba8)
        buffer.withUnsafeMutableBytes { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                p[i] = 201
                p[i + 1] = 99
                p[i + 2] = UInt8(i)
                p[i + 3] = 5
            }
        }
        let source = try ImageCoderRegistry.shared.encode(Image(buffer: buffer), as: .png)
        let loader = MockDataLoader()
        loader.register("/x.png", data: source)
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                memoryCache: nil,
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
        var request = ImageRequest(url: loader.url("/x.png"), transformers: [ImageTransformers.Flip(horizontal: true, vertical: false)])
        request.output = ImageRequest.Output(format: .png)
        let out = try await manager.loadEncodedImage(with: request)
        let flipped = try ImageCoderRegistry.shared.decode(try out.data(), options: DecodeOptions(pixelFormat: .rgba8)).frames[0].buffer
        #expect(flipped == buffer.applyingOrientation(.upMirrored), "every straight-alpha pixel as it was, mirrored")
        // A resize resamples: premultiplied, as compositing needs.
        request.transformers = [ImageTransformers.Resize(size: PixelSize(width: 2, height: 1))]
        #expect(try await manager.loadEncodedImage(with: request).pixelSize == PixelSize(width: 2, height: 1))
    }

    @Test("max_bytes lowers a lossy output's quality until it fits; a lossless one is left as it is")
    func byteBudget() async throws {
        let loader = MockDataLoader()
        loader.register("/n.png", data: try ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.noisy(width: 400, height: 300, amplitude: 64)), as: .png))
        let manager = makeManager(loader: loader, decoder: InstrumentedDecoder())
        var request = ImageRequest(url: loader.url("/n.png"))
        request.output = ImageRequest.Output(format: .jpeg, quality: 0.95)
        let full = try await manager.loadEncodedImage(with: request)
        request.output.maxBytes = full.byteCount / 4
        let budget = try await manager.loadEncodedImage(with: request)
        #expect(budget.byteCount <= full.byteCount / 4 && budget.byteCount > 0, "\(budget.byteCount) of \(full.byteCount)")
        request.output = ImageRequest.Output(format: .png, maxBytes: 100)
        #expect(try await manager.loadEncodedImage(with: request).byteCount > 100)
        // imgproxy's steps (save_fit_bytes.go): rounded, always one lower, stopping at 10 or less.
        #expect(ImageRequest.Output.nextQuality(after: 77, bytes: 2000, budget: 1000) == 39)
        #expect(ImageRequest.Output.nextQuality(after: 80, bytes: 3100, budget: 1000) == 20)
        #expect(ImageRequest.Output.nextQuality(after: 80, bytes: 1100, budget: 1000) == 60)
        #expect(ImageRequest.Output.nextQuality(after: 12, bytes: 1100, budget: 1000) == 9)
        #expect(ImageRequest.Output.nextQuality(after: 2, bytes: 1100, budget: 1000) == nil)
        #expect(ImageRequest.Output.nextQuality(after: 11, bytes: 1_000_000, budget: 1000) == 3)
        #expect(ImageRequest.Output.nextQuality(after: 90, bytes: 1000, budget: 1000) == nil)
    }

    @Test("a result is kept a short while: a load that straggles in after it finished shares it; unknown formats fail typed")
    func retentionAndErrors() async throws {
        let loader = MockDataLoader()
        loader.register("/r.png", data: pngFixture(width: 40))
        let decoder = InstrumentedDecoder()
        let manager = makeManager(loader: loader, decoder: decoder, retention: .init(costLimit: 1 << 20, ageLimit: .seconds(60)))
        let request = thumbnailRequest(loader.url("/r.png"), side: 10, format: .webp)
        let a = try await manager.loadEncodedImage(with: request)
        let b = try await manager.loadEncodedImage(with: request)
        #expect(try a.data() == b.data() && manager.encodeCounts.started == 1 && decoder.count == 1)
        await #expect(throws: ImageLoadingError.encodingFailed(.encoderUnavailable(.heic))) {
            try await manager.loadEncodedImage(with: self.thumbnailRequest(loader.url("/r.png"), side: 10, format: .heic))
        }
    }

    @Test("loadSource, then loadEncodedImage from it: one fetch, one sniff, one header read, one lookup per stage")
    func oneOfEach() async throws {
        let loader = MockDataLoader()
        loader.register("/o.png", data: pngFixture(width: 80))
        // The real coders: a test double's own header reads would count too.
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                memoryCache: nil,
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
        let probe = PipelineProbe()
        try await PipelineProbe.$current.withValue(probe) {
            let request = thumbnailRequest(loader.url("/o.png"), side: 20, format: .jpeg)
            let source = try await manager.loadSource(with: request)
            #expect(try source.info().pixelSize == PixelSize(width: 80, height: 60))
            let out = try await manager.loadEncodedImage(with: request, source: source)
            #expect(out.pixelSize == PixelSize(width: 20, height: 15))
        }
        #expect(probe.count(ProbeEvent.sniff) == 1, "\(probe.all)")
        #expect(probe.count(ProbeEvent.headerParse) == 1, "\(probe.all)")
        for stage in ["download", "fetch", "decode", "process", "encode"] {
            #expect(probe.count(ProbeEvent.lookup(stage)) == 1, "\(stage): \(probe.all)")
        }
        // Without a source in hand the encode stage fetches it: still one of each.
        let alone = PipelineProbe()
        try await PipelineProbe.$current.withValue(alone) {
            _ = try await manager.loadEncodedImage(with: thumbnailRequest(loader.url("/o.png"), side: 21, format: .jpeg))
        }
        #expect(alone.count(ProbeEvent.sniff) == 1 && alone.count(ProbeEvent.headerParse) == 1, "\(alone.all)")
        for stage in ["fetch", "decode", "process", "encode"] {
            #expect(alone.count(ProbeEvent.lookup(stage)) == 1, "\(stage): \(alone.all)")
        }
    }

    @Test("each load reports its stages' timings: download, queue wait, decode, transform, encode; a memory hit none")
    func timings() async throws {
        let loader = MockDataLoader()
        loader.register("/t.png", data: pngFixture(width: 120))
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader])))
        let request = ImageRequest(url: loader.url("/t.png"), transformers: [ImageTransformers.Flip(horizontal: true, vertical: false)])
        let loaded = try await manager.imageTask(with: request).value
        #expect(loaded.timings.download > .zero && loaded.timings.decode > .zero && loaded.timings.transform > .zero)
        #expect(loaded.timings.encode == .zero && loaded.timings.diskRead == .zero)
        #expect(loaded.timings.stages.map(\.name).starts(with: ["download"]))
        let hit = try await manager.loadImage(with: request)
        #expect(hit.source == .memory && hit.timings == ImageLoadTimings())
        var encode = request
        encode.output = ImageRequest.Output(format: .webp, quality: 0.7)
        let encoded = try await manager.loadEncodedImage(with: encode)
        #expect(encoded.timings.encode > .zero && encoded.timings.serverTimingValue.contains("encode;dur="))
    }
}
