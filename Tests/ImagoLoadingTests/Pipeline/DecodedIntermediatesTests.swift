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

/// Decodes kept for other sizes (`ImageManager.Configuration.decodedImageRetention`): a new size
/// of a hot source costs a resize, not a decode, and looks as a fresh decode's would.
@Suite("Pipeline: decoded intermediates", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct DecodedIntermediatesTests {
    /// A 1800×1200 photo (the corpus's upright landscape), as JPEG.
    static let photo = "exif-orientation/Landscape_1.jpg"

    func makeManager(_ loader: MockDataLoader, retention: ImageManager.DecodedImageRetention?) -> ImageManager {
        var configuration = ImageManager.Configuration(
            memoryCache: nil,
            downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts), loaders: [loader]),
            processingQueue: WorkQueue(label: "intermediates-test", maxConcurrentCount: 2))
        configuration.decodedImageRetention = retention
        return ImageManager(configuration: configuration)
    }

    /// A width of the photo, the way a service asks: the decode shrinks on load to no less than
    /// the hint, the transformer resizes exactly.
    func request(_ url: URL, width: Int, hint: Int) -> ImageRequest {
        var request = ImageRequest(url: url)
        request.decodeSizeHint = PixelSize(width: hint, height: hint * 2 / 3)
        request.frames = .first
        request.transformers = [ImageTransformers.Resize(size: PixelSize(width: width, height: width * 2 / 3))]
        request.output = ImageRequest.Output(format: .png)
        return request
    }

    @Test("sizes a kept decode covers are resized from it; a larger size decodes again and then serves the smaller ones")
    func reuse() async throws {
        let loader = MockDataLoader()
        loader.register("/p.jpg", data: try Corpus.data(Self.photo))
        let url = loader.url("/p.jpg")
        let manager = makeManager(loader, retention: .init(costLimit: 64 << 20))
        // 1/8 scale: 225×150.
        _ = try await manager.loadEncodedImage(with: request(url, width: 200, hint: 225))
        #expect(manager.reusedDecodeCount == 0)
        _ = try await manager.loadEncodedImage(with: request(url, width: 120, hint: 225))
        #expect(manager.reusedDecodeCount == 1, "the same scale: resized, not decoded")
        // 1/4 scale (450×300) is needed: decoded, and kept in place of the 1/8 one.
        _ = try await manager.loadEncodedImage(with: request(url, width: 400, hint: 450))
        #expect(manager.reusedDecodeCount == 1)
        _ = try await manager.loadEncodedImage(with: request(url, width: 160, hint: 225))
        #expect(manager.reusedDecodeCount == 2, "the 1/4 decode serves a 1/8 size")
        // Up to 16 times the pixels asked for (two DCT scales) are resized rather than decoded again.
        _ = try await manager.loadEncodedImage(with: request(url, width: 110, hint: 113))
        #expect(manager.reusedDecodeCount == 3, "450x300 is 15.9 times 113x75")
        // Past that, decoded anew.
        _ = try await manager.loadEncodedImage(with: request(url, width: 100, hint: 112))
        #expect(manager.reusedDecodeCount == 3, "450x300 is 16.3 times 112x74")
        #expect(loader.count("/p.jpg") == 6, "no source cache here: only the decode is kept")
    }

    @Test("a result resized from a kept decode matches a fresh decode's within a rounding step or two")
    func sameLook() async throws {
        let loader = MockDataLoader()
        loader.register("/p.jpg", data: try Corpus.data(Self.photo))
        let url = loader.url("/p.jpg")
        let kept = makeManager(loader, retention: .init(costLimit: 64 << 20))
        _ = try await kept.loadEncodedImage(with: request(url, width: 440, hint: 450))
        let reused = try await kept.loadEncodedImage(with: request(url, width: 210, hint: 225))
        #expect(kept.reusedDecodeCount == 1)
        let fresh = try await makeManager(loader, retention: nil).loadEncodedImage(with: request(url, width: 210, hint: 225))
        let a = try ImageCoderRegistry.shared.decode(try reused.data()).frames[0].buffer
        let b = try ImageCoderRegistry.shared.decode(try fresh.data()).frames[0].buffer
        #expect(a.width == b.width && a.height == b.height)
        let psnr = PixelMetrics.psnr(a, b)
        #expect(psnr > 34, "PSNR \(psnr) dB between the reused and the fresh path")
    }

    @Test("the budget holds: decodes past it are dropped, one source takes at most half, and a purge forgets them")
    func bounded() async throws {
        let loader = MockDataLoader()
        loader.register("/p.jpg", data: try Corpus.data(Self.photo))
        let url = loader.url("/p.jpg")
        // 450×300×4 = 540 KB: over half of 1 MB, so never kept.
        let manager = makeManager(loader, retention: .init(costLimit: 1 << 20))
        _ = try await manager.loadEncodedImage(with: request(url, width: 400, hint: 450))
        _ = try await manager.loadEncodedImage(with: request(url, width: 300, hint: 450))
        #expect(manager.reusedDecodeCount == 0)
        let roomy = makeManager(loader, retention: .init(costLimit: 64 << 20))
        _ = try await roomy.loadEncodedImage(with: request(url, width: 400, hint: 450))
        try await roomy.cache.purge(ImageRequest(url: url))
        _ = try await roomy.loadEncodedImage(with: request(url, width: 300, hint: 450))
        #expect(roomy.reusedDecodeCount == 0, "purged with its source")
    }
}
