// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoLoading

/// A PNG decoder that records how many decodes run at once, in which order they start (by the
/// decoded width), and can be held so work piles up behind it.
final class InstrumentedDecoder: ImageDecoding {
    private struct State {
        var running = 0
        var peak = 0
        var started: [Int] = []
        var held: Set<Int> = []
    }

    private let base = PNGCoder()
    private let state = Mutex(State())
    /// How long each decode takes at least, so decodes overlap when they can.
    let minimumDuration: Duration

    init(minimumDuration: Duration = .zero) {
        self.minimumDuration = minimumDuration
    }

    /// Most decodes seen running at once.
    var peak: Int { state.withLock { $0.peak } }
    /// Widths of the images decoded, in the order their decodes started.
    var started: [Int] { state.withLock { $0.started } }
    /// Decodes started.
    var count: Int { state.withLock { $0.started.count } }
    /// Decodes of images `width` wide wait until ``release(width:)``.
    func hold(width: Int) { _ = state.withLock { $0.held.insert(width) } }
    func release(width: Int) { _ = state.withLock { $0.held.remove(width) } }
    /// Decodes running now.
    var running: Int { state.withLock { $0.running } }

    func canDecode(_ format: ImageFormat) -> Bool { format == .png }
    func info(of data: Data) throws -> ImageInfo { try base.info(of: data) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let width = (try? base.info(of: data).pixelSize.width) ?? 0
        state.withLock { s in
            s.running += 1
            s.peak = max(s.peak, s.running)
            s.started.append(width)
        }
        defer { state.withLock { $0.running -= 1 } }
        let start = ContinuousClock.now
        while state.withLock({ $0.held.contains(width) }) || ContinuousClock.now - start < minimumDuration {
            Thread.sleep(forTimeInterval: 0.002)
        }
        return try base.decode(data, options: options)
    }
}

/// A transformer that counts its runs and leaves the pixels alone (or fails, if asked).
struct CountingTransformer: ImageTransforming {
    let name: String
    let runs: Counter
    var fails = false

    var key: String { "Counting(\(name))" }

    func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
        runs.increment()
        if fails { throw ImageCodingError.invalidArgument("told to fail") }
        return buffer
    }
}

/// A thread-safe count.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

/// A manager over a ``MockDataLoader``, the given decoder (PNG only), caches and queue.
func makePipeline(
    loader: MockDataLoader, decoder: InstrumentedDecoder = InstrumentedDecoder(), workers: Int = 2,
    memory: (any ImageCaching)? = MemoryCache<String, Image>(), disk: (any DataCaching)? = nil,
    policy: ImageManager.DataCachePolicy = .originalData, downloads: Int = 6
) -> ImageManager {
    let registry = ImageCoderRegistry(decoders: [decoder], encoders: [PNGCoder()])
    return ImageManager(
        configuration: ImageManager.Configuration(
            memoryCache: memory, dataCache: disk, dataCachePolicy: policy,
            serializer: DefaultImageSerializer(coders: registry),
            downloader: ImageDownloader(
                configuration: ImageDownloaderConfiguration(maxConcurrentDownloads: downloads, timeouts: patientTimeouts),
                loaders: [loader]),
            coders: registry, processingQueue: WorkQueue(label: "test", maxConcurrentCount: workers)))
}

/// Timeouts no stall of a busy test machine reaches: the mock loader never hangs by itself,
/// and tests that hold a transfer decide when it goes on.
let patientTimeouts = ImageDownloadTimeouts(connect: .seconds(600), read: .seconds(600), total: nil)

/// A manager as `ImageManager()` makes one, but with ``patientTimeouts``: for tests of loads
/// over loopback that are not about timeouts, which a starved 2-core CI machine must not trip.
func patientManager(memoryCache: (any ImageCaching)? = MemoryCache<String, Image>()) -> ImageManager {
    ImageManager(
        configuration: ImageManager.Configuration(
            memoryCache: memoryCache,
            downloader: ImageDownloader(configuration: ImageDownloaderConfiguration(timeouts: patientTimeouts))))
}

/// A PNG `width` wide (and 3/4 as tall): widths tell images apart in the decoder's records.
func pngFixture(width: Int) -> Data {
    (try? ImageCoderRegistry.shared.encode(Image(buffer: Fixtures.gradient(width: width, height: width * 3 / 4)), as: .png)) ?? Data()
}

/// Waits (polling) until `condition` holds, for at most `limit` of polling (``poll(_:every:sourceLocation:_:)``).
func waitUntil(_ limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) async throws {
    try await poll(limit, sourceLocation: sourceLocation, condition)
}
