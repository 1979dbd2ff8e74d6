// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoTestSupport
import Testing

/// `ImageManager.Configuration.decoderIsolation`: the library's way to the service's sandboxed
/// decoder workers, off by default. The workers are `ImagoDecoderWorkerProbe`, whose PNG decoder
/// faults on data marked `imago-fault:KIND`.
@Suite struct ManagerIsolationTests {
    static let probe = TestFiles.builtProduct("ImagoDecoderWorkerProbe")

    @Test("off by default: a manager decodes in its own process")
    func offByDefault() {
        #expect(ImageManager.Configuration().decoderIsolation == nil)
        #expect(ImageManager().configuration.coders.isolationStatistics == nil)
    }

    @Test("on: its formats decode in a worker, as in process; a crash there costs that load alone, and its data is quarantined")
    func isolatedManager() async throws {
        var configuration = ImageManager.Configuration()
        configuration.decoderIsolation = DecoderIsolation(
            formats: [.png], workers: 1, executable: Self.probe.path, timeout: .seconds(20), quarantine: .seconds(600), memoryLimit: 2 << 30)
        let manager = ImageManager(configuration: configuration)
        let png = try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.noisy(width: 40, height: 30, seed: 7)), as: .png)
        let loaded = try await manager.loadImage(with: ImageRequest(data: png, key: "isolated-ok"))
        #expect(loaded.image.buffer.bytes == (try ImageCoderRegistry.shared.decode(png)).buffer.bytes)
        let bad = png + Data("imago-fault:segv".utf8)
        for key in ["isolated-bad", "isolated-bad-again"] {
            await #expect(throws: ImageLoadingError.self) { try await manager.loadImage(with: ImageRequest(data: bad, key: key)) }
        }
        let statistics = try #require(manager.configuration.coders.isolationStatistics)
        #expect(statistics.crashes == 1 && statistics.quarantineHits == 1, "\(statistics)")
        // The worker that crashed was replaced: the next decode is a worker's again.
        let after = try await manager.loadImage(with: ImageRequest(data: png, key: "isolated-after"))
        #expect(after.image.buffer.size == loaded.image.buffer.size)
        #expect((manager.configuration.coders.isolationStatistics?.liveWorkers ?? 0) == 1)
    }
}
