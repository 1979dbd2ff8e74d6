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

@Suite("Sources: bytes in hand, files, data URLs; loading bytes only")
struct SourceTests {
    @Test("a request for bytes in hand decodes them, keyed by its key, and never touches a loader")
    func dataSource() async throws {
        let loader = MockDataLoader()
        let memory = MockImageStore()
        let manager = makePipeline(loader: loader, memory: memory, disk: MockDataCache())
        let bytes = pngFixture(width: 24)
        let request = ImageRequest(data: bytes, key: "blob:24", thumbnail: .init(maxPixelSize: PixelSize(width: 12, height: 12)))
        let result = try await manager.loadImage(with: request)
        #expect(result.image.pixelSize == PixelSize(width: 12, height: 9) && result.url == nil)
        #expect(result.cacheKey == "blob:24 [thumbnail=12x12]" && memory.stores == ["blob:24 [thumbnail=12x12]"])
        #expect(try await manager.loadImage(with: request).source == .memory)
        #expect(loader.totalCount == 0)
        // Bytes that are not an image say so, and block nothing.
        let junk = ImageRequest(data: Data("not an image".utf8), key: "blob:junk")
        #expect(await failure { _ = try await manager.loadImage(with: junk) } == .decodingFailed(.unsupportedFormat(nil)))
        #expect(manager.failedURLs.count == 0)
    }

