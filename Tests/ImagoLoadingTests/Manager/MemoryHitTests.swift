// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoLoading

@Suite("ImageManager memory hits")
struct MemoryHitTests {
    @Test("a memory hit runs on the caller's executor: no hop off the main actor and back, no stage started")
    @MainActor
    func memoryHitStaysOnCaller() async throws {
        let store = MockImageStore()
        let loader = MockDataLoader()
        let manager = makePipeline(loader: loader, memory: store)
        let url = loader.url("/never-fetched.png")
        let image = Image(buffer: try Fixtures.gradient(width: 8, height: 8))
        store.setImage(image, forKey: manager.imageKey(for: ImageRequest(url: url)))
        let thread = MockImageStore.currentThread
        let result = try await manager.loadImage(with: url)
        #expect(result.source == .memory && result.image == image)
        #expect(store.lookupThreads == [thread])
        #expect(loader.totalCount == 0 && manager.pipeline.processes.count == 0)
    }

    @Test("queryMemoryData reads the original bytes from disk for a memory hit")
    func queryMemoryData() async throws {
        let loader = MockDataLoader()
        let bytes = pngFixture(width: 12)
        loader.register("/a.png", data: bytes)
        let manager = makePipeline(loader: loader, disk: MockDataCache())
        _ = try await manager.loadImage(with: ImageRequest(url: loader.url("/a.png"), options: .waitStoreCache))
        let hit = try await manager.loadImage(with: ImageRequest(url: loader.url("/a.png"), options: .queryMemoryData))
        #expect(hit.source == .memory && hit.data == bytes)
        let plain = try await manager.loadImage(with: loader.url("/a.png"))
        #expect(plain.source == .memory && plain.data == nil)
    }
}
