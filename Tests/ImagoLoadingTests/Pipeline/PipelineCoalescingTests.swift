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

@Suite("Pipeline: work is shared at every stage")
struct PipelineCoalescingTests {
    @Test("1000 concurrent loads of 20 URLs make exactly 20 origin requests and 20 decodes, and each image is right")
    func thousandLoads() async throws {
        try await withServer { server in
            for i in 0..<20 { server.register("f\(i).png", data: LoadingFixtures.png(seed: i)) }
            let decoder = InstrumentedDecoder()
            let registry = ImageCoderRegistry(decoders: [decoder])
            let manager = ImageManager(
                configuration: ImageManager.Configuration(
                    dataCache: try DiskCache(directory: TestFiles.temporaryDirectory("imago-manager")), coders: registry))
            let sizes = try await withThrowingTaskGroup(of: (Int, PixelSize).self) { group in
                for n in 0..<1000 {
                    group.addTask {
                        let i = n % 20
                        return (i, try await manager.loadImage(with: server.url("/img/f\(i).png")).image.pixelSize)
                    }
                }
                var out: [(Int, PixelSize)] = []
                for try await r in group { out.append(r) }
                return out
            }
            #expect(sizes.count == 1000)
            for (i, size) in sizes { #expect(size == PixelSize(width: 40 + i % 17, height: 30 + i % 13)) }
            #expect(server.totalCount == 20, "\(server.totalCount) origin requests")
            #expect(decoder.count == 20, "\(decoder.count) decodes")
            await manager.finishPendingStores()
        }
    }

    @Test("fetch stage: a full load and a thumbnail of one URL share the download, not the decode")
    func fetchShared() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 64), chunks: 8, delay: .milliseconds(5))
        let decoder = InstrumentedDecoder()
        let manager = makePipeline(loader: loader, decoder: decoder)
        async let full = manager.loadImage(with: loader.url("/a.png"))
        async let thumb = manager.loadImage(with: ImageRequest(url: loader.url("/a.png"), thumbnail: .init(maxPixelSize: PixelSize(width: 16, height: 16))))
        let (f, t) = try await (full, thumb)
        #expect(f.image.pixelSize == PixelSize(width: 64, height: 48) && t.image.pixelSize == PixelSize(width: 16, height: 12))
        #expect(loader.count("/a.png") == 1)
        #expect(decoder.count == 2)
        #expect(f.cacheKey != t.cacheKey)
    }

    @Test("decode stage: two transforms of one decode share it; process stage: identical requests share the transform")
    func decodeAndProcessShared() async throws {
        let loader = MockDataLoader()
        loader.register("/a.png", data: pngFixture(width: 48), chunks: 4, delay: .milliseconds(5))
        let decoder = InstrumentedDecoder()
        let manager = makePipeline(loader: loader, decoder: decoder)
        let runsA = Counter(), runsB = Counter()
        let a = ImageRequest(url: loader.url("/a.png"), transformers: [CountingTransformer(name: "a", runs: runsA)])
        let b = ImageRequest(url: loader.url("/a.png"), transformers: [CountingTransformer(name: "b", runs: runsB)])
        try await withThrowingTaskGroup(of: ImageLoadResult.self) { group in
            for _ in 0..<10 {
                group.addTask { try await manager.loadImage(with: a) }
                group.addTask { try await manager.loadImage(with: b) }
            }
            for try await r in group { #expect(r.image.pixelSize == PixelSize(width: 48, height: 36)) }
        }
        #expect(loader.count("/a.png") == 1)
        #expect(decoder.count == 1, "\(decoder.count) decodes")
        #expect(runsA.count == 1 && runsB.count == 1, "\(runsA.count) and \(runsB.count) transforms")
        #expect(manager.pipeline.processes.count == 0 && manager.pipeline.decodes.count == 0 && manager.pipeline.fetches.count == 0)
    }
}
