// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// AVIF through libavif: sequences against `avifdec --info`, transforms, every range and
/// matrix against `avifdec`'s own decode, and damaged files.
@Suite("AVIF (libavif)", .serialized, .enabled(if: AVIFCoder().canDecode(.avif), "libavif is not installed: run scripts/bootstrap"))
struct AVIFTests {
    let coders = ImageCoderRegistry.makeDefault()
    static let avifdec = URL(fileURLWithPath: "/usr/bin/avifdec")
    static let avifenc = URL(fileURLWithPath: "/usr/bin/avifenc")
    static var toolsPresent: Bool {
        FileManager.default.isExecutableFile(atPath: avifdec.path) && FileManager.default.isExecutableFile(atPath: avifenc.path)
    }

    /// Runs a tool to its end; its exit status and standard output.
    static func tool(_ url: URL, _ arguments: [String]) throws -> (Int32, String) {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = dir.appendingPathComponent("stdout")
        let status = try Subprocess.runSynchronously(url.path, arguments, output: output)
        return (status, String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }

    static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double { PixelMetrics.psnr(a, b) }

    @Test("AVIF is libavif's to decode; libheif keeps HEIC")
    func registry() throws {
        #expect(coders.decoder(for: .avif) is AVIFCoder)
        #expect(coders.decoder(for: .heic) is HEIFCoder)
    }

    @Test(
        "sequences: frame counts and durations as avifdec --info reports them; frames on demand, in any order",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason), .enabled(if: toolsPresent, "avifdec is missing: run scripts/bootstrap"))
    func sequences() throws {
        let names = [
            "colors-animated-8bpc.avif", "colors-animated-8bpc-alpha-exif-xmp.avif", "colors-animated-8bpc-audio.avif",
            "colors-animated-12bpc-keyframes-0-2-3.avif"
        ]
        for name in names {
            let url = Corpus.url("libavif/" + name)
            let (status, report) = try Self.tool(Self.avifdec, ["--info", url.path])
            guard status == 0 else {
                // libavif 0.11 cannot read a file with an audio track; neither can Imago through it.
                #expect(name.contains("audio"), "\(name): avifdec --info failed")
                #expect(throws: ImageCodingError.self) { try coders.info(of: Data(contentsOf: url)) }
                continue
            }
            // "* Decoded frame [i] [pts …] [duration 0.03 (1 timescales)]" and "N timescales per second".
            let rate =
                report.split(separator: "\n").compactMap { line -> Double? in
                    guard let r = line.range(of: " timescales per second") else { return nil }
                    return Double(line[..<r.lowerBound].split(separator: " ").last ?? "")
                }.first ?? 0
            let ticks = report.split(separator: "\n").filter { $0.contains("Decoded frame [") }.compactMap { line -> Double? in
                guard let r = line.range(of: "[duration ") else { return nil }
                let rest = line[r.upperBound...]
                guard let open = rest.firstIndex(of: "("), let space = rest[open...].firstIndex(of: " ") else { return nil }
                return Double(rest[rest.index(after: open)..<space])
            }
            #expect(rate > 0 && !ticks.isEmpty, "\(name): avifdec said \(report)")
            let info = try coders.info(of: Data(contentsOf: url))
            #expect(info.format == .avif && info.frameCount == ticks.count, "\(name)")
            let expected = ticks.map { FrameTiming.displayedDuration($0 / rate) }
            #expect(zip(info.durations, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(name): \(info.durations) vs \(expected)")
            // The edit list: colors-animated-8bpc has one without the repeat flag (libavif's README:
            // repetition count 0, so one play); the others repeat over an indefinite duration.
            #expect(info.loopCount == (name == "colors-animated-8bpc.avif" ? 1 : 0), "\(name)")

            let eager = try coders.decode(Data(contentsOf: url), options: DecodeOptions(pixelFormat: .rgba8))
            #expect(eager.frameCount == ticks.count)
            let lazy = try coders.decode(Data(contentsOf: url), options: DecodeOptions(decodesFramesLazily: true))
            for i in (0..<ticks.count).reversed() {
                #expect(try lazy.frame(at: i).buffer.converted(to: .rgba8) == eager.frames[i].buffer, "\(name) frame \(i)")
            }
            let first = try coders.decode(Data(contentsOf: url), options: DecodeOptions(firstFrameOnly: true))
            #expect(first.frameCount == 1)
        }
    }

