// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCommandLine
import ImagoTestSupport
import Testing

@Suite("Output files: replaced whole by a rename, failures leave nothing behind")
struct OutputFileTests {
    @Test("a file is written, then replaced whole; no temporary file stays")
    func replaces() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("out.bmp")
        try OutputFile.write(Data(repeating: 1, count: 100_000), to: target)
        #expect(try Data(contentsOf: target) == Data(repeating: 1, count: 100_000))
        try OutputFile.write(Data("second".utf8), to: target)
        #expect(try Data(contentsOf: target) == Data("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.bmp"])
    }

    @Test("a folder that is missing, or a folder in the way, is an error naming the file; what was there stays")
    func failures() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("no/such/out.png")
        #expect {
            try OutputFile.write(Data("x".utf8), to: missing)
        } throws: { error in
            (error as? OutputFileError)?.path == missing.path && "\(error)".hasPrefix("cannot write \(missing.path): ")
        }
        // A non-empty folder where the file should go: the rename fails, the folder is untouched
        // and the temporary file is removed.
        let blocked = dir.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: blocked.appendingPathComponent("inside"))
        #expect(throws: OutputFileError.self) { try OutputFile.write(Data("x".utf8), to: blocked) }
        #expect(try Data(contentsOf: blocked.appendingPathComponent("inside")) == Data("keep".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["taken"])
    }
}
