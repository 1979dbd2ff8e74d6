// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Glibc
import ImagoDiskIO
import Testing

@Suite("ConfinedFile")
struct ConfinedFileTests {
    /// `root/top.txt`, `root/empty`, `root/a/b/deep.txt`, and `outside/secret.txt` beside the root; returns the root.
    static func tree(_ dir: Scratch) throws -> String {
        try FileManager.default.createDirectory(atPath: dir.file("root/a/b"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.file("outside"), withIntermediateDirectories: true)
        try dir.put("root/top.txt", Array("top".utf8))
        try dir.put("root/empty", [])
        try dir.put("root/a/b/deep.txt", Array("deep".utf8))
        try dir.put("outside/secret.txt", Array("secret".utf8))
        return dir.file("root")
    }

    @Test("files at any depth below the root are read whole, up to and including maxBytes; larger ones are refused")
    func readsInside() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let root = try Self.tree(dir)
        #expect(try ConfinedFile.read(root: root, components: ["top.txt"], maxBytes: 100) == Data("top".utf8))
        #expect(try ConfinedFile.read(root: root, components: ["a", "b", "deep.txt"], maxBytes: 4) == Data("deep".utf8))
        #expect(try ConfinedFile.read(root: root, components: ["empty"], maxBytes: 0).isEmpty)
        let big = pattern(300_000)
        try dir.put("root/a/big", big)
        #expect(try [UInt8](ConfinedFile.read(root: root, components: ["a", "big"], maxBytes: big.count)) == big)
        #expect(throws: ConfinedFile.Failure.tooLarge(size: 4, limit: 3)) {
            try ConfinedFile.read(root: root, components: ["a", "b", "deep.txt"], maxBytes: 3)
        }
        // The root itself may be reached through a link.
        try FileManager.default.createSymbolicLink(atPath: dir.file("root-link"), withDestinationPath: root)
        #expect(try ConfinedFile.read(root: dir.file("root-link"), components: ["top.txt"], maxBytes: 100) == Data("top".utf8))
    }

    @Test(
        "'..', '.', empty names, names holding '/' or NUL, and absolute paths are refused before the root is opened",
        arguments: ["..", ".", "", "a/b", "/etc/passwd", "../outside/secret.txt", "nul\u{0}byte"])
    func invalidComponents(component: String) {
        for components in [[component], ["a", component], [component, "top.txt"]] {
            #expect(throws: ConfinedFile.Failure.invalidComponent(component), "\(components)") {
                try ConfinedFile.read(root: "/nonexistent-imago-root", components: components, maxBytes: 100)
            }
        }
    }

    @Test("symbolic links are refused at every depth, whether they lead outside the root, inside it, or nowhere")
    func symbolicLinks() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let root = try Self.tree(dir)
        let links = [
            "escape.txt": dir.file("outside/secret.txt"), "relative.txt": "../outside/secret.txt", "alias.txt": "top.txt",
            "dangling": "/nonexistent-imago-target", "out": dir.file("outside"), "a/inner": "b"
        ]
        for (link, target) in links {
            try FileManager.default.createSymbolicLink(atPath: dir.file("root/\(link)"), withDestinationPath: target)
        }
        let cases: [(components: [String], refused: String)] = [
            (["escape.txt"], "escape.txt"), (["relative.txt"], "relative.txt"), (["alias.txt"], "alias.txt"),
            (["dangling"], "dangling"), (["out", "secret.txt"], "out"), (["a", "inner", "deep.txt"], "inner")
        ]
        for (components, refused) in cases {
            #expect(throws: ConfinedFile.Failure.notAllowed(refused), "\(components)") {
                try ConfinedFile.read(root: root, components: components, maxBytes: 100)
            }
        }
    }

    @Test("missing names are notFound; the root itself, folders, FIFOs and files used as folders are notAllowed")
    func wrongKinds() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let root = try Self.tree(dir)
        #expect(mkfifo(dir.file("root/pipe"), 0o600) == 0)
        let cases: [(components: [String], failure: ConfinedFile.Failure)] = [
            (["missing.txt"], .notFound), (["nope", "deep.txt"], .notFound), ([], .notAllowed("the root itself")),
            (["a", "b"], .notAllowed("not a regular file")), (["pipe"], .notAllowed("not a regular file")), (["top.txt", "x"], .notAllowed("top.txt"))
        ]
        for (components, failure) in cases {
            #expect(throws: failure, "\(components)") { try ConfinedFile.read(root: root, components: components, maxBytes: 100) }
        }
        #expect(throws: ConfinedFile.Failure.rootUnavailable(systemReason(ENOENT))) {
            try ConfinedFile.read(root: dir.file("no-root"), components: ["top.txt"], maxBytes: 100)
        }
        #expect(throws: ConfinedFile.Failure.rootUnavailable(systemReason(ENOTDIR))) {
            try ConfinedFile.read(root: dir.file("root/top.txt"), components: ["x"], maxBytes: 100)
        }
    }

    @Test("a mode-000 file or folder is notAllowed, unless running as root, whom permission bits do not stop")
    func permissions() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let root = try Self.tree(dir)
        chmod(dir.file("root/top.txt"), 0)
        chmod(dir.file("root/a"), 0)
        defer { chmod(dir.file("root/a"), 0o755) }
        if getuid() == 0 {
            #expect(try ConfinedFile.read(root: root, components: ["top.txt"], maxBytes: 100) == Data("top".utf8))
            #expect(try ConfinedFile.read(root: root, components: ["a", "b", "deep.txt"], maxBytes: 100) == Data("deep".utf8))
            return
        }
        #expect(throws: ConfinedFile.Failure.notAllowed("top.txt")) { try ConfinedFile.read(root: root, components: ["top.txt"], maxBytes: 100) }
        #expect(throws: ConfinedFile.Failure.notAllowed("a")) { try ConfinedFile.read(root: root, components: ["a", "b", "deep.txt"], maxBytes: 100) }
    }
}
