// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoFetchCLI

@Suite("imago-fetch's save plan: a file or a folder, names from URLs, numbered duplicates")
struct SavePlanTests {
    static func plan(_ output: String?, format: ImageFormat? = nil, processed: Bool = false) -> SavePlan {
        SavePlan(output: output, format: format, quality: 85, processed: processed)
    }

    static func png(width: Int = 20, height: Int = 10) throws -> Data {
        try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: width, height: height)), as: .png)
    }

    @Test("an output with an image extension is a file unless a folder has that name; the format is --format, else that extension")
    func fileOrFolder() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let album = dir.appendingPathComponent("album.png").path
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: false)
        let file = dir.appendingPathComponent("photo.webp").path
        #expect(Self.plan(file).isFile && Self.plan(file).wanted == .webp && Self.plan(file).needsPixels)
        #expect(Self.plan(file, format: .jpeg).wanted == .jpeg)
        #expect(!Self.plan(album).isFile && Self.plan(album).wanted == nil && !Self.plan(album).needsPixels)
        #expect(Self.plan(album, format: .gif).wanted == .gif && Self.plan(album, format: .gif).needsPixels)
        for folder in [dir.appendingPathComponent("out").path, dir.appendingPathComponent("notes.txt").path] {
            #expect(!Self.plan(folder).isFile && Self.plan(folder).wanted == nil && !Self.plan(folder).needsPixels, "\(folder)")
        }
        // No output: nothing is saved, so only processing needs pixels.
        #expect(!Self.plan(nil).isFile && Self.plan(nil).wanted == nil && !Self.plan(nil).needsPixels)
        #expect(Self.plan(nil, format: .png).wanted == .png && !Self.plan(nil, format: .png).needsPixels)
        #expect(Self.plan(nil, processed: true).needsPixels)
    }

    @Test("original bytes keep the URL's file name, encoded ones take the format's extension, nameless ones their place")
    func names() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plan = Self.plan(dir.path), written = WrittenFiles()
        func name(_ text: String, index: Int = 0, _ format: ImageFormat, original: Bool) throws -> String {
            let url = try #require(URL(string: text))
            let target = plan.destination(for: url, index: index, format: format, original: original, written: written)
            #expect(target.deletingLastPathComponent().path == dir.path, "\(text)")
            return target.lastPathComponent
        }
        #expect(try name("https://x.test/img/photo.jpeg", .jpeg, original: true) == "photo.jpeg")
        #expect(try name("https://x.test/img/anim.png", .apng, original: true) == "anim.png")
        #expect(try name("https://x.test/img/raw", .webp, original: true) == "raw.webp")
        #expect(try name("https://x.test/img/photo.jpeg", .webp, original: false) == "photo.webp")
        // Another URL with the same file name: numbered.
        #expect(try name("https://x.test/img/photo.jpeg?w=100", .jpeg, original: true) == "photo-2.jpeg")
        #expect(try name("https://x.test/", index: 1, .jpeg, original: false) == "image-2.jpg")
        let data = "data:image/png;base64,iVBORw0KGgo="
        #expect(try name(data, index: 3, .png, original: true) == "image-4.png")
        #expect(try name(data, index: 3, .webp, original: false) == "image-4.webp")

        let single = dir.appendingPathComponent("one.webp").path
        let url = try #require(URL(string: "https://x.test/img/photo.jpeg"))
        let target = Self.plan(single).destination(for: url, index: 5, format: .png, original: true, written: WrittenFiles())
        #expect(target.path == single)
    }

    @Test("different URLs with one name get -2, -3 in turn; the same URL keeps its name; folders are apart")
    func duplicates() {
        let written = WrittenFiles()
        let out = URL(fileURLWithPath: "/imago-out"), other = URL(fileURLWithPath: "/imago-other")
        #expect(written.claim("pic.png", in: out, for: "https://a.test/pic.png").path == "/imago-out/pic.png")
        #expect(written.claim("pic.png", in: out, for: "https://b.test/pic.png").path == "/imago-out/pic-2.png")
        #expect(written.claim("pic.png", in: out, for: "https://a.test/pic.png").path == "/imago-out/pic.png")
        #expect(written.claim("pic.png", in: out, for: "https://c.test/pic.png").path == "/imago-out/pic-3.png")
        #expect(written.claim("image-1", in: out, for: "data:1").path == "/imago-out/image-1")
        #expect(written.claim("image-1", in: out, for: "data:2").path == "/imago-out/image-1-2")
        #expect(written.claim("pic.png", in: other, for: "https://b.test/pic.png").path == "/imago-other/pic.png")
    }

    @Test("save: the bytes as they came into a folder; a file of another format only from a decoded image; nothing without an output")
    func save() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = try Self.png()
        let url = try #require(URL(string: "https://x.test/img/a.png"))
        #expect(try Self.plan(nil).save(image: nil, data: png, url: url, index: 0, written: WrittenFiles()) == nil)

        let folder = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let kept = try Self.plan(folder.path).save(image: nil, data: png, url: url, index: 0, written: WrittenFiles())
        #expect(kept == folder.appendingPathComponent("a.png").path)
        #expect(try Data(contentsOf: folder.appendingPathComponent("a.png")) == png)

        let webp = dir.appendingPathComponent("a.webp").path
        #expect(throws: ImageLoadingError.self) {
            try Self.plan(webp).save(image: nil, data: png, url: url, index: 0, written: WrittenFiles())
        }
        let image = try ImageCoderRegistry.shared.decode(png)
        #expect(try Self.plan(webp).save(image: image, data: png, url: url, index: 0, written: WrittenFiles()) == webp)
        let back = try ImageCoderRegistry.shared.decode(try Data(contentsOf: URL(fileURLWithPath: webp)))
        #expect(back.format == .webp && back.pixelSize == PixelSize(width: 20, height: 10))

        // Processed: the image given is encoded (opaque, no format of its own: JPEG), named after the URL.
        let small = Image(buffer: try Fixtures.gradient(width: 5, height: 4), hasAlpha: false)
        let processed = try Self.plan(folder.path, processed: true).save(image: small, data: png, url: url, index: 0, written: WrittenFiles())
        #expect(processed == folder.appendingPathComponent("a.jpg").path)
        let info = try ImageCoderRegistry.shared.info(of: Data(contentsOf: folder.appendingPathComponent("a.jpg")))
        #expect(info.format == .jpeg && info.pixelSize == PixelSize(width: 5, height: 4))
    }

    @Test("an APNG stays byte for byte when a .png file is asked for")
    func apngKept() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = [
            ImageFrame(buffer: try Fixtures.gradient(width: 8, height: 8), duration: 0.1),
            ImageFrame(buffer: try Fixtures.coordinates(width: 8, height: 8), duration: 0.2)
        ]
        let apng = try ImageCoderRegistry.shared.encode(try Image(frames: frames, loopCount: 0), as: .apng)
        try #require(ImageFormat(sniffing: apng) == .apng)
        let out = dir.appendingPathComponent("anim.png").path
        let url = try #require(URL(string: "https://x.test/anim.png"))
        #expect(try Self.plan(out).save(image: nil, data: apng, url: url, index: 0, written: WrittenFiles()) == out)
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == apng)
    }
}

