// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Glibc
import ImagoDiskIO
import Testing

@Suite("DiskFile")
struct DiskFileTests {
    @Test("write creates a new file with exactly the bytes; an existing file (EEXIST) or a missing folder (ENOENT) is refused")
    func write() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let files: [(name: String, bytes: [UInt8], sync: Bool)] = [("large", pattern(100_000), false), ("small", [1, 2, 3], true), ("empty", [], true)]
        for (name, bytes, sync) in files {
            try DiskFile.write(Data(bytes), to: dir.file(name), sync: sync)
            #expect(dir.contents(name) == bytes, "\(name)")
        }
        let existing = #expect(throws: DiskIOError.self) { try DiskFile.write(Data([9]), to: dir.file("small"), sync: false) }
        #expect(existing == DiskIOError(path: dir.file("small"), reason: systemReason(EEXIST)))
        #expect(dir.contents("small") == [1, 2, 3])
        let missing = #expect(throws: DiskIOError.self) { try DiskFile.write(Data([1]), to: dir.file("no/such/file"), sync: true) }
        #expect(missing == DiskIOError(path: dir.file("no/such/file"), reason: systemReason(ENOENT)))
        #expect(dir.names() == ["empty", "large", "small"])
    }

    @Test("replace publishes the new bytes atomically: a reader holding the old file keeps the old bytes")
    func replaceIsAtomic() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.file("entry")
        try DiskFile.replace(path, with: Data([1, 2, 3, 4]), sync: false)  // creates
        #expect(dir.contents("entry") == [1, 2, 3, 4])
        let before = try #require(FileSignature(path: path))
        let held = try #require(DiskFile.open(path, expectedSize: 4, signature: before))
        defer { DiskFile.close(held.descriptor) }
        try DiskFile.replace(path, with: Data(pattern(5000)), sync: true)
        #expect(dir.contents("entry") == pattern(5000))
        #expect(dir.names() == ["entry"], "no temporary file is left beside it")
        let after = try #require(FileSignature(path: path))
        #expect(after.inode != before.inode)
        var old = [UInt8](repeating: 0, count: 8)
        let count = Glibc.read(held.descriptor, &old, 8)
        #expect(count == 4)
        #expect(Array(old[0..<4]) == [1, 2, 3, 4])
    }

    @Test("replace through a named temporary leaves none; a taken temporary name, a missing folder or a failed rename change nothing")
    func replaceFailures() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = try dir.put("entry", [1])
        try DiskFile.replace(path, with: Data([2]), sync: false, temporary: dir.file(".tmp-1"))
        #expect(dir.contents("entry") == [2])
        let taken = try dir.put(".tmp-2", [7])
        let error = #expect(throws: DiskIOError.self) { try DiskFile.replace(path, with: Data([3]), sync: false, temporary: taken) }
        #expect(error == DiskIOError(path: taken, reason: systemReason(EEXIST)))
        #expect(dir.contents(".tmp-2") == [7])
        DiskFile.remove(taken)
        let missing = #expect(throws: DiskIOError.self) { try DiskFile.replace(dir.file("no/entry"), with: Data([1]), sync: false) }
        #expect(missing?.reason == systemReason(ENOENT))
        // A folder in the way: the rename fails, names the destination, and the temporary goes.
        try FileManager.default.createDirectory(atPath: dir.file("busy/child"), withIntermediateDirectories: true)
        let renameError = #expect(throws: DiskIOError.self) { try DiskFile.replace(dir.file("busy"), with: Data([1]), sync: false) }
        #expect(renameError == DiskIOError(path: dir.file("busy"), reason: systemReason(EISDIR)))
        #expect(dir.names() == ["busy", "entry"])
        #expect(dir.contents("entry") == [2])
    }

    @Test("rename moves a file over another; a missing source fails with ENOENT naming the destination; remove ignores missing files")
    func renameAndRemove() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let a = try dir.put("a", [1])
        let b = try dir.put("b", [2])
        try DiskFile.rename(a, to: b)
        #expect(dir.names() == ["b"])
        #expect(dir.contents("b") == [1])
        let error = #expect(throws: DiskIOError.self) { try DiskFile.rename(a, to: dir.file("c")) }
        #expect(error == DiskIOError(path: dir.file("c"), reason: systemReason(ENOENT)))
        DiskFile.remove(b)
        DiskFile.remove(b)
        #expect(dir.names().isEmpty)
    }

    @Test("read returns the whole file only at the expected size, and tells whether its signature still matches")
    func readWholeFile() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let bytes = pattern(70_000)
        let path = try dir.put("f", bytes)
        let signature = try #require(FileSignature(path: path))
        let fresh = try #require(DiskFile.read(path, expectedSize: bytes.count, signature: signature))
        #expect([UInt8](fresh.data) == bytes)
        #expect(fresh.unchanged)
        #expect(DiskFile.read(path, expectedSize: bytes.count - 1, signature: signature)?.data == nil)
        #expect(DiskFile.read(path, expectedSize: bytes.count + 1, signature: signature)?.data == nil)
        #expect(DiskFile.read(dir.file("missing"), expectedSize: 0, signature: signature)?.data == nil)
        // An unknown signature (inode 0) never counts as unchanged, nor does another inode's.
        let unknown = FileSignature(inode: 0, ctime: signature.ctime)
        let other = FileSignature(inode: signature.inode &+ 1, ctime: signature.ctime)
        #expect(DiskFile.read(path, expectedSize: bytes.count, signature: unknown)?.unchanged == false)
        #expect(DiskFile.read(path, expectedSize: bytes.count, signature: other)?.unchanged == false)
        try DiskFile.replace(path, with: Data(bytes), sync: false)
        let replaced = try #require(DiskFile.read(path, expectedSize: bytes.count, signature: signature))
        #expect([UInt8](replaced.data) == bytes)
        #expect(!replaced.unchanged)
    }

    @Test("map gives the file's bytes, empty data for an empty file, and stays valid after the file is replaced and removed")
    func mapWholeFile() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let bytes = pattern(20_000)
        let path = try dir.put("f", bytes)
        let signature = try #require(FileSignature(path: path))
        let mapped = try #require(DiskFile.map(path, expectedSize: bytes.count, signature: signature))
        #expect(mapped.unchanged)
        #expect(DiskFile.map(path, expectedSize: 1, signature: signature)?.data == nil)
        #expect(DiskFile.map(dir.file("missing"), expectedSize: 1, signature: signature)?.data == nil)
        try DiskFile.replace(path, with: Data(pattern(10)), sync: false)
        DiskFile.remove(path)
        #expect([UInt8](mapped.data) == bytes)
        let empty = try dir.put("empty", [])
        let emptySignature = try #require(FileSignature(path: empty))
        let emptyMap = try #require(DiskFile.map(empty, expectedSize: 0, signature: emptySignature))
        #expect(emptyMap.data.isEmpty && emptyMap.unchanged)
        let emptyRead = try #require(DiskFile.read(empty, expectedSize: 0, signature: emptySignature))
        #expect(emptyRead.data.isEmpty && emptyRead.unchanged)
    }

    @Test("open hands over a descriptor of a file of the expected size, and refuses the wrong size or a missing file")
    func openDescriptor() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = try dir.put("f", [10, 20, 30])
        let signature = try #require(FileSignature(path: path))
        let opened = try #require(DiskFile.open(path, expectedSize: 3, signature: signature))
        defer { DiskFile.close(opened.descriptor) }
        #expect(opened.unchanged)
        var buffer = [UInt8](repeating: 0, count: 3)
        let count = Glibc.read(opened.descriptor, &buffer, 3)
        #expect(count == 3)
        #expect(buffer == [10, 20, 30])
        #expect(DiskFile.open(path, expectedSize: 4, signature: signature)?.descriptor == nil)
        #expect(DiskFile.open(dir.file("missing"), expectedSize: 3, signature: signature)?.descriptor == nil)
        let unknown = try #require(DiskFile.open(path, expectedSize: 3, signature: FileSignature(inode: 0, ctime: 0)))
        DiskFile.close(unknown.descriptor)
        #expect(!unknown.unchanged)
    }

    @Test("FileSignature holds the file's inode, is nil for a missing file, and compares inode and ctime")
    func signatures() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = try dir.put("f", [1])
        let signature = try #require(FileSignature(path: path))
        var info = stat()
        let statResult = stat(path, &info)
        #expect(statResult == 0 && signature.inode == UInt64(info.st_ino) && signature.ctime > 0)
        #expect(FileSignature(path: path) == signature && FileSignature(path: dir.file("missing")) == nil)
        #expect(FileSignature(inode: 5, ctime: 6) == FileSignature(inode: 5, ctime: 6))
        #expect(FileSignature(inode: 5, ctime: 6) != FileSignature(inode: 5, ctime: 7))
        #expect(FileSignature(inode: 5, ctime: 6) != FileSignature(inode: 4, ctime: 6))
        #expect(DiskFile.processID == getpid())
    }

    @Test("a mode-000 file cannot be read nor a read-only folder written, unless running as root")
    func permissions() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let secret = try dir.put("secret", [1, 2, 3])
        chmod(secret, 0)
        let folder = dir.file("ro")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let inside = try dir.put("ro/inside", [4])
        chmod(folder, 0o555)
        defer { chmod(folder, 0o755) }
        let signature = try #require(FileSignature(path: secret))
        if getuid() == 0 {
            // Root ignores permission bits, so nothing here can be denied: the file reads as usual.
            #expect(DiskFile.read(secret, expectedSize: 3, signature: signature).map { [UInt8]($0.data) } == [1, 2, 3])
            return
        }
        #expect(DiskFile.read(secret, expectedSize: 3, signature: signature)?.data == nil)
        #expect(DiskFile.map(secret, expectedSize: 3, signature: signature)?.data == nil)
        #expect(DiskFile.open(secret, expectedSize: 3, signature: signature)?.descriptor == nil)
        let error = #expect(throws: DiskIOError.self) { try DiskFile.replace(inside, with: Data([5]), sync: false) }
        #expect(error?.reason == systemReason(EACCES))
        #expect(dir.contents("ro/inside") == [4])
    }
}
