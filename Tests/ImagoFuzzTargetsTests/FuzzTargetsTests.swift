// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoFuzzTargets
import ImagoTestSupport
import Testing

/// The fuzz targets without libFuzzer or sanitisers: every crash input kept in
/// `Fuzz/regressions/<target>/` replayed through its target, and a short smoke run of every
/// target over inputs made here (empty, random, and damaged copies of small valid files). A trap
/// in a target stops the whole test process, so none may happen.
@Suite("Fuzz targets: kept crash inputs and a smoke run")
struct FuzzTargetsTests {
    /// `Fuzz/regressions`, in the checkout these tests are built from.
    static let regressions = TestFiles.projectRoot.appendingPathComponent("Fuzz/regressions")

    @Test("every target has its own name, and is found by it")
    func names() {
        let names = FuzzTargets.all.map(\.name)
        #expect(Set(names).count == names.count)
        for name in names { #expect(FuzzTargets.named(name) != nil, "\(name)") }
        #expect(FuzzTargets.named("no such target") == nil)
    }

    @Test("every kept crash input goes through its target without a trap", .timeLimit(.minutes(2)))
    func keptCrashInputs() async throws {
        let folders = (try? FileManager.default.contentsOfDirectory(at: Self.regressions, includingPropertiesForKeys: nil)) ?? []
        for folder in folders.sorted(by: { $0.path < $1.path }) {
            guard (try? folder.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true else { continue }
            let name = folder.lastPathComponent
            guard let run = FuzzTargets.named(name) else {
                Issue.record("Fuzz/regressions/\(name) names no fuzz target")
                continue
            }
            let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            for file in files.sorted(by: { $0.path < $1.path }) where !file.lastPathComponent.hasPrefix(".") {
                let data = try Data(contentsOf: file)
                await blocking { run(data) }
            }
        }
    }

    @Test("every target takes empty, random and damaged inputs without a trap", .timeLimit(.minutes(2)), arguments: FuzzTargets.all.map(\.name))
    func smoke(_ name: String) async throws {
        let run = try #require(FuzzTargets.named(name))
        let inputs = Self.inputs
        #expect(inputs.count >= 100, "some samples could not be made")
        await blocking {
            for input in inputs { run(input) }
        }
    }

    /// The smoke run's inputs, made once: the empty input, random bytes alone and after each
    /// format's signature, and each sample with its truncations and byte flips.
    static let inputs: [Data] = {
        var rng = SplitMix(seed: 0x1A6_0F22)
        func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
        var inputs = [Data(), Data(random(64)), Data(random(300)), Data(random(1000))]
        let signatures: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Array("GIF89a".utf8), [0x49, 0x49, 0x2A, 0x00],
            Array("BM".utf8), [0, 0, 1, 0], Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8), Array("<svg ".utf8), Array("%PDF-1.4\n".utf8)
        ]
        for signature in signatures { inputs.append(Data(signature + random(200))) }
        for sample in samples() { inputs += mutants(of: sample, &rng) }
        return inputs
    }()

    /// `sample`, three truncations of it, and five copies with one bit flipped, three of them in
    /// the first 64 bytes, where the headers are.
    static func mutants(of sample: Data, _ rng: inout SplitMix) -> [Data] {
        var out = [sample]
        for quarter in 1...3 { out.append(Data(sample.prefix(sample.count * quarter / 4))) }
        guard !sample.isEmpty else { return out }
        for flip in 0..<5 {
            var bytes = [UInt8](sample)
            let span = flip < 3 ? min(64, bytes.count) : bytes.count
            bytes[Int(rng.next() % UInt64(span))] ^= UInt8(1) << UInt8(rng.next() % 8)
            out.append(Data(bytes))
        }
        return out
    }

    /// Small valid inputs for the targets, made here: images Imago encodes (stills, animations,
    /// each container it writes), an EXIF block, IPTC records, an XMP packet, an SVG with what the
    /// sanitiser removes, service paths, preset definitions and markup.
    static func samples() -> [Data] {
        let coders = ImageCoderRegistry.shared
        var out: [Data] = []
        if let still = try? Fixtures.gradient(width: 24, height: 20, alpha: true), let opaque = try? Fixtures.gradient(width: 24, height: 20) {
            let image = Image(buffer: still)
            for format in [ImageFormat.png, .gif, .bmp, .tiff, .webp, .ico, .avif] {
                if let data = try? coders.encode(image, as: format) { out.append(data) }
            }
            if let data = try? coders.encode(Image(buffer: opaque), as: .jpeg) { out.append(data) }
            let frames = [ImageFrame(buffer: still, duration: 0.1), ImageFrame(buffer: opaque, duration: 0.2)]
            if let animation = try? Image(frames: frames, loopCount: 0) {
                for format in [ImageFormat.apng, .gif, .webp] {
                    if let data = try? coders.encode(animation, as: format) { out.append(data) }
                }
            }
        }
        // Big-endian TIFF structure: IFD0 with Orientation 6 and a 10-byte Copyright at offset 38.
        var exif: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 2]
        exif += [0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1, 0x00, 0x06, 0, 0]
        exif += [0x82, 0x98, 0x00, 0x02, 0, 0, 0, 10, 0, 0, 0, 38]
        exif += [0, 0, 0, 0]
        exif += Array("Imago 2026".utf8)
        out.append(Data(exif))
        out.append(Data(Array("Exif\u{0}\u{0}".utf8)) + Data(exif))
        // IPTC: the UTF-8 envelope marker, Keywords twice, and a Copyright Notice.
        var iptc: [UInt8] = [0x1C, 0x01, 0x5A, 0x00, 0x03, 0x1B, 0x25, 0x47]
        for (dataset, value) in [(UInt8(0x19), "photo"), (0x19, "test"), (0x74, "Imago")] {
            iptc += [0x1C, 0x02, dataset, 0x00, UInt8(value.utf8.count)]
            iptc += Array(value.utf8)
        }
        out.append(Data(iptc))
        let texts = [
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" \
            xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" tiff:Orientation="6" hdrgm:Version="1.0" hdrgm:GainMapMax="2.0">\
            <dc:subject><rdf:Bag><rdf:li>photo</rdf:li><rdf:li>test</rdf:li></rdf:Bag></dc:subject>\
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """,
            """
            <?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="24" height="20">\
            <script>alert(1)</script><rect width="24" height="20" fill="red" onclick="alert(2)"/>\
            <a xlink:href="javascript:alert(3)"><circle cx="5" cy="5" r="3"/></a><use href="#c"/></svg>
            """,
            "/insecure/rs:fill:300:200:1/g:sm/q:80/sm:1/plain/http://example.com/images/a.jpg@webp",
            "/info/_/s:1/exif:1/bh:4:3/p:5/aHR0cDovL2V4YW1wbGUuY29tL2EuanBn.png",
            "thumb=rs:fill:120:120/g:sm\nsmall=w:200/pr:thumb\n# comment\nwebp=f:webp/q:75",
            "<span font=\"sans 12\" foreground=\"#ff0000\">Imago</span> <b>bold</b> &amp; <i>italic</i>"
        ]
        out += texts.map { Data($0.utf8) }
        return out
    }
}
