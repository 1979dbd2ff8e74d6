import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
@testable import ImagoLoading
import ImagoProcessing
import ImagoTestSupport
import Testing

@Suite("Progressive loading through the one decode step", .serialized)
struct ProgressiveLoadingTests {
    @Test("partial images arrive in order before the result; one caller leaving leaves the load to the other")
    func partialsThenResult() async throws {
        try await withServer { server in
            let manager = ImageManager()
            var partials = 0
            var final: ImageLoadResult?
            for try await event in manager.imageEvents(with: ImageRequest(url: server.url("/gated/p.jpg?parts=3"), options: .progressive)) {
                switch event {
                case .partialImage: #expect(final == nil); partials += 1; server.openGate()
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
            let manager = ImageManager()
            let runs = Counter()
            let request = ImageRequest(url: server.url("/gated/p.jpg?parts=3"), thumbnail: .init(maxPixelSize: PixelSize(width: 64, height: 64)),
                                       transformers: [CountingTransformer(name: "p", runs: runs)], options: .progressive)
            var partials: [Image] = []
            var final: ImageLoadResult?
            for try await event in manager.imageEvents(with: request) {
                switch event {
                case .partialImage(let image): partials.append(image); server.openGate()
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

    @Test("a progressive and a plain load of one URL share the download; only the progressive one sees partial images")
    func mixedCallersShareTheDownload() async throws {
        try await withServer { server in
            let manager = ImageManager()
            let url = server.url("/gated/p.jpg?parts=3")
            let plain = Task { try await manager.loadImage(with: url) }
            var partials = 0
            for try await event in manager.imageEvents(with: ImageRequest(url: url, options: .progressive)) {
                if case .partialImage = event { partials += 1; server.openGate() }
            }
            #expect(try await plain.value.image.pixelSize == PixelSize(width: 640, height: 480))
            #expect(partials >= 2 && server.count("/gated/p.jpg") == 1)
        }
    }
}
