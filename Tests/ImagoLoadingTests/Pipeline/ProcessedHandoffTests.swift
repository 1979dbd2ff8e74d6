// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@testable import ImagoLoading

/// A finished image held for one more encode (`ImageRequest.holdsProcessedImage`): a second
/// format of the same result is encoded from the first one's pixels, not decoded and
/// transformed again, and looks exactly as a fresh render would.
@Suite("Pipeline: finished images handed to the next encode", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct ProcessedHandoffTests {
    func makeManager(_ loader: MockDataLoader) -> ImageManager {
        var configuration = ImageManager.Configuration(
            memoryCache: nil,
            downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]),
            processingQueue: WorkQueue(label: "handoff-test", maxConcurrentCount: 2))
        // Longer than any load takes on a loaded machine: the test is about what is taken, not when.
        configuration.processedHoldTime = .seconds(3600)
        return ImageManager(configuration: configuration)
    }

    /// The corpus's 1800×1200 landscape at 600×400 in `format`.
    func request(_ url: URL, _ format: ImageFormat, holds: Bool = false, width: Int = 600) -> ImageRequest {
        var request = ImageRequest(url: url)
        request.decodeSizeHint = PixelSize(width: width, height: width * 2 / 3)
        request.frames = .first
        request.transformers = [ImageTransformers.Resize(size: PixelSize(width: width, height: width * 2 / 3))]
        request.output = ImageRequest.Output(format: format)
        request.holdsProcessedImage = holds
        return request
    }

    @Test("the next format of the same pixels takes the held image once; other pixels, and loads that ask nothing, do not")
    func handOff() async throws {
        let loader = MockDataLoader()
        loader.register("/p.jpg", data: try Corpus.data("exif-orientation/Landscape_1.jpg"))
        let url = loader.url("/p.jpg")
        let manager = makeManager(loader)
        let source = try await manager.loadSource(with: request(url, .jpeg))
        _ = try await manager.loadEncodedImage(with: request(url, .jpeg), source: source)
        #expect(manager.processedHandoffCounts == (0, 0), "nothing held unless asked")
        _ = try await manager.loadEncodedImage(with: request(url, .jpeg, holds: true), source: source)
        #expect(manager.processedHandoffCounts.held == 1)
        // Other pixels (another width) do not take it.
        _ = try await manager.loadEncodedImage(with: request(url, .png, width: 300), source: source)
        #expect(manager.processedHandoffCounts == (0, 1))
        let handed = try await manager.loadEncodedImage(with: request(url, .png), source: source)
        #expect(manager.processedHandoffCounts == (1, 0), "taken once")
        let fresh = try await makeManager(loader).loadEncodedImage(with: request(url, .png))
        #expect(try handed.data() == fresh.data(), "the same pixels as a render of its own")
        _ = try await manager.loadEncodedImage(with: request(url, .webp), source: source)
        #expect(manager.processedHandoffCounts == (1, 0), "nothing left to take")
        // A caller that decides against the next encode lets the held image go.
        _ = try await manager.loadEncodedImage(with: request(url, .jpeg, holds: true), source: source)
        #expect(manager.processedHandoffCounts == (1, 1))
        manager.dropHeldImage(for: request(url, .webp), source: source)
        #expect(manager.processedHandoffCounts == (1, 0))
    }
}
