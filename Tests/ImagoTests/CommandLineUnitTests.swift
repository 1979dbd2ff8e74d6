// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import Foundation
import Imago
import ImagoCommandLine
import ImagoTestSupport
import Synchronization
import Testing

/// What an `ArgumentParser` type's parser says about some arguments, in process.
enum ParserProbe {
    /// `nil` when `arguments` are accepted, else the parser's one-line message (for a
    /// `validate()` error, its text as thrown).
    static func failure<C: ParsableArguments>(_ type: C.Type, _ arguments: [String]) -> String? {
        do {
            _ = try type.parse(arguments)
            return nil
        } catch {
            return type.message(for: error)
        }
    }
}

@Suite("ImagoCommandLine: Console's sizes and decimals, its file tests, format names")
struct ConsoleUnitTests {
    @Test("byteCount: bytes under 1000, one decimal under 10 of a unit, whole units above, decimal units up to PB")
    func byteCount() {
        let cases: [(Int, String)] = [
            (0, "0 bytes"), (12, "12 bytes"), (999, "999 bytes"), (1000, "1.0 KB"), (1500, "1.5 KB"), (12_345, "12 KB"),
            (820_000, "820 KB"), (1_500_000, "1.5 MB"), (2_000_000_000, "2.0 GB"), (3_000_000_000_000, "3.0 TB"),
            (Int.max, "9223 PB")
        ]
        for (bytes, text) in cases {
            #expect(Console.byteCount(bytes) == text, "\(bytes)")
        }
    }

    @Test("decimal: a fixed number of places, no locale, zeros kept, negatives signed, a rounded -0 printed as 0")
    func decimal() {
        #expect(Console.decimal(0.1, places: 3) == "0.100")
        #expect(Console.decimal(0.05, places: 3) == "0.050")
        #expect(Console.decimal(1.25, places: 2) == "1.25")
        #expect(Console.decimal(12, places: 1) == "12.0")
        #expect(Console.decimal(1234.5678, places: 2) == "1234.57")
        #expect(Console.decimal(-1.5, places: 1) == "-1.5")
        #expect(Console.decimal(-0.04, places: 1) == "0.0")
        #expect(Console.decimal(2.5, places: 0) == "3")
    }

    @Test("isRegularFile, isDirectory and fileSize follow symbolic links; a missing path is neither and has size 0")
    func fileTests() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a.bin"), link = dir.appendingPathComponent("link")
        try Data(repeating: 7, count: 1234).write(to: file)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        let missing = dir.appendingPathComponent("missing").path
        #expect(Console.isRegularFile(file.path) && !Console.isDirectory(file.path) && Console.fileSize(file.path) == 1234)
        #expect(Console.isRegularFile(link.path) && Console.fileSize(link.path) == 1234)
        #expect(Console.isDirectory(dir.path) && !Console.isRegularFile(dir.path))
        #expect(!Console.isRegularFile(missing) && !Console.isDirectory(missing) && Console.fileSize(missing) == 0)
    }

    @Test("format names: short names and extensions in any case, with or without a dot; anything else is nil")
    func formatNames() {
        let known: [(String, ImageFormat)] = [
            ("jpeg", .jpeg), ("JPEG", .jpeg), ("jpg", .jpeg), ("JPG", .jpeg), ("jfif", .jpeg), ("png", .png), ("apng", .apng),
            ("tif", .tiff), ("webp", .webp), ("jxl", .jxl), ("heics", .heic), ("svgz", .svg), (".gif", .gif)
        ]
        for (name, format) in known {
            #expect(ImageFormat(cliName: name) == format, "\(name)")
        }
        for name in ["", "txt", "image/png", "jpeg2000", "web p"] {
            #expect(ImageFormat(cliName: name) == nil, "\(name)")
        }
    }
}

@Suite("ImagoCommandLine: CLIFailure's few words for each error, reading and writing files")
struct CLIFailureUnitTests {
    struct Odd: Error, CustomStringConvertible {
        var description: String { "an odd thing happened" }
    }