@Suite("imago-fetch's options, progress and summary helpers")
struct FetchCommandUnitTests {
    @Test("fetch: ranges, exclusive flags, proxies and a file output for several URLs are refused with the reason")
    func refuses() throws {
        let url = "https://x.test/a.png", other = "https://x.test/b.png"
        let cases: [([String], String)] = [
            ([url, "--concurrency", "0"], "--concurrency must be at least 1"), ([url, "--timeout", "0"], "--timeout must be positive"),
            ([url, "--quality", "101"], "--quality must be between 0 and 100"), ([url, "--thumbnail", "0"], "--thumbnail must be at least 1"),
            ([url, "--format", "doc"], "unknown --format 'doc'"), ([url, "--refresh", "--offline"], "--refresh and --offline exclude each other"),
            ([url, "--proxy", "127.0.0.1:3128", "--no-proxy"], "--proxy and --no-proxy exclude each other"),
            ([url, other, "--output", "/imago-none/one.png"], "--output names a file, but several URLs were given: name a folder")
        ]
        for (arguments, message) in cases {
            #expect(ParserProbe.failure(ImagoFetchCLI.FetchCommand.self, arguments) == message, "\(arguments)")
        }
        let proxy = ParserProbe.failure(ImagoFetchCLI.FetchCommand.self, [url, "--proxy", "https://proxy.test:443"])
        #expect(proxy?.hasPrefix("--proxy 'https://proxy.test:443' is not a usable proxy") == true, "\(proxy ?? "accepted")")

        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let album = dir.appendingPathComponent("album.png").path
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: false)
        for arguments in [[url, url, "--output", "/imago-none/one.png"], [url, other, "--output", "/imago-none/folder"], [url, other, "--output", album]] {
            #expect(ParserProbe.failure(ImagoFetchCLI.FetchCommand.self, arguments) == nil, "\(arguments)")
        }
    }

    @Test("fetch: --no-proxy connects directly; --proxy serves http and https URLs alike")
    func proxies() throws {
        let url = "https://x.test/a.png"
        #expect(try ImagoFetchCLI.FetchCommand.parse([url, "--no-proxy"]).proxySettings() == ProxySettings.none)
        let socks = try ImagoFetchCLI.FetchCommand.parse([url, "--proxy", "socks5://10.0.0.1"]).proxySettings()
        let expected = HTTPProxy(kind: .socks5, host: "10.0.0.1", port: 1080)
        #expect(socks.http == expected && socks.https == expected)
    }

    @Test("the progress tally sums every URL's bytes; an unknown length counts as what has arrived")
    func tally() {
        let tally = ProgressTally()
        let first = tally.update(0, ImageDownloadProgress(receivedBytes: 100, expectedBytes: 1000))
        #expect(first.0 == 100 && first.1 == 1000)
        let second = tally.update(1, ImageDownloadProgress(receivedBytes: 50, expectedBytes: nil))
        #expect(second.0 == 150 && second.1 == 1050)
        let third = tally.update(0, ImageDownloadProgress(receivedBytes: 1000, expectedBytes: 1000))
        #expect(third.0 == 1050 && third.1 == 1050)
    }

    @Test("summary columns are padded to a width, never cut")
    func padding() {
        #expect("disk".padding(7) == "disk   ")
        #expect("network".padding(7) == "network" && "network".padding(3) == "network" && "".padding(2) == "  ")
    }

    @Test("play and show of something that is not a URL are refused before anything is opened")
    func notAURL() async throws {
        do {
            _ = try await loadForTerminal("relative/path.gif", firstFrameOnly: true)
            Issue.record("a text without a scheme was loaded")
        } catch let error as ValidationError {
            #expect(error.message == "'relative/path.gif' is not a URL")
        }
    }
}