    @Test(
        "repetition from the edit list, as libavif 1.x reads it: once, a count, forever, or forever without one",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func repetition() throws {
        let original = [UInt8](try Corpus.data("libavif/colors-animated-8bpc.avif"))
        func offset(of type: String, in bytes: [UInt8]) throws -> Int {
            let t = Array(type.utf8)
            return try #require((4..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == t }) + 4
        }
        // tkhd version 1: duration at body + 28 (8 bytes); elst: flags in body[1...3], segment at body + 8.
        let tkhd = try offset(of: "tkhd", in: original), elst = try offset(of: "elst", in: original)
        #expect(original[tkhd] == 1 && original[elst] == 1)
        func variant(repeats: Bool, trackDuration: UInt64) -> Data {
            var b = original
            b[elst + 3] = repeats ? 1 : 0
            for i in 0..<8 { b[tkhd + 28 + i] = UInt8(truncatingIfNeeded: trackDuration >> (56 - 8 * UInt64(i))) }
            return Data(b)
        }
        // The segment is 5 ticks (the five frames once).
        let cases: [(Data, Int)] = [
            (Data(original), 1),
            (variant(repeats: true, trackDuration: 5), 1),
            (variant(repeats: true, trackDuration: 15), 3),
            (variant(repeats: true, trackDuration: 12), 3),  // a partial last repetition counts
            (variant(repeats: true, trackDuration: .max), 0),  // indefinite: forever
            (variant(repeats: true, trackDuration: 5 << 40), 0),  // past Int32.max plays: forever
            (variant(repeats: false, trackDuration: 15), 1)
        ]
        for (i, (data, plays)) in cases.enumerated() {
            #expect(try coders.info(of: data).loopCount == plays, "case \(i)")
            #expect(try coders.decode(data).loopCount == plays, "case \(i)")
            #expect(try coders.decode(data, options: DecodeOptions(decodesFramesLazily: true)).loopCount == plays, "case \(i)")
        }
        // No edit box at all: unknown, played forever.
        var noEdits = original
        let edts = try offset(of: "edts", in: original) - 4
        noEdits.replaceSubrange(edts..<(edts + 4), with: Array("free".utf8))
        #expect(try coders.info(of: Data(noEdits)).loopCount == 0)
    }

    @Test(
        "clap, irot and imir are applied: the image comes out upright, and info gives the shown size",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func transforms() throws {
        for name in ["abc_color_irot_alpha_NOirot.avif", "abc_color_irot_alpha_irot.avif"] {
            let data = try Corpus.data("libavif/" + name)
            let image = try coders.decode(data)
            #expect(image.pixelSize == PixelSize(width: 256, height: 512) && image.orientation == .up, "\(name)")
            #expect(try coders.info(of: data).pixelSize == image.pixelSize, "\(name)")
        }
        // libheif applies the same transforms: the two decoders agree on the upright pixels.
        let data = try Corpus.data("libavif/abc_color_irot_alpha_irot.avif")
        let ours = try AVIFCoder().decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        let heif = try HEIFCoder().decode(data, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(ours.pixelSize == heif.pixelSize)
        if ours.pixelSize == heif.pixelSize { #expect(Self.psnr(ours.buffer, heif.buffer) > 30) }
    }

    @Test(
        "every matrix and range, monochrome included, within 40 dB of avifdec's own (16-bit) decode",
        .enabled(if: toolsPresent, "avifenc/avifdec are missing: run scripts/bootstrap"))
    func rangesAndMatrices() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = [UInt8](repeating: 255, count: 96 * 64 * 4)
        for y in 0..<64 {
            for x in 0..<96 {
                let o = (y * 96 + x) * 4
                bytes[o] = UInt8(x * 255 / 95)
                bytes[o + 1] = UInt8(y * 255 / 63)
                bytes[o + 2] = UInt8((x + y) * 255 / 158)
            }
        }
        let source = try PixelBuffer(width: 96, height: 64, format: .rgba8, bytes: bytes)
        let png = dir.appendingPathComponent("in.png")
        try coders.encode(Image(buffer: source), as: .png).write(to: png)
        var checked = 0
        for yuv in ["444", "420", "400"] {
            for range in ["full", "limited"] {
                for depth in ["8", "10", "12"] {
                    let avif = dir.appendingPathComponent("t-\(yuv)-\(range)-\(depth).avif"), back = dir.appendingPathComponent("back.png")
                    let (encoded, _) = try Self.tool(
                        Self.avifenc,
                        [
                            "-y", yuv, "-r", range, "-d", depth, "-s", "10", "--min", "10", "--max", "10",
                            png.path, avif.path
                        ])
                    #expect(encoded == 0, "avifenc \(yuv) \(range) \(depth)")
                    guard encoded == 0 else { continue }
                    // At 16 bits avifdec converts with libavif's own code: at 8 bits it takes libyuv,
                    // whose monochrome path leaves limited range unexpanded.
                    let (decoded, _) = try Self.tool(Self.avifdec, ["-d", "16", avif.path, back.path])
                    #expect(decoded == 0)
                    guard decoded == 0 else { continue }
                    let ours = try coders.decode(Data(contentsOf: avif), options: DecodeOptions(pixelFormat: .rgba8))
                    let reference = try coders.decode(Data(contentsOf: back), options: DecodeOptions(pixelFormat: .rgba8))
                    let db = Self.psnr(ours.buffer, reference.buffer)
                    #expect(db >= 40, "\(yuv) \(range) \(depth)-bit: \(db) dB against avifdec")
                    // Asked for premultiplied ARGB, an opaque image is written by libavif in that
                    // byte order directly: the same pixels.
                    let argb = try coders.decode(Data(contentsOf: avif))
                    #expect(argb.buffer.format == .argb32Premultiplied && argb.buffer.converted(to: .rgba8) == ours.buffer)
                    let info = try coders.info(of: Data(contentsOf: avif))
                    #expect(info.bitDepth == Int(depth) && info.isGrayscale == (yuv == "400"))
                    checked += 1
                }
            }
        }
        #expect(checked == 18)
    }

    @Test(
        "the encoder reads each layout Imago keeps as it lies: RGB, RGBA and premultiplied BGRA give the same file's pixels",
        .enabled(if: AVIFCoder().canEncode(.avif), "libavif has no AV1 encoder here"))
    func layouts() throws {
        let avif = AVIFCoder()
        let lossless = EncodeOptions(lossless: true)
        func back(_ buffer: PixelBuffer) throws -> PixelBuffer {
            let data = try avif.encode(Image(buffer: buffer), as: .avif, options: lossless)
            return try coders.decode(data, options: DecodeOptions(pixelFormat: .rgba8)).buffer
        }
        let opaque = try Fixtures.noisy(width: 61, height: 37)
        let expected = try back(opaque)
        #expect(expected == opaque, "lossless: every pixel back")
        #expect(try back(opaque.converted(to: .rgb8)) == expected)
        #expect(try back(opaque.converted(to: .argb32Premultiplied)) == expected)
        #expect(try back(opaque.converted(to: .gray8).converted(to: .rgba8)) == back(opaque.converted(to: .gray8)))
        // Translucent: premultiplied colour is divided back, to within the premultiplication's rounding.
        let translucent = try Fixtures.noisy(width: 61, height: 37, alpha: true)
        let straight = try back(translucent)
        let premultiplied = try back(translucent.converted(to: .argb32Premultiplied))
        #expect(premultiplied.width == straight.width && premultiplied.height == straight.height)
        var worst = 0
        straight.withUnsafeBytes { a in
            premultiplied.withUnsafeBytes { b in
                for i in 0..<a.count {
                    let alpha = Int(a[i - i % 4 + 3])
                    #expect(Int(b[i - i % 4 + 3]) == alpha)
                    // A premultiplied channel keeps about alpha/255 of its steps.
                    if i % 4 != 3, alpha >= 32 { worst = max(worst, abs(Int(a[i]) - Int(b[i])) * alpha / 255) }
                }
            }
        }
        #expect(worst <= 1, "colour off by \(worst) steps of premultiplied value")
    }

    @Test(
        "encoding with libavif: lossless is exact, lossy is close and smaller at lower quality, alpha and sequences survive",
        .enabled(if: AVIFCoder().canEncode(.avif), "libavif has no AV1 encoder here"))
    func encoding() throws {
        let avif = AVIFCoder()
        #expect(coders.encoder(for: .avif) is AVIFCoder)
        #expect(AVIFCoder.quantizer(forQuality: 100) == 0 && AVIFCoder.quantizer(forQuality: 0) == 63)
        #expect(AVIFCoder.speed(forEffort: nil) == AVIFCoder.defaultSpeed && AVIFCoder.speed(forEffort: 1) == 10)
        var bytes = [UInt8](repeating: 255, count: 64 * 48 * 4)
        for y in 0..<48 {
            for x in 0..<64 {
                let o = (y * 64 + x) * 4
                bytes[o] = UInt8(x * 4)
                bytes[o + 1] = UInt8(y * 5)
                bytes[o + 2] = UInt8((x + y) * 2)
                bytes[o + 3] = UInt8(255 - x * 2)
            }
        }
        let source = try PixelBuffer(width: 64, height: 48, format: .rgba8, bytes: bytes)
        let lossless = try avif.encode(Image(buffer: source), as: .avif, options: EncodeOptions(lossless: true))
        let back = try coders.decode(lossless, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(back.buffer == source, "lossless AVIF (4:4:4, identity matrix) gives every pixel and alpha back")
        let losslessInfo = try coders.info(of: lossless)
        #expect(back.hasAlpha && losslessInfo.hasAlpha)

        let opaque = Image(buffer: source.converted(to: .rgb8))
        let high = try avif.encode(opaque, as: .avif, options: EncodeOptions(quality: 0.9))
        let low = try avif.encode(opaque, as: .avif, options: EncodeOptions(quality: 0.3))
        #expect(low.count < high.count)
        let highBack = try coders.decode(high, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(Self.psnr(highBack.buffer, source.converted(to: .rgba8)) > 38)
        let highInfo = try coders.info(of: high)
        #expect(!highInfo.hasAlpha)

        let frames = (0..<3).map { i -> ImageFrame in
            var b = source
            b.withUnsafeMutableBytes { p in for k in stride(from: i * 400, to: i * 400 + 800, by: 4) { p[k] = 0 } }
            return ImageFrame(buffer: b, duration: 0.05 * Double(i + 1))
        }
        let sequence = try avif.encode(try Image(frames: frames, loopCount: 0), as: .avif, options: EncodeOptions(quality: 0.8))
        let info = try coders.info(of: sequence)
        #expect(info.frameCount == 3)
        #expect(info.durations.map { ($0 * 1000).rounded() } == [50, 100, 150])
        let decoded = try coders.decode(sequence, options: DecodeOptions(pixelFormat: .rgba8))
        #expect(decoded.frameCount == 3)
        if Self.toolsPresent {
            let dir = try TestFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("seq.avif")
            try sequence.write(to: file)
            let (status, report) = try Self.tool(Self.avifdec, ["--info", file.path])
            #expect(status == 0 && report.contains("3 frames"), "\(report)")
        }
    }

    @Test(
        "the corpus's AVIF files decode or fail with a typed error; damaged ones never crash",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func corpusSweep() throws {
        var decoded = 0, failed = 0
        for url in Corpus.files(in: "libavif", extensions: ["avif"]) {
            let data = try Data(contentsOf: url)
            do {
                _ = try coders.decode(data)
                decoded += 1
            } catch is ImageCodingError { failed += 1 }
            for cut in [16, data.count / 2] where cut < data.count {
                do { _ = try coders.decode(data.prefix(cut)) } catch is ImageCodingError {}
            }
        }
        #expect(decoded >= 45)
        print("AVIF corpus sweep: \(decoded) decoded, \(failed) typed errors")
        var limits = DecodingLimits.default
        limits.maxPixels = 1000
        #expect(throws: ImageCodingError.self) {
            try coders.decode(Corpus.data("libavif/colors-animated-8bpc.avif"), options: DecodeOptions(limits: limits))
        }
    }

    @Test(
        "an encode limited to one thread (a background encode) is as good: AVIF within 0.5 dB, WebP the same bytes",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func oneThread() throws {
        let photo = try coders.decode(
            Corpus.data("exif-orientation/Landscape_1.jpg"), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 600, height: 600)))
        let source = photo.buffer.converted(to: PixelFormat.rgb8)
        var single = EncodeOptions(quality: 0.63)
        single.maxThreads = 1
        single.effort = 2
        var threaded = single
        threaded.maxThreads = nil
        if AVIFCoder().canEncode(.avif) {
            let one = try coders.decode(try AVIFCoder().encode(photo, as: .avif, options: single)).buffer
            let many = try coders.decode(try AVIFCoder().encode(photo, as: .avif, options: threaded)).buffer
            let a = PixelMetrics.psnr(one, source), b = PixelMetrics.psnr(many, source)
            #expect(a > 30 && abs(a - b) < 0.5, "one thread \(a) dB, threaded \(b) dB")
        }
        single.effort = 7
        threaded.effort = 7
        let webpOne = try coders.encode(photo, as: .webp, options: single)
        let webpMany = try coders.encode(photo, as: .webp, options: threaded)
        #expect(webpOne == webpMany)
    }
}