    @Test("file errors become their cause; Imago's errors keep their own description; any other is described")
    func describe() {
        let cases: [(any Error, String)] = [
            (CocoaError(.fileReadNoSuchFile), "no such file"), (CocoaError(.fileNoSuchFile), "no such file"),
            (CocoaError(.fileReadNoPermission), "permission denied"), (CocoaError(.fileWriteNoPermission), "permission denied"),
            (CocoaError(.fileWriteOutOfSpace), "no space left on the device"),
            (CocoaError(.fileReadCorruptFile), "file error \(CocoaError.Code.fileReadCorruptFile.rawValue)"),
            (ImageCodingError.invalidArgument("--x"), "invalid argument: --x"),
            (DiskCacheError.database("locked"), "disk cache manifest error: locked"),
            (Odd(), "an odd thing happened")
        ]
        for (error, text) in cases {
            #expect(CLIFailure.describe(error) == text, "\(error)")
        }
    }

    @Test("read gives a file's bytes and 'no such file' for a missing one; an ExitCode passes through exit as it is")
    func readAndExit() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("bytes")
        try Data([1, 2, 3]).write(to: file)
        #expect(try CLIFailure.read(file.path) == Data([1, 2, 3]))
        do {
            _ = try CLIFailure.read(dir.appendingPathComponent("none").path)
            Issue.record("a missing file was read")
        } catch {
            #expect(CLIFailure.describe(error) == "no such file")
        }
        #expect(CLIFailure.exit(ExitCode(3), file: "x") == ExitCode(3))
        #expect(CLIFailure.exit(ExitCode.validationFailure, file: "x") == ExitCode.validationFailure)
    }

    @Test("an empty output is written as an empty file; a file in the way of a folder is 'cannot write PATH: reason'")
    func outputFile() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.png")
        try OutputFile.write(Data(), to: empty)
        #expect(Console.isRegularFile(empty.path) && Console.fileSize(empty.path) == 0)
        let under = empty.appendingPathComponent("child.png")
        do {
            try OutputFile.write(Data("x".utf8), to: under)
            Issue.record("a file was written below a file")
        } catch {
            #expect(CLIFailure.describe(error).hasPrefix("cannot write \(under.path): "), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["empty.png"])
    }
}

@Suite("ImagoCommandLine: --resize and --mode")
struct ResizeArgumentsUnitTests {
    static func transformer(_ arguments: [String]) throws -> (any ImageTransforming)? {
        try ResizeArguments.parse(arguments).transformer()
    }

    @Test("WxH in either case, spaces allowed; fill, fit and cover are content modes, smart is SmartFill; none without --resize")
    func parses() throws {
        #expect(try Self.transformer([]) == nil)
        #expect(try Self.transformer(["--mode", "fit"]) == nil)
        let fill = try #require(try Self.transformer(["--resize", "64X32"]) as? ImageTransformers.Resize)
        #expect(fill.size == PixelSize(width: 64, height: 32) && fill.mode == .fill)
        let fit = try #require(try Self.transformer(["--resize", " 64 x 32 ", "--mode", "fit"]) as? ImageTransformers.Resize)
        #expect(fit.size == PixelSize(width: 64, height: 32) && fit.mode == .aspectFit)
        let cover = try #require(try Self.transformer(["--resize", "10x20", "--mode", "cover"]) as? ImageTransformers.Resize)
        #expect(cover.size == PixelSize(width: 10, height: 20) && cover.mode == .aspectFill)
        let smart = try #require(try Self.transformer(["--resize", "300x100", "--mode", "smart"]) as? ImageTransformers.SmartFill)
        #expect(smart.size == PixelSize(width: 300, height: 100))
    }

    @Test("a size that is not two positive integers, or an unknown mode, is an invalid argument quoting it")
    func refuses() {
        for size in ["0x10", "10x0", "-5x5", "10", "10x10x10", "axb"] {
            #expect(throws: ImageCodingError.invalidArgument("--resize '\(size)' is not WxH"), "\(size)") {
                try Self.transformer(["--resize=\(size)"])
            }
        }
        #expect(throws: ImageCodingError.invalidArgument("--mode 'zoom' is not fill, fit, cover or smart")) {
            try Self.transformer(["--resize", "5x5", "--mode", "zoom"])
        }
    }
}

@Suite("ImagoCommandLine: imago play's options")
struct PlaybackArgumentsUnitTests {
    @Test("defaults: the terminal's width, the file's loops, rate 1, normal order; mode names in any case")
    func modes() throws {
        let defaults = try PlaybackArguments.parse([])
        #expect(defaults.width == nil && defaults.loops == nil && defaults.rate == 1)
        #expect(try defaults.playbackMode() == .normal)
        let modes: [(String, AnimationPlaybackMode)] = [
            ("reverse", .reverse), ("Bounce", .bounce), ("reversed-bounce", .reversedBounce), ("REVERSEDBOUNCE", .reversedBounce)
        ]
        for (name, mode) in modes {
            #expect(try PlaybackArguments.parse(["--mode", name]).playbackMode() == mode, "\(name)")
        }
        let given = try PlaybackArguments.parse(["--width", "40", "--loops", "0", "--rate", "2.5"])
        #expect(given.width == 40 && given.loops == 0 && given.rate == 2.5)
    }

