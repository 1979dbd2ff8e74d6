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

@Suite("Loading's value types: requests, heads, progress, the failed-URL list, received bytes")
struct LoadingValueTests {
    @Test("a request's defaults, its URL and its options' cache reads and writes")
    func requestDefaults() {
        let url = URL(string: "https://x.test/a.png")!
        let r = ImageRequest(url: url)
        #expect(r.url == url && r.thumbnail == nil && r.scaleDownLimitBytes == nil && r.transformers.isEmpty)
        #expect(r.frames == .all && r.pixelFormat == .argb32Premultiplied && r.colorManagement && r.scale == nil)
        #expect(r.limits == nil && r.priority == .normal && r.options.isEmpty && r.headers.isEmpty && r.cacheKey == nil)
        #expect(ImageRequest(data: Data([1]), key: "k").url == nil)
        if case .data(let d, let k) = ImageRequest(data: Data([1]), key: "k").source { #expect(d == Data([1]) && k == "k") }
        let plain = ImageRequest.Options()
        #expect(plain.readsMemory && plain.writesMemory && plain.readsDisk && plain.writesDisk)
        #expect(!ImageRequest.Options.refreshCached.readsMemory && ImageRequest.Options.refreshCached.readsDisk)
        #expect(!ImageRequest.Options.fromLoaderOnly.readsMemory && !ImageRequest.Options.fromLoaderOnly.readsDisk)
        #expect(ImageRequest.Options.fromLoaderOnly.writesMemory && ImageRequest.Options.fromLoaderOnly.writesDisk)
        #expect(!ImageRequest.Options.disableDiskCacheWrites.writesDisk && !ImageRequest.Options.disableMemoryCacheWrites.writesMemory)
        #expect(ImageRequest.Thumbnail(maxPixelSize: PixelSize(width: 4, height: 4)).preserveAspectRatio)
    }

    @Test("stage keys: what each stage shares on, and what it does not")
    func stageKeys() {
        let url = URL(string: "https://x.test/a.png")!
        func keys(_ change: (inout ImageRequest) -> Void) -> ImageRequestKeys {
            var r = ImageRequest(url: url)
            change(&r)
            return ImageRequestKeys(request: r, cacheKeyFilter: nil, limits: .default)
        }
        let plain = keys { _ in }
        let thumb = keys { $0.thumbnail = .init(maxPixelSize: PixelSize(width: 9, height: 9)) }
        let transformed = keys { $0.transformers = [ImageTransformers.Flip(horizontal: true, vertical: false)] }
        let urgent = keys { $0.priority = .veryHigh }
        let headed = keys { $0.headers = ["Authorization": "x"] }
        let limited = keys { $0.limits = DecodingLimits(maxPixels: 10) }
        #expect(thumb.fetch == plain.fetch && thumb.decode != plain.decode)
        #expect(transformed.decode == plain.decode && transformed.process != plain.process)
        #expect(urgent.process == plain.process)
        #expect(headed.fetch != plain.fetch && headed.imageKey == plain.imageKey)
        #expect(limited.decode != plain.decode && limited.imageKey == plain.imageKey)
        #expect(keys { $0.options = .progressive }.fetch != plain.fetch)
        #expect(keys { $0.options = .fromCacheOnly }.fetch != plain.fetch)
        #expect(keys { $0.options = .disableMemoryCacheWrites }.process != plain.process)
        #expect(keys { $0.options = .retryFailed }.process == plain.process)
    }

    @Test("request heads: case-insensitive header names, set and replace")
    func requestHeaders() {
        var r = DataLoadRequest(url: URL(string: "https://x.test/")!, headers: ["Accept": "image/*"])
        #expect(r.header("accept") == "image/*" && r.header("ACCEPT") == "image/*" && r.header("x") == nil)
        r.setHeader("ACCEPT", "image/png")
        #expect(r.headers == ["ACCEPT": "image/png"])
        r.setHeader("accept", nil)
        #expect(r.headers.isEmpty)
        #expect(r.timeouts == ImageDownloadTimeouts() && r.maxRedirects == 10 && !r.allowsInvalidCertificates)
        #expect(ImageDownloadTimeouts().total == .seconds(15) && ImageDownloadTimeouts().read == .seconds(15))
    }

    @Test("response heads: lower-cased names, length, media type and validators")
    func responseHeads() {
        let head = DataLoadResponse(
            url: URL(string: "https://x.test/")!, statusCode: 200,
            headers: [
                "Content-Length": " 1234 ", "Content-Type": "Image/PNG; charset=binary", "ETag": "\"v1\"", "Last-Modified": "Tue"
            ])
        #expect(head.headers["content-length"] == " 1234 " && head.expectedContentLength == 1234)
        #expect(head.mimeType == "image/png" && head.etag == "\"v1\"" && head.lastModified == "Tue")
        let bad = DataLoadResponse(url: URL(string: "https://x.test/")!, statusCode: 200, headers: ["content-length": "lots"])
        #expect(bad.expectedContentLength == nil && bad.mimeType == nil && bad.etag == nil)
    }

    @Test("progress: the fraction is clamped, and unknown without a declared length")
    func progress() {
        #expect(ImageDownloadProgress(receivedBytes: 50, expectedBytes: 200).fractionCompleted == 0.25)
        #expect(ImageDownloadProgress(receivedBytes: 300, expectedBytes: 200).fractionCompleted == 1)
        #expect(ImageDownloadProgress(receivedBytes: 5, expectedBytes: nil).fractionCompleted == nil)
        #expect(ImageDownloadProgress(receivedBytes: 5, expectedBytes: 0).fractionCompleted == nil)
    }

    @Test("the progress throttle lets one event through per interval")
    func throttle() async throws {
        let slow = ProgressThrottle(interval: .seconds(600))
        #expect(slow.due() && !slow.due() && !slow.due())
        let quick = ProgressThrottle(interval: .milliseconds(20))
        #expect(quick.due())
        try await Task.sleep(for: .milliseconds(30))
        #expect(quick.due())
        let open = ProgressThrottle(interval: .zero)
        #expect(open.due() && open.due())
    }

    @Test("received bytes grow by pieces; a snapshot is what had arrived, unchanged by later pieces")
    func receivedBytes() {
        let bytes = ReceivedBytes()
        bytes.reserve(10)
        bytes.append(Data([1, 2]))
        let first = bytes.snapshot
        bytes.append(Data([3]))
        #expect(first == Data([1, 2]) && bytes.snapshot == Data([1, 2, 3]) && bytes.count == 3)
    }

    @Test("the failed-URL list: insert, contains, remove, remove all, count")
    func failedList() {
        let list = FailedURLList()
        let a = URL(string: "https://x.test/a")!, b = URL(string: "https://x.test/b")!
        list.insert(a)
        list.insert(a)
        list.insert(b)
        #expect(list.count == 2 && list.contains(a) && list.contains(b))
        list.remove(a)
        #expect(!list.contains(a) && list.count == 1)
        list.removeAll()
        #expect(list.count == 0 && !list.contains(b))
    }

    @Test("the default Accept header lists every format Imago decodes first")
    func acceptHeader() {
        let accept = ImageDownloaderConfiguration.defaultAccept
        for type in ["image/avif", "image/webp", "image/png", "image/jpeg", "image/gif", "image/heic", "image/tiff", "image/bmp"] {
            #expect(accept.contains(type), "\(type)")
        }
        let configuration = ImageDownloaderConfiguration()
        #expect(configuration.headers["Accept"] == accept && configuration.headers["User-Agent"]?.hasPrefix("Imago/") == true)
        #expect(configuration.maxConcurrentDownloads == 6 && configuration.executionOrder == .fifo)
        #expect(configuration.acceptableStatusCodes == Set(200..<300) && configuration.maxRedirects == 10)
        #expect(configuration.maxBodyBytes == DecodingLimits.default.maxBytes && configuration.proxies == .none)
        #expect(ImageDownloaderConfiguration(maxConcurrentDownloads: 0).maxConcurrentDownloads == 1)
    }

    @Test("the manager's configuration defaults")
    func configurationDefaults() {
        let c = ImageManager.Configuration()
        #expect(c.memoryCache != nil && c.dataCache == nil && c.dataCachePolicy == .originalData)
        #expect(c.coders === ImageCoderRegistry.shared && c.processingQueue === WorkQueue.processing)
        #expect(c.dataCacheQueue.maxConcurrentCount == 2 && c.decodingLimits == .default && c.cacheKeyFilter == nil)
        #expect(WorkQueue.processing.maxConcurrentCount == WorkQueue.defaultConcurrency)
    }
}

@Suite("The decode step: final and partial images alike")
struct DecodeStepTests {
    func step(_ change: (inout DecodeSpec) -> Void = { _ in }) -> DecodeStep {
        var spec = DecodeSpec(
            thumbnail: nil, scaleDownLimitBytes: nil, sizeHint: nil, frames: .all, pixelFormat: .argb32Premultiplied,
            colorManagement: true, scale: 1, limits: .default)
        change(&spec)
        return DecodeStep(spec: spec, coders: .shared)
    }

