// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

/// Mutation fuzzing of every decoder through every entry point: a small valid file of each
/// format (made here, or taken from the corpus) is damaged in deterministic ways — bit flips,
/// random bytes, header fields set to boundary values, ranges deleted or repeated, truncation —
/// and each mutant goes through `info`, a one-shot decode, a lazy decode with its frames, a
/// thumbnail decode and a progressive decode fed in pieces. Each must end in a result or an
/// ``ImageCodingError``; a crash or a trap fails the whole run, so none may happen.
@Suite("Mutation fuzzing: every decoder, every entry point")
struct MutationFuzzTests {
    static let coders = ImageCoderRegistry.makeDefault()
    /// Tight limits keep each mutant fast and exercise the limit checks.
    static let limits = DecodingLimits(maxPixels: 1 << 20, maxFrames: 64, maxTotalFramePixels: 1 << 23, maxBytes: 4 << 20)
    /// 150 per seed in the suite; set `IMAGO_FUZZ_MUTANTS` for a longer hunt.
    static let mutantsPerSeed = Int(ProcessInfo.processInfo.environment["IMAGO_FUZZ_MUTANTS"] ?? "") ?? 150

    /// Three 24×20 frames that differ, with transparency, for the animated formats.
    static func animation() throws -> Image {
        let frames = try (0..<3).map { i -> ImageFrame in
            var buffer = try Fixtures.gradient(width: 24, height: 20, alpha: true)
            buffer.withUnsafeMutableBytes { bytes in
                for p in stride(from: i * 40, to: min(bytes.count, i * 40 + 160), by: 4) {
                    bytes[p] = 0
                    bytes[p + 3] = 0
                }
            }
            return ImageFrame(buffer: buffer, duration: 0.05 * Double(i + 1))
        }
        return try Image(frames: frames, loopCount: 2)
    }

