// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoCLI

@Suite("imago's option checks, as its parser reports them")
struct CLIValidationTests {
    static let convert = ["in.png", "out.png"]

    @Test("convert: each out-of-range option is refused with a message naming it")
    func convertRefuses() {
        let dpi = "--dpi must be more than 0 and at most 10000"
        let cases: [([String], String)] = [
            (["--quality", "101"], "--quality must be between 0 and 100"), (["--quality=-1"], "--quality must be between 0 and 100"),
            (["--frame=-1"], "--frame must be 0 or more"),
            (["--frame", "1", "--first-frame"], "--frame and --first-frame cannot be used together"),
            (["--thumbnail", "0"], "--thumbnail must be at least 1"),
            (["--scale-down-limit", "3"], "--scale-down-limit must be at least 4 bytes"),
            (["--effort", "0"], "--effort must be between 1 and 9"), (["--effort", "10"], "--effort must be between 1 and 9"),
            (["--dpi", "0"], dpi), (["--dpi=-72"], dpi), (["--dpi", "10000.5"], dpi), (["--dpi", "nan"], dpi)
        ]
        for (extra, message) in cases {
            #expect(ParserProbe.failure(ConvertCommand.self, Self.convert + extra) == message, "\(extra)")
        }
    }

    @Test("convert: the bounds themselves are accepted, and the options are read as given")
    func convertAccepts() throws {
        let accepted: [[String]] = [
            ["--quality", "0"], ["--quality", "100"], ["--frame", "0"], ["--first-frame"], ["--thumbnail", "1"],
            ["--scale-down-limit", "4"], ["--effort", "1"], ["--effort", "9"], ["--dpi", "10000"], ["--dpi", "0.5"]
        ]
        for extra in accepted {
            #expect(ParserProbe.failure(ConvertCommand.self, Self.convert + extra) == nil, "\(extra)")
        }
        let parsed = try ConvertCommand.parse(
            Self.convert + ["--dpi", "300", "--effort", "3", "--format", "webp", "--lossless", "--no-orientation"])
        #expect(parsed.input == "in.png" && parsed.output == "out.png" && parsed.dpi == 300 && parsed.effort == 3)
        #expect(parsed.format == "webp" && parsed.lossless && parsed.noOrientation && !parsed.noColorManagement)
        #expect(parsed.quality == 90 && parsed.frame == nil && !parsed.firstFrame && parsed.thumbnail == nil)
    }

    @Test("thumbnail: size, jobs, video second, quality and format are checked; format names are convert's")
    func thumbnailChecks() {
        let base = ["photos", "--output", "thumbs"]
        let cases: [([String], String?)] = [
            (["--size", "0"], "--size must be at least 1"), (["--size", "64", "--jobs", "0"], "--jobs must be at least 1"),
            (["--size", "64", "--video-second=-1"], "--video-second must be 0 or more"),
            (["--size", "64", "--video-second", "inf"], "--video-second must be 0 or more"),
            (["--size", "64", "--quality", "101"], "--quality must be between 0 and 100"),
            (["--size", "64", "--format", "doc"], "unknown --format 'doc'"),
            (["--size", "64", "--format", "JPG", "--video-second", "0"], nil), (["--size", "1", "--jobs", "1", "--quality", "0"], nil)
        ]
        for (extra, message) in cases {
            #expect(ParserProbe.failure(ThumbnailCommand.self, base + extra) == message, "\(extra)")
        }
    }

    @Test("cache trim: a negative --max-size and a --max-age of 0 are refused; defaults: no size limit, a week, 'default'")
    func cacheTrim() throws {
        #expect(ParserProbe.failure(CacheCommand.Trim.self, ["--max-size=-1"]) == "--max-size must be 0 or more")
        #expect(ParserProbe.failure(CacheCommand.Trim.self, ["--max-age", "0"]) == "--max-age must be more than 0")
        let trim = try CacheCommand.Trim.parse([])
        #expect(trim.maxSize == 0 && trim.maxAge == 604_800 && trim.location.namespace == "default")
        let location = try CacheCommand.Location.parse(["--cache-dir", "/srv/cache", "--namespace", "thumbs"])
        #expect(location.directory.path == "/srv/cache" && location.namespace == "thumbs")
        #expect(try CacheCommand.Location.parse([]).directory == DiskCache.defaultDirectory)
    }

    @Test("play and show hand http(s) URLs, in any case, to imago-fetch; paths and other schemes stay")
    func networkSources() {
        for source in ["http://x.test/a.gif", "HTTPS://X.TEST/A.GIF", "Http://x.test"] {
            #expect(isNetworkSource(source), "\(source)")
        }
        for source in ["/tmp/http://a.gif", "a.gif", "ftp://x.test/a.gif", "file:///a.gif", "httpx://a", "data:image/gif;base64,R0lG"] {
            #expect(!isNetworkSource(source), "\(source)")
        }
    }

    @Test("each subcommand name reaches its command; fetch and sign pass everything after them on as it is")
    func routing() throws {
        #expect(try ImagoCommand.parseAsRoot(["info", "a.png", "--json"]) is InfoCommand)
        #expect(try ImagoCommand.parseAsRoot(["convert", "a.png", "b.webp"]) is ConvertCommand)
        #expect(try ImagoCommand.parseAsRoot(["thumbnail", "a.png", "--size", "9", "--output", "o"]) is ThumbnailCommand)
        #expect(try ImagoCommand.parseAsRoot(["cache", "trim"]) is CacheCommand.Trim)
        let passed = ["https://x.test/a.png", "--thumbnail", "16", "--not-an-imago-flag"]
        let fetch = try #require(try ImagoCommand.parseAsRoot(["fetch"] + passed) as? ImagoCLI.FetchCommand)
        #expect(fetch.arguments == passed)
        let signed = ["--key", "ab", "--salt", "cd", "/rs:fit:10:10/plain/x"]
        let sign = try #require(try ImagoCommand.parseAsRoot(["sign"] + signed) as? SignCommand)
        #expect(sign.arguments == signed)
    }

    @Test("a refused option exits with the usage status and names the option, before the input is opened")
    func validationExit() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.png")
        let r = try await CLI.run(["convert", dir.appendingPathComponent("missing.png").path, out.path, "--dpi", "0"])
        #expect(r.status == ExitCode.validationFailure.rawValue && !r.crashed, "\(r.stderr)")
        #expect(r.stderr.contains("--dpi must be more than 0 and at most 10000") && !r.stderr.contains("no such file"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