    @Test("a width under 1, negative loops, a rate of 0 or less and an unknown mode are refused, the option named")
    func refuses() {
        let cases: [([String], String)] = [
            (["--width", "0"], "--width must be at least 1"), (["--loops=-1"], "--loops must be 0 or more"),
            (["--rate", "0"], "--rate must be positive"), (["--rate=-2"], "--rate must be positive"),
            (["--mode", "sideways"], "unknown --mode 'sideways': normal, reverse, bounce or reversed-bounce")
        ]
        for (arguments, message) in cases {
            #expect(ParserProbe.failure(PlaybackArguments.self, arguments) == message, "\(arguments)")
        }
    }
}

@Suite("ImagoCommandLine: --frames' lists")
struct FrameListUnitTests {
    @Test("numbers and ranges in the order given, each once; anything else refused")
    func parses() {
        #expect(FrameList(argument: "3,0-2,1")?.indices == [3, 0, 1, 2])
        #expect(FrameList(argument: "7")?.indices == [7])
        #expect(FrameList(argument: "2-2")?.indices == [2])
        for bad in ["", ",", "1,", "a", "1-", "-1", "3-1", "1-2-3", "1 ,2", "0-\(FrameList.maxCount)", "99999999999999999999"] {
            #expect(FrameList(argument: bad) == nil, "\(bad)")
        }
    }

    @Test("10,000 random lists: never a trap, and what is accepted is what was written")
    func randomLists() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789,-- 9x")
        for _ in 0..<10_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            guard let list = FrameList(argument: text) else { continue }
            #expect(Set(list.indices).count == list.indices.count, "\(text)")
            #expect(list.indices.count <= FrameList.maxCount && list.indices.allSatisfy { $0 >= 0 }, "\(text)")
            // Every accepted part is a number or a range, and every index comes from one.
            let parts = text.split(separator: ",").map { $0.split(separator: "-").compactMap { Int($0) } }
            #expect(list.indices.allSatisfy { i in parts.contains { $0.count == 1 ? $0[0] == i : ($0[0]...$0[1]).contains(i) } }, "\(text)")
        }
    }
}

@Suite("ImagoCommandLine: SharedWork, the commands' files side by side")
struct SharedWorkUnitTests {
    struct Odd: Error {}

    @Test("every item runs once, whatever fails; failures come back in index order; progress counts to the end")
    func everyItemOnce() {
        let runs = Mutex([Int](repeating: 0, count: 200))
        let reports = Mutex([(done: Int, failed: Int)]())
        let failures = SharedWork.forEach(200, jobs: 4, progress: { done, failed in reports.withLock { $0.append((done, failed)) } }) { i in
            runs.withLock { $0[i] += 1 }
            if i % 2 == 1 { throw Odd() }
        }
        #expect(runs.withLock { $0 } == [Int](repeating: 1, count: 200))
        #expect(failures.map(\.index) == Array(stride(from: 1, to: 200, by: 2)))
        #expect(failures.allSatisfy { $0.error is Odd })
        let seen = reports.withLock { $0 }
        #expect(seen.map(\.done).sorted() == Array(1...200))
        #expect(seen.max { $0.done < $1.done }.map { $0.failed } == 100)
    }

    @Test("nothing to do runs nothing; more jobs than items, or none, still runs each item once")
    func edges() {
        let calls = Atomic<Int>(0)
        #expect(SharedWork.forEach(0, jobs: 4) { _ in calls.add(1, ordering: .relaxed) }.isEmpty)
        #expect(calls.load(ordering: .relaxed) == 0)
        #expect(SharedWork.forEach(3, jobs: 64) { _ in calls.add(1, ordering: .relaxed) }.isEmpty)
        #expect(SharedWork.forEach(2, jobs: 0) { _ in calls.add(1, ordering: .relaxed) }.isEmpty)
        #expect(calls.load(ordering: .relaxed) == 5)
    }
}
