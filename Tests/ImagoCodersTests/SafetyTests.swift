// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("Hostile and truncated input")
struct SafetyTests {
    let coders = ImageCoderRegistry.makeDefault()

    func encoded(_ format: ImageFormat, progressive: Bool = false) throws -> Data {
        try coders.encode(
            Image(buffer: try Fixtures.gradient(width: 48, height: 40, alpha: format != .jpeg)), as: format,
            options: EncodeOptions(progressive: progressive))
    }

    @Test("every truncation gives a typed error, never a crash", arguments: [ImageFormat.jpeg, .png, .webp])
    func truncation(_ format: ImageFormat) throws {
        for progressive in [false, true] {
            let data = try encoded(format, progressive: progressive)
            var truncatedErrors = 0
            for n in stride(from: 0, to: data.count - 1, by: max(1, data.count / 97)) {
                do {
                    _ = try coders.decode(data.prefix(n))
                    Issue.record("a \(n)-byte prefix of \(data.count) decoded without error")
                } catch let error as ImageCodingError {
                    if case .truncated = error { truncatedErrors += 1 }
                } catch {
                    Issue.record("untyped error \(error)")
                }
            }
            #expect(truncatedErrors > 0)
        }
    }

    @Test("a one-shot decode of a truncated file says truncated", arguments: [ImageFormat.jpeg, .png, .webp])
    func truncatedIsTruncated(_ format: ImageFormat) throws {
        let data = try encoded(format)
        #expect {
            _ = try coders.decode(data.prefix(data.count * 2 / 3))
        } throws: { error in
            if case ImageCodingError.truncated = error { return true }
            return false
        }
    }

    @Test("headers over the limits are refused before decoding", arguments: [ImageFormat.jpeg, .png, .webp])
    func limitsFromHeader(_ format: ImageFormat) throws {
        let data = try encoded(format)
        let tight = DecodeOptions(limits: DecodingLimits(maxPixels: 48 * 40 - 1))
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 48 * 40, limit: 48 * 40 - 1)) {
            _ = try coders.decode(data, options: tight)
        }
        #expect(throws: ImageCodingError.exceedsLimit(.maxBytes, found: data.count, limit: 10)) {
            _ = try coders.decode(data, options: DecodeOptions(limits: DecodingLimits(maxBytes: 10)))
        }
    }

    @Test("a PNG claiming 524288×2048 is refused before allocating")
    func pngBomb() throws {
        var data = try encoded(.png)
        // Patch IHDR's width to 524288 (the CRC is now wrong, but the limit check comes first).
        let w: [UInt8] = [0x00, 0x08, 0x00, 0x00], h: [UInt8] = [0x00, 0x00, 0x08, 0x00]
        data.replaceSubrange(16..<20, with: w)
        data.replaceSubrange(20..<24, with: h)
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 524_288 * 2048, limit: 100_000_000)) {
            _ = try coders.decode(data)
        }
    }

    @Test("a JPEG claiming 65000×65000 is refused from its header")
    func jpegBomb() throws {
        var data = try encoded(.jpeg)
        // Find SOF (FFC0/FFC2) and patch height/width.
        let bytes = [UInt8](data)
        guard let sof = (0..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) }) else {
            Issue.record("no SOF marker")
            return
        }
        data.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFD, 0xE8, 0xFD, 0xE8])
        #expect(throws: ImageCodingError.exceedsLimit(.maxPixels, found: 65000 * 65000, limit: 100_000_000)) {
            _ = try coders.decode(data)
        }
    }

    @Test("random bit flips give a decode or a typed error", arguments: [ImageFormat.jpeg, .png, .webp])
    func bitFlips(_ format: ImageFormat) throws {
        let data = try encoded(format)
        var rng = SplitMix(seed: 42)
        for _ in 0..<200 {
            var copy = [UInt8](data)
            for _ in 0..<3 {
                let i = Int(rng.next() % UInt64(copy.count))
                copy[i] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8))
            }
            do { _ = try coders.decode(Data(copy)) } catch is ImageCodingError {} catch { Issue.record("untyped error \(error)") }
        }
    }

    @Test("empty and unknown data")
    func unknown() {
        #expect(throws: ImageCodingError.emptyData) { _ = try coders.decode(Data()) }
        #expect(throws: ImageCodingError.unsupportedFormat(nil)) { _ = try coders.decode(Data("not an image".utf8)) }
        // A recognised format that no registered decoder handles.
        let pngOnly = ImageCoderRegistry(decoders: [PNGCoder()])
        #expect(throws: ImageCodingError.unsupportedFormat(.gif)) { _ = try pngOnly.decode(Data("GIF89a\u{1}\0\u{1}\0\0\0\0".utf8)) }
        #expect(throws: ImageCodingError.self) { _ = try coders.decode(Data("GIF89a\u{1}\0\u{1}\0\0\0\0".utf8)) }
    }
}
