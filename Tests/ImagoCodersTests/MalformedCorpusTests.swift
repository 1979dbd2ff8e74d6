// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("Malformed corpus", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct MalformedCorpusTests {
    let coders = ImageCoderRegistry.makeDefault()

    @Test(
        "every file finishes quickly with a decode or a typed error, in bounded memory",
        .timeLimit(.minutes(10)))
    func everyFile() async throws {
        let files = Corpus.files(in: "malformed")
        #expect(files.count > 1000)
        var decoded = 0, failed = 0
        var slowest: (String, Double) = ("", 0)
        // Tight limits keep memory bounded whatever the headers claim.
        let options = DecodeOptions(limits: DecodingLimits(maxPixels: 40_000_000, maxBytes: 64 << 20))
        for url in files {
            // A thousand decodes must not hold a thread of the cooperative pool the parallel
            // tests' loads wait for.
            await Task.yield()
            let data = try Data(contentsOf: url)
            let start = ContinuousClock.now
            do {
                _ = try? coders.info(of: data)
                _ = try coders.decode(data, options: options)
                decoded += 1
            } catch is ImageCodingError {
                failed += 1
            } catch {
                Issue.record("\(url.path): untyped error \(error)")
            }
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            if seconds > slowest.1 { slowest = (url.lastPathComponent, seconds) }
        }
        #expect(decoded + failed == files.count)
        #expect(slowest.1 < 20, "slowest file \(slowest.0) took \(slowest.1) s")
    }

    @Test(
        "decoding every file in one process of its own stays in bounded memory",
        .enabled(if: FileManager.default.isExecutableFile(atPath: TestFiles.builtProduct("ImagoDecoderWorkerProbe").path)),
        .timeLimit(.minutes(10)))
    func boundedMemory() async throws {
        // A process of its own: this test process's peak is every test's that runs beside it
        // (and the probe reads its own high-water mark, which getrusage would not give it).
        let files = Corpus.files(in: "malformed").map(\.path)
        let probe = TestFiles.builtProduct("ImagoDecoderWorkerProbe")
        let (status, out, err) = try await Subprocess.run(probe, ["--decode-all", "40000000", "\(64 << 20)"] + files)
        #expect(status == 0, "\(err)")
        let peak = out.split(separator: "\n").first { $0.hasPrefix("peak-rss ") }.flatMap { Int($0.dropFirst(9)) } ?? Int.max
        print("malformed corpus: \(files.count) files decoded in one process, peak RSS \(peak / 1_000_000) MB")
        // 40 megapixels × 4 bytes is 160 MB for the largest permitted frame, twice that for an
        // HDR frame's 16-bit samples, plus libraries' working memory (71 MB measured in all).
        #expect(peak < 512_000_000, "peak RSS \(peak) bytes")
    }

    @Test("files upstream requires to fail are rejected (JPEG, PNG, WebP ones)")
    func requiredFailures() throws {
        var checked = 0
        let folders = ["malformed/image-png/bugfixes-expected-failures", "malformed/image-rs-image/bad"]
        for folder in folders {
            for url in Corpus.files(in: folder) {
                let data = try Data(contentsOf: url)
                // Upstream's strictness is checked for the formats whose libraries are as strict;
                // libtiff and libheif accept some files image-rs refuses.
                guard let format = ImageFormat(sniffing: data), [.jpeg, .png, .apng, .webp].contains(format) else { continue }
                if folder.hasSuffix("expected-failures"), !url.lastPathComponent.hasPrefix("x") { continue }
                checked += 1
                #expect(throws: ImageCodingError.self, "\(url.lastPathComponent)") { _ = try coders.decode(data) }
            }
        }
        #expect(checked > 0)
    }

    @Test("Wuffs' truncated files are reported as truncated")
    func wuffsTruncated() throws {
        for name in [
            "hippopotamus.regular.truncated.png", "hippopotamus.interlaced.truncated.png",
            "peacock.default.truncated.jpeg", "peacock.progressive.truncated.jpeg"
        ] {
            let data = try Corpus.data("malformed/wuffs/\(name)")
            #expect(
                performing: { _ = try coders.decode(data) },
                throws: { error in
                    if case ImageCodingError.truncated = error { return true }
                    return false
                })
        }
    }
}