    @Test("a thumbnail, a scale-down and a plain decode; options carry the format, scale, frames and colour")
    func finalImages() throws {
        let png = pngFixture(width: 200)
        #expect(try step().decode(ImageInput(png)).pixelSize == PixelSize(width: 200, height: 150))
        #expect(
            try step { $0.thumbnail = .init(maxPixelSize: PixelSize(width: 20, height: 20)) }.decode(ImageInput(png)).pixelSize
                == PixelSize(width: 20, height: 15))
        #expect(try step { $0.scaleDownLimitBytes = 100 * 75 * 4 }.decode(ImageInput(png)).pixelSize.width <= 100)
        let options = step {
            $0.pixelFormat = .rgba8
            $0.scale = 2
            $0.frames = .lazy
            $0.colorManagement = false
        }.options
        #expect(
            options.pixelFormat == .rgba8 && options.scale == 2 && options.decodesFramesLazily && !options.firstFrameOnly
                && !options.colorManagement)
        #expect(step { $0.frames = .first }.options.firstFrameOnly)
    }

    @Test("bytes that are no image are unsupported; a known format that fails says which")
    func failures() {
        #expect(throws: ImageCodingError.unsupportedFormat(nil)) { try step().decode(ImageInput(Data("hello".utf8))) }
        let truncated = pngFixture(width: 50).prefix(60)
        #expect {
            try step().decode(ImageInput(Data(truncated)))
        } throws: { error in
            guard let e = error as? ImageCodingError else { return false }
            switch e {
            case .truncated(.png, _), .corrupt(.png, _): return true
            default: return false
            }
        }
    }

    @Test("partial images are brought to the final image's size: the thumbnail's box, upright, or the scale-down budget")
    func partials() throws {
        let partial = Image(buffer: try Fixtures.gradient(width: 160, height: 120), orientation: .right)
        let thumb = try step { $0.thumbnail = .init(maxPixelSize: PixelSize(width: 30, height: 30)) }.finishPartial(partial)
        #expect(thumb.pixelSize == PixelSize(width: 23, height: 30) && thumb.orientation == .up)
        let fill = try step { $0.thumbnail = .init(maxPixelSize: PixelSize(width: 30, height: 10), preserveAspectRatio: false) }
            .finishPartial(Image(buffer: try Fixtures.gradient(width: 160, height: 120)))
        #expect(fill.pixelSize == PixelSize(width: 30, height: 10))
        let scaled = try step { $0.scaleDownLimitBytes = 40 * 30 * 4 }.finishPartial(Image(buffer: try Fixtures.gradient(width: 160, height: 120)))
        #expect(scaled.byteCount <= 40 * 30 * 4)
        let same = Image(buffer: try Fixtures.gradient(width: 16, height: 12))
        #expect(try step().finishPartial(same) == same)
        let square = step { $0.thumbnail = .init(maxPixelSize: PixelSize(width: 40, height: 10)) }.progressiveOptions
        #expect(square.thumbnailPixelSize == PixelSize(width: 40, height: 40))
    }
}