    /// Seeds Imago can make itself, by name.
    static func madeSeeds() async throws -> [(String, Data)] {
        let still = Image(buffer: try Fixtures.gradient(width: 40, height: 30, alpha: true))
        let opaque = Image(buffer: try Fixtures.gradient(width: 40, height: 30))
        let anim = try animation()
        var seeds: [(String, Data)] = [
            ("jpeg", try coders.encode(opaque, as: .jpeg)),
            ("jpeg-progressive", try coders.encode(opaque, as: .jpeg, options: EncodeOptions(progressive: true))),
            ("png", try coders.encode(still, as: .png)),
            ("png-interlaced", try coders.encode(still, as: .png, options: EncodeOptions(progressive: true))),
            ("apng", try coders.encode(anim, as: .apng)),
            ("gif", try coders.encode(anim, as: .gif)),
            ("webp-lossy", try coders.encode(still, as: .webp)),
            ("webp-lossless", try coders.encode(still, as: .webp, options: EncodeOptions(lossless: true))),
            ("webp-animated", try coders.encode(anim, as: .webp)),
            ("tiff", try coders.encode(still, as: .tiff)),
            ("tiff-pages", try coders.encode(anim, as: .tiff)),
            ("bmp", try coders.encode(still, as: .bmp)),
            ("icns", ICNSTests.icns([("ic07", try coders.encode(still, as: .png))]))
        ]
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Made by openjpeg's opj_compress (libopenjp2-tools, installed by scripts/bootstrap), whose
        // default six resolution levels need 32 pixels a side.
        let larger = Image(buffer: try Fixtures.gradient(width: 48, height: 40, alpha: true))
        for ext in ["jp2", "j2k"] {
            seeds.append((ext, try #require(try await JPEG2000Tests.fixture(larger, ext: ext, in: dir), "opj_compress is missing")))
        }
        let jxl = JXLCoder()
        if jxl.canEncode(.jxl) {
            seeds.append(("jxl-lossy", try coders.encode(still, as: .jxl, options: EncodeOptions(quality: 0.7))))
            seeds.append(("jxl-lossless", try coders.encode(still, as: .jxl, options: EncodeOptions(lossless: true))))
            seeds.append(("jxl-animated", try coders.encode(anim, as: .jxl, options: EncodeOptions(lossless: true))))
        }
        if SVGCoder().canDecode(.svg) {
            seeds.append(
                (
                    "svg",
                    SVGTests.svg(
                        """
                        <defs><linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient>
                        <filter id="f"><feGaussianBlur stdDeviation="1"/></filter></defs>
                        <rect width="40" height="20" fill="url(#g)"/><circle cx="10" cy="10" r="6" filter="url(#f)"/>
                        <path d="M0 0 L40 20 Q20 0 0 20 Z" stroke="green" fill="none"/><use href="#c" x="5"/>
                        """)
                ))
        }
        if PDFCoder().canDecode(.pdf) {
            seeds.append(("pdf", PDFTests.pdf(width: 40, height: 30, pages: 2)))
        }
        let heif = HEIFCoder()
        for format in [ImageFormat.heic, .avif] where heif.canEncode(format) && heif.canDecode(format) {
            seeds.append((format.rawValue, try coders.encode(opaque, as: format, options: EncodeOptions(quality: 0.5))))
        }
        return seeds
    }

    /// Seeds from the corpus: the formats whose parsers Imago wrote itself, in variants it does not write.
    static let corpusSeeds = [
        "pillow/bmp/bmpsuite/g/pal8rle.bmp", "pillow/bmp/bmpsuite/g/pal4rle.bmp", "pillow/bmp/bmpsuite/g/rgb16-565.bmp",
        "pillow/bmp/bmpsuite/g/pal8os2.bmp", "pillow/ico/hopper.ico", "pillow/ico/hopper_mask.ico",
        "pillow/ico/deerstalker.cur",
        // libavif's reader: an image sequence, and a still with clap, irot and imir.
        "libavif/colors-animated-8bpc.avif", "libavif/clap_irot_imir_non_essential.avif",
        // librsvg and poppler: a real-world icon, and a page with an embedded font and a shading.
        "resvg/librsvg/adwaita/alarm-symbolic.svg", "pdf/simpletype3font.pdf"
    ]

    @Test("mutants of files Imago makes: a result or a typed error from every entry point", .timeLimit(.minutes(10)))
    func madeMutants() async throws {
        let seeds = try await Self.madeSeeds()
        #expect(seeds.count >= 15)
        for (name, data) in seeds {
            // Most mutants of XML are not UTF-8 or not well-formed, so none of the SVG's may decode;
            // the seed itself must (fuzz checks it), and every mutant must still get a typed error.
            let decoded = try await Self.fuzz(name, data)
            #expect(decoded > 0 || name == "svg", "\(name): no mutant decoded; the seed itself may be broken")
        }
    }

    @Test(
        "mutants of corpus BMP, ICO and CUR files", .enabled(if: Corpus.isAvailable, Corpus.missingReason),
        .timeLimit(.minutes(5)))
    func corpusMutants() async throws {
        for path in Self.corpusSeeds {
            #expect(try await Self.fuzz(path, try Corpus.data(path)) > 0, "\(path)")
        }
    }

    /// Runs every mutant of `seed` through every entry point; returns how many decoded. Yields
    /// after each mutant: minutes of decoding must not hold a thread of the cooperative pool
    /// (2 on CI) that the parallel tests' loads wait for.
    static func fuzz(_ name: String, _ seed: Data) async throws -> Int {
        // The seed itself must decode, or the mutants prove little.
        _ = try coders.decode(seed, options: DecodeOptions(limits: limits))
        var rng = SplitMix(seed: UInt64(truncatingIfNeeded: name.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
        var decoded = 0
        for n in 0..<mutantsPerSeed {
            await Task.yield()
            let mutant = mutate(seed, &rng)
            func attempt(_ entry: String, _ body: () throws -> Void) {
                do { try body() } catch is ImageCodingError {} catch {
                    Issue.record("\(name) mutant \(n), \(entry): untyped error \(error)")
                }
            }
            attempt("info") { _ = try coders.info(of: mutant) }
            attempt("decode") {
                _ = try coders.decode(mutant, options: DecodeOptions(limits: limits))
                decoded += 1
            }
            attempt("lazy frames") {
                let image = try coders.decode(mutant, options: DecodeOptions(decodesFramesLazily: true, limits: limits))
                for i in 0..<min(image.frameCount, 8) { _ = try image.frame(at: i) }
            }
            attempt("thumbnail") {
                _ = try coders.decode(
                    mutant,
                    options: DecodeOptions(
                        firstFrameOnly: true, thumbnailPixelSize: PixelSize(width: 8, height: 8),
                        limits: limits))
            }
            attempt("progressive") {
                guard let decoder = coders.makeProgressiveDecoder(for: mutant.prefix(64), options: DecodeOptions(limits: limits)) else { return }
                let cuts = [mutant.count / 3, mutant.count * 2 / 3, mutant.count]
                for (i, cut) in cuts.enumerated() {
                    try decoder.update(mutant.prefix(cut), isFinal: i == cuts.count - 1)
                    _ = try decoder.currentImage()
                }
            }
        }
        return decoded
    }

    /// One to four damages, half of them in the first 64 bytes where the headers are.
    static func mutate(_ data: Data, _ rng: inout SplitMix) -> Data {
        var bytes = [UInt8](data)
        let interesting: [UInt32] = [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF]
        func position() -> Int {
            guard !bytes.isEmpty else { return 0 }
            let span = rng.next() % 2 == 0 ? min(64, bytes.count) : bytes.count
            return Int(rng.next() % UInt64(span))
        }
        for _ in 0..<(1 + Int(rng.next() % 4)) where !bytes.isEmpty {
            let p = position()
            switch rng.next() % 7 {
            case 0: bytes[p] ^= UInt8(truncatingIfNeeded: 1 << (rng.next() % 8))
            case 1: bytes[p] = UInt8(truncatingIfNeeded: rng.next())
            case 2, 3:
                // A 16- or 32-bit field, either byte order, set to a boundary value.
                let value = interesting[Int(rng.next() % UInt64(interesting.count))]
                let width = rng.next() % 2 == 0 ? 2 : 4
                let bigEndian = rng.next() % 2 == 0
                for k in 0..<width where p + k < bytes.count {
                    let shift = bigEndian ? (width - 1 - k) * 8 : k * 8
                    bytes[p + k] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
                }
            case 4:
                let length = min(bytes.count - p, 1 + Int(rng.next() % 64))
                bytes.removeSubrange(p..<(p + length))
            case 5:
                let length = min(bytes.count - p, 1 + Int(rng.next() % 256))
                bytes.insert(contentsOf: bytes[p..<(p + length)], at: p)
            default:
                bytes.removeSubrange(p...)
            }
        }
        return Data(bytes)
    }
}