    @Test("a request for an open file decodes it where it lies, as the same bytes in hand decode, whatever it asks")
    func openFileSource() async throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let coders = ImageCoderRegistry.shared
        let photo = try coders.encode(Image(buffer: Fixtures.gradient(width: 900, height: 600)), as: .jpeg)
        let frames = try (0..<3).map { i in ImageFrame(buffer: try Fixtures.gradient(width: 40, height: 30, alpha: i == 1), duration: 0.1) }
        let animation = try coders.encode(try Image(frames: frames, loopCount: 0), as: .gif)
        let manager = ImageManager(configuration: ImageManager.Configuration(memoryCache: nil, dataCache: nil))
        for (name, bytes) in [("jpeg", photo), ("png", pngFixture(width: 300)), ("gif", animation)] {
            let url = dir.appendingPathComponent(name)
            try bytes.write(to: url)
            let file = try ImageFile(path: url.path)
            let both = { (configure: (inout ImageRequest) -> Void) async throws -> (Image, Image) in
                try await Self.loadBoth(manager, file: file, bytes: bytes, name: name, configure)
            }
            var (a, b) = try await both { _ in }
            #expect(a == b, "\(name) whole")
            (a, b) = try await both { $0.decodeSizeHint = PixelSize(width: 100, height: 100) }
            #expect(a == b && a.pixelSize.width < 900 || name != "jpeg", "\(name) reduced on load")
            (a, b) = try await both { $0.thumbnail = .init(maxPixelSize: PixelSize(width: 64, height: 64)) }
            #expect(a == b, "\(name) thumbnail")
            (a, b) = try await both { $0.scaleDownLimitBytes = 40_000 }
            #expect(a == b, "\(name) scaled down")
            (a, b) = try await both { $0.frames = .lazy }
            let lastA = try a.frame(at: a.frameCount - 1), lastB = try b.frame(at: b.frameCount - 1)
            #expect(a.frameCount == b.frameCount && lastA == lastB, "\(name) lazily")
            let loaded = try await manager.loadData(with: ImageRequest(file: file, key: "file:\(name)"))
            #expect(loaded.data == bytes && loaded.source == .disk)
        }
        #expect(manager.dataKey(for: ImageRequest(file: try ImageFile(path: dir.appendingPathComponent("gif").path), key: "k")) == "k")
    }

    @Test("a request for a decoded image is thumbnailed, processed and encoded without a fetch or a decode, keyed by its key")
    func decodedImageSource() async throws {
        let loader = MockDataLoader()
        let manager = makePipeline(loader: loader, memory: MockImageStore(), disk: MockDataCache())
        let frame = Image(buffer: try Fixtures.gradient(width: 320, height: 180))
        let request = ImageRequest(image: frame, key: "frame:1", thumbnail: .init(maxPixelSize: PixelSize(width: 64, height: 64)))
        let image = try await manager.loadImage(with: request).image
        #expect(image.pixelSize == PixelSize(width: 64, height: 36) && loader.totalCount == 0)
        #expect(manager.dataKey(for: request) == "frame:1")
        // Its header facts come from the pixels; it reads as BMP, and has no bytes of its own.
        let loaded = try await manager.loadSource(with: request)
        let info = try loaded.info()
        #expect(info.format == .bmp && info.width == 320 && info.height == 180 && loaded.byteCount == 0 && loaded.image != nil)
        #expect(await failure { _ = try await manager.loadData(with: request) } == .rejected("the request gives a decoded image, which has no bytes to load"))
        // Encoded as asked: a JPEG of the thumbnail whose pixels are the frame's.
        var encode = request
        encode.output.format = .jpeg
        let encoder = ImageManager(configuration: ImageManager.Configuration(memoryCache: nil, dataCache: nil))
        let encoded = try await encoder.loadEncodedImage(with: encode)
        let decoded = try ImageCoderRegistry.shared.decode(try encoded.data())
        #expect(encoded.format == .jpeg && decoded.pixelSize == PixelSize(width: 64, height: 36))
        let expected = try Resampler.resize(frame.buffer, to: PixelSize(width: 64, height: 36))
        #expect(PixelMetrics.psnr(decoded.buffer.converted(to: expected.format), expected) > 30)
        // Equal keys are equal sources, whatever the pixels; a frame over the limits is refused.
        #expect(ImageRequest.Source.image(Image(buffer: try Fixtures.gradient(width: 2, height: 2)), key: "frame:1") == request.source)
        var tight = ImageRequest(image: frame, key: "frame:big")
        tight.limits = DecodingLimits(maxPixels: 1_000)
        #expect(await failure { _ = try await manager.loadImage(with: tight) } == .decodingFailed(.exceedsLimit(.maxPixels, found: 57_600, limit: 1_000)))
    }

    static func loadBoth(
        _ manager: ImageManager, file: ImageFile, bytes: Data, name: String,
        _ configure: (inout ImageRequest) -> Void
    ) async throws -> (Image, Image) {
        var fromFile = ImageRequest(file: file, key: "file:\(name)")
        var fromData = ImageRequest(data: bytes, key: "data:\(name)")
        configure(&fromFile)
        configure(&fromData)
        return (try await manager.loadImage(with: fromFile).image, try await manager.loadImage(with: fromData).image)
    }

    @Test("file and data URLs load through the manager; a missing file and a malformed data URL give typed errors")
    func fileAndDataURLs() async throws {
        let manager = ImageManager()
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a.png")
        try pngFixture(width: 30).write(to: file)
        #expect(try await manager.loadImage(with: file).image.pixelSize == PixelSize(width: 30, height: 22))
        let dataURL = URL(string: "data:image/png;base64," + pngFixture(width: 10).base64EncodedString())!
        #expect(try await manager.loadImage(with: dataURL).image.pixelSize == PixelSize(width: 10, height: 7))
        let missing = await failure { _ = try await manager.loadImage(with: dir.appendingPathComponent("none.png")) }
        if case .fileUnreadable? = missing {} else { Issue.record("\(String(describing: missing))") }
        #expect(await failure { _ = try await manager.loadImage(with: URL(string: "data:image/png;base64,%zz")!) } == .malformedDataURL)
    }

    @Test("loadData gives the original bytes from the network, then the disk, with progress, and makes no bitmap")
    func bytesOnly() async throws {
        let loader = MockDataLoader()
        let bytes = pngFixture(width: 50)
        loader.register("/a.png", data: bytes, chunks: 5)
        let decoder = InstrumentedDecoder()
        let memory = MockImageStore()
        let manager = makePipeline(loader: loader, decoder: decoder, memory: memory, disk: MockDataCache())
        let seen = Counter()
        let first = try await manager.loadData(
            with: ImageRequest(url: loader.url("/a.png"), options: .waitStoreCache),
            progress: { _ in seen.increment() })
        #expect(first.data == bytes && first.source == .network && first.response?.statusCode == 200 && seen.count >= 1)
        let second = try await manager.loadData(with: ImageRequest(url: loader.url("/a.png")))
        #expect(second.data == bytes && second.source == .disk && second.response == nil)
        #expect(decoder.count == 0 && memory.stores.isEmpty && loader.count("/a.png") == 1)
        // Failures block as for images.
        #expect(await failure { _ = try await manager.loadData(with: ImageRequest(url: loader.url("/none.png"))) } == .unacceptableStatusCode(404))
        #expect(
            await failure { _ = try await manager.loadData(with: ImageRequest(url: loader.url("/none.png"))) }
                == .blockedFailedURL(loader.url("/none.png").absoluteString))
    }

    @Test("the data URL decoder: base64 with and without padding, percent escapes, a default media type, broken escapes")
    func dataURLDecoding() throws {
        #expect(try DataURLLoader.decode("data:image/png;base64,AAEC") == ("image/png", Data([0, 1, 2])))
        #expect(try DataURLLoader.decode("data:;base64,AAE") == ("text/plain", Data([0, 1])))
        #expect(try DataURLLoader.decode("data:,a%20b%2Cc") == ("text/plain", Data("a b,c".utf8)))
        #expect(try DataURLLoader.decode("DATA:text/x;charset=utf-8,%41") == ("text/x", Data("A".utf8)))
        #expect(throws: ImageLoadingError.malformedDataURL) { try DataURLLoader.decode("data:image/png;base64") }
        #expect(throws: ImageLoadingError.malformedDataURL) { try DataURLLoader.decode("data:,%4") }
        #expect(throws: ImageLoadingError.malformedDataURL) { try DataURLLoader.decode("data:;base64,!!!!") }
        #expect(throws: ImageLoadingError.malformedDataURL) { try DataURLLoader.decode("http://x/,a") }
    }
}
