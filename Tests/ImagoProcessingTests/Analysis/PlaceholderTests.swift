// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// BlurHash and ThumbHash against their reference implementations (PlaceholderReferences.swift,
/// written by scripts/placeholder-references from the PyPI packages and evanw's JavaScript), and
/// against hostile hashes.
@Suite("Placeholders: BlurHash and ThumbHash")
struct PlaceholderTests {
    /// The corpus PNG as straight RGBA, the pixels the references hashed.
    static func pixels(_ path: String) throws -> PixelBuffer {
        try ImageCoderRegistry.shared.decode(try Corpus.data(path), options: DecodeOptions(pixelFormat: .rgba8)).buffer.converted(to: .rgba8)
    }

    /// The largest difference of any channel of `a` and the bytes of `b` (same layout).
    static func maxDifference(_ a: PixelBuffer, _ b: [UInt8]) -> Int {
        a.converted(to: a.format).withUnsafeBytes { raw in
            guard raw.count == b.count else { return Int.max }
            return zip(raw, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
        }
    }

    @Test(
        "BlurHash matches the reference: same pixels, each decode within one level", .enabled(if: Corpus.isAvailable, Corpus.missingReason),
        arguments: PlaceholderReference.all)
    func blurHashReference(_ reference: PlaceholderReference) throws {
        let source = try Self.pixels(reference.path)
        #expect(source.width == reference.width && source.height == reference.height)
        let size = PlaceholderReference.blurDecodeSize
        for blur in reference.blurHashes {
            let ours = try BlurHash.encode(source, componentsX: blur.x, componentsY: blur.y)
            #expect(ours.utf8.count == 4 + 2 * blur.x * blur.y)
            let expected = try #require(Data(base64Encoded: blur.decoded))
            // Our decode of our hash, and of the reference's hash, against the reference's decode.
            let decodedOurs = try BlurHash.decode(ours, width: size.width, height: size.height)
            let decodedTheirs = try BlurHash.decode(blur.hash, width: size.width, height: size.height)
            #expect(Self.maxDifference(decodedOurs, [UInt8](expected)) <= 1, "\(blur.x)x\(blur.y): \(ours) vs \(blur.hash)")
            #expect(Self.maxDifference(decodedTheirs, [UInt8](expected)) <= 1, "\(blur.x)x\(blur.y) decode of \(blur.hash)")
            #expect(try BlurHash.components(of: ours) == (blur.x, blur.y))
        }
        // The hashes themselves agree character for character on these images.
        let exact = try reference.blurHashes.filter { try BlurHash.encode(source, componentsX: $0.x, componentsY: $0.y) == $0.hash }
        #expect(exact.count == reference.blurHashes.count)
    }

    @Test(
        "ThumbHash matches the reference: same bytes, decode within one level", .enabled(if: Corpus.isAvailable, Corpus.missingReason),
        arguments: PlaceholderReference.all)
    func thumbHashReference(_ reference: PlaceholderReference) throws {
        let source = try Self.pixels(reference.path)
        let theirs = [UInt8](try #require(Data(base64Encoded: reference.thumbHash)))
        let ours = try ThumbHash.encode(source)
        #expect(ours == theirs, "\(ours) vs \(theirs)")
        let expected = [UInt8](try #require(Data(base64Encoded: reference.thumbDecoded)))
        for hash in [ours, theirs] {
            let decoded = try ThumbHash.decode(hash)
            #expect(decoded.width == reference.thumbWidth && decoded.height == reference.thumbHeight)
            #expect(decoded.format == .rgba8)
            #expect(Self.maxDifference(decoded, expected) <= 1)
        }
        let ratio = try ThumbHash.aspectRatio(of: ours)
        let actual = Double(reference.width) / Double(reference.height)
        #expect(abs(log(ratio / actual)) < log(1.5), "ratio \(ratio) for \(actual)")
    }

    @Test("ThumbHash keeps transparency: alpha flag, average alpha and the transparent side")
    func thumbHashAlpha() throws {
        // Alpha ramps from opaque (left) to transparent (right).
        let source = try Fixtures.gradient(width: 80, height: 40, alpha: true)
        let hash = try ThumbHash.encode(source)
        #expect(hash[2] & 0x80 != 0, "the alpha flag")
        let average = try ThumbHash.averageColor(of: hash)
        #expect(abs(Int(average.a) - 128) <= 12, "average alpha \(average.a)")
        let decoded = try ThumbHash.decode(hash)
        #expect(decoded.width == 32 && decoded.height < 32)
        let left = try #require(decoded.color(atX: 1, y: decoded.height / 2)), right = try #require(decoded.color(atX: 30, y: decoded.height / 2))
        #expect(left.a > 200 && right.a < 56, "left \(left.a) right \(right.a)")
        // An opaque image has no alpha byte.
        let opaque = try ThumbHash.encode(try Fixtures.gradient(width: 40, height: 80))
        #expect(opaque[2] & 0x80 == 0)
        #expect(try ThumbHash.averageColor(of: opaque).a == 255)
        #expect(try ThumbHash.aspectRatio(of: opaque) < 1)
    }

    @Test("large images are shrunk first: same hashes as their 100-px sample, portrait kept")
    func largeImages() throws {
        let large = try Fixtures.noisy(width: 1600, height: 2400, amplitude: 8)
        let blur = try BlurHash.encode(large)
        let sample = try Resampler.resize(large, to: PixelSize(width: 67, height: 100)).converted(to: .rgba8)
        #expect(blur == (try BlurHash.encode(sample)))
        let thumb = try ThumbHash.encode(large)
        #expect(thumb == (try ThumbHash.encode(sample)))
        let decoded = try ThumbHash.decode(thumb)
        #expect(decoded.height == 32 && decoded.width < 32)
    }

    @Test("Image API: orientation applied, placeholders made at the asked size")
    func imageAPI() throws {
        let upright = try Fixtures.noisy(width: 60, height: 90, amplitude: 8)
        // Stored turned: pixels rotated so that orientation .right shows them upright.
        let stored = upright.applyingOrientation(.left)
        let image = Image(buffer: stored, orientation: .right)
        #expect(image.orientedSize == upright.size)
        #expect(try image.blurHash() == (try BlurHash.encode(upright)))
        #expect(try image.thumbHash() == (try ThumbHash.encode(upright)))
        let placeholder = try Image(blurHash: try image.blurHash(componentsX: 3, componentsY: 4), size: PixelSize(width: 30, height: 45))
        #expect(placeholder.pixelSize == PixelSize(width: 30, height: 45))
        #expect(!placeholder.hasAlpha)
        let thumb = try Image(thumbHash: try image.thumbHash())
        #expect(thumb.pixelSize.height == 32)
        // The average colour of the hash is the image's (DC term), within a few levels.
        let average = try BlurHash.averageColor(of: try image.blurHash())
        let direct = try BlurHash.decode(try BlurHash.encode(upright, componentsX: 1, componentsY: 1), width: 1, height: 1)
        let one = try #require(direct.color(atX: 0, y: 0))
        #expect(average == one)
    }

    @Test("hostile hashes are refused with an error, never a crash")
    func hostileHashes() throws {
        for bad in [
            "", "LEHV6", "LEHV6nWB2yk8pyo0adR*.7kCMdn", "LEHV6nWB2yk8pyo0adR*.7kCMdnjj", "LEHV6nWB2yk8pyo0adR*.7kCMdn\u{e9}", "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}"
        ] {
            #expect(throws: ImageCodingError.self) { try BlurHash.decode(bad) }
        }
        #expect(throws: ImageCodingError.self) { try BlurHash.decode("00JtCp", width: 0, height: 10) }
        #expect(throws: ImageCodingError.self) { try BlurHash.decode("00JtCp", width: 5000, height: 10) }
        #expect(throws: ImageCodingError.self) { try BlurHash.decode("00JtCp", punch: .nan) }
        #expect(throws: ImageCodingError.self) { try BlurHash.encode(try Fixtures.gradient(width: 8, height: 8), componentsX: 0, componentsY: 3) }
        #expect(throws: ImageCodingError.self) { try BlurHash.encode(try Fixtures.gradient(width: 8, height: 8), componentsX: 10, componentsY: 3) }
        for bad: [UInt8] in [[], [1, 2, 3, 4], [0, 0, 0, 0, 0], [0, 0, 0x80, 3, 0], [0x9f, 0x47, 0x0c, 0x25, 0x7a]] {
            #expect(throws: ImageCodingError.self) { try ThumbHash.decode(bad) }
        }
        // Random strings and bytes: a decode or an error, nothing else.
        var state: UInt32 = 7
        func next() -> UInt32 {
            state = state &* 1_664_525 &+ 1_013_904_223
            return state >> 8
        }
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")
        var decoded = 0
        for _ in 0..<2000 {
            let count = Int(next() % 40)
            let text = String((0..<count).map { _ in alphabet[Int(next()) % alphabet.count] })
            if (try? BlurHash.decode(text, width: 8, height: 8)) != nil { decoded += 1 }
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
            if let image = try? ThumbHash.decode(bytes) {
                decoded += 1
                #expect(image.width >= 1 && image.width <= 32 && image.height >= 1 && image.height <= 32)
            }
        }
        #expect(decoded > 0)
    }
}
