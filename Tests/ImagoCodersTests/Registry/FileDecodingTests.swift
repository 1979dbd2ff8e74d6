// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// Files decoded where they lie (`ImageFile`): the same images, headers and errors as their
/// bytes decoded in memory, read a piece at a time.
@Suite("Decoding files where they lie")
struct FileDecodingTests {
    let coders = ImageCoderRegistry.makeDefault()

    /// Decodes `data` both ways (written to a file for the second) and holds them equal:
    /// the same image, or the same error.
    func expectSame(_ data: Data, options: DecodeOptions = .default, _ name: String, in dir: URL) throws {
        let url = dir.appendingPathComponent("input")
        try? FileManager.default.removeItem(at: url)
        try data.write(to: url)
        let file = try ImageFile(path: url.path)
        let fromData = Result { try coders.decode(data, options: options) }
        let fromFile = Result { try coders.decode(ImageInput(file), options: options) }
        switch (fromData, fromFile) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "\(name): the file decodes to a different image")
        case (.failure(let a), .failure(let b)):
            #expect(Self.kind(a) == Self.kind(b), "\(name): \(a) from bytes, \(b) from the file")
        case (.success, .failure(let e)):
            Issue.record("\(name): decodes from bytes, fails from the file: \(e)")
        case (.failure(let e), .success):
            Issue.record("\(name): fails from bytes (\(e)), decodes from the file")
        }
        let infoFromData = Result { try coders.info(of: data) }
        let infoFromFile = Result { try ImageInput(file).info(coders: coders) }
        switch (infoFromData, infoFromFile) {
        case (.success(let a), .success(let b)): #expect(a == b, "\(name): info differs")
        case (.failure, .failure): break
        case (.success, .failure(let e)): Issue.record("\(name): info fails from the file: \(e)")
        case (.failure(let e), .success): Issue.record("\(name): info fails from bytes (\(e)) only")
        }
    }

    /// The error's case, without its message (libjpeg words a truncation differently when it
    /// meets it at a buffer boundary).
    static func kind(_ error: any Error) -> String {
        guard let e = error as? ImageCodingError else { return String(describing: type(of: error)) }
        return String(String(describing: e).prefix { $0 != "(" })
    }

    @Test("JPEGs and PNG stills of the corpus decode from files as from bytes", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func corpus() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var files = Corpus.files(in: "jpeg-decoder/reftest", extensions: ["jpg"])
        files += Corpus.files(in: "libjpeg-turbo", extensions: ["jpg"])
        files += Corpus.files(in: "exif-orientation", extensions: ["jpg"]).prefix(4)
        files += Corpus.files(in: "pngsuite", extensions: ["png"])
        files += Corpus.files(in: "apng", extensions: ["png"]).prefix(6)
        files += Corpus.files(in: "malformed", extensions: ["jpg", "jpeg", "png"])
        #expect(files.count > 150)
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40))
        for url in files {
            let data = try Data(contentsOf: url)
            let name = url.lastPathComponent
            try expectSame(data, name, in: dir)
            try expectSame(data, options: thumbnail, name + " at a reduced scale", in: dir)
            try expectSame(data, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false), name + " straight, unmanaged", in: dir)
        }
    }

    @Test("a large JPEG and a large PNG, and every truncation of them, decode from files as from bytes")
    func largeAndTruncated() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pixels = try Fixtures.noisy(width: 1200, height: 900, alpha: true, amplitude: 32)
        let jpeg = try coders.encode(Image(buffer: pixels), as: .jpeg, options: EncodeOptions(quality: 0.9))
        let progressive = try coders.encode(Image(buffer: pixels), as: .jpeg, options: EncodeOptions(quality: 0.9, progressive: true))
        let png = try coders.encode(Image(buffer: pixels), as: .png)
        let interlaced = try coders.encode(Image(buffer: pixels), as: .png, options: EncodeOptions(progressive: true))
        for (name, data) in [("jpeg", jpeg), ("progressive jpeg", progressive), ("png", png), ("interlaced png", interlaced)] {
            #expect(data.count > 200_000, "\(name) spans several pieces of input")
            try expectSame(data, name, in: dir)
            try expectSame(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 150, height: 150)), name + " thumbnail", in: dir)
            for fraction in [0.0001, 0.01, 0.3, 0.7, 0.999] {
                try expectSame(data.prefix(Int(Double(data.count) * fraction)), "\(name) cut at \(fraction)", in: dir)
            }
        }
    }

    @Test("libjpeg pulls the input 64 KiB at a time, and a source's error is rethrown as it was")
    func pulledInPieces() throws {
        let pixels = try Fixtures.gradient(width: 1600, height: 1200)
        let jpeg = try coders.encode(Image(buffer: pixels), as: .jpeg, options: EncodeOptions(quality: 0.95))
        let source = CountingSource(jpeg)
        let image = try JPEGCoder().decode(from: source, options: .default)
        #expect(image == (try coders.decode(jpeg)))
        #expect(source.largestRead == 1 << 16)
        #expect(source.total == jpeg.count)

        struct Unplugged: Error {}
        let failing = CountingSource(jpeg, failAfter: jpeg.count / 2, error: Unplugged())
        #expect(throws: Unplugged.self) { try JPEGCoder().decode(from: failing, options: .default) }
        let failingHeader = CountingSource(jpeg, failAfter: 10, error: Unplugged())
        #expect(throws: Unplugged.self) { try JPEGCoder().decode(from: failingHeader, options: .default) }
        final class Rows: DecodedRowConsuming {
            func begin(size: PixelSize) throws {}
            func consume(row: UnsafeRawBufferPointer, y: Int) throws {}
        }
        #expect(throws: Unplugged.self) {
            try JPEGCoder().decodeRows(from: CountingSource(jpeg, failAfter: jpeg.count / 3, error: Unplugged()), options: .default, into: Rows())
        }
        var limited = DecodeOptions.default
        limited.limits.maxBytes = jpeg.count / 2
        do {
            _ = try JPEGCoder().decode(from: CountingSource(jpeg), options: limited)
            Issue.record("read past maxBytes")
        } catch ImageCodingError.exceedsLimit(.maxBytes, let found, let limit) {
            #expect(limit == jpeg.count / 2 && found > limit && found <= limit + (1 << 16))
        }
        #expect(throws: ImageCodingError.self) { try coders.decode(ImageInput(try ImageFile(path: writeTemporary(jpeg))), options: limited) }
    }

    @Test("the header of a file is read from its first bytes")
    func headerFromFirstBytes() throws {
        let pixels = try Fixtures.gradient(width: 1600, height: 1200)
        let jpeg = try coders.encode(Image(buffer: pixels), as: .jpeg)
        let source = CountingSource(jpeg)
        #expect(try JPEGCoder().info(from: source) == (try JPEGCoder().info(of: jpeg)))
        #expect(source.total == 1 << 16, "one piece, not the \(jpeg.count) bytes")
    }

    @Test("ImageFile reads at offsets, survives unlinking, reports what it cannot open")
    func imageFile() throws {
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let path = try writeTemporary(bytes)
        let file = try ImageFile(path: path)
        #expect(file.size == bytes.count)
        #expect(try file.read(at: 1000, maxLength: 10) == bytes[1000..<1010])
        #expect(try file.read(at: bytes.count - 3, maxLength: 10) == bytes.suffix(3))
        #expect(try file.read(at: bytes.count + 5, maxLength: 10).isEmpty)
        try FileManager.default.removeItem(atPath: path)
        #expect(try file.contents() == bytes, "an unlinked file stays readable while open")
        let source = file.makeByteSource()
        var collected = Data()
        while true {
            let piece = try source.read(maxLength: 70_000)
            if piece.isEmpty { break }
            collected += piece
        }
        #expect(collected == bytes)
        #expect(throws: CocoaError.self) { try ImageFile(path: path) }
        #expect(throws: CocoaError.self) { try ImageFile(path: NSTemporaryDirectory()) }
        let empty = try ImageFile(path: writeTemporary(Data()))
        #expect(throws: ImageCodingError.emptyData) { try coders.decode(ImageInput(empty)) }
    }

    func writeTemporary(_ data: Data) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imago-file-\(UUID().uuidString)")
        try data.write(to: url)
        return url.path
    }
}

/// Hands out `data` in the pieces asked for, recording them; optionally fails after some bytes.
final class CountingSource: ImageByteSource {
    private let data: Data
    private let failAfter: Int?
    private let error: (any Error)?
    private(set) var total = 0
    private(set) var largestRead = 0

    init(_ data: Data, failAfter: Int? = nil, error: (any Error)? = nil) {
        self.data = data
        self.failAfter = failAfter
        self.error = error
    }

    func read(maxLength: Int) throws -> Data {
        if let failAfter, total >= failAfter, let error { throw error }
        let piece = data.dropFirst(total).prefix(maxLength)
        total += piece.count
        largestRead = max(largestRead, piece.count)
        return Data(piece)
    }
}
