// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Decode benchmarks over the inputs scripts/bench-peers generates (IMAGO_BENCH_DIR,
// default bench-out/inputs). Run: make bench, or
//   IMAGO_BENCH_DIR=$PWD/bench-out/inputs swift package --package-path Benchmarks benchmark
import Benchmark
import Foundation
import Imago

let inputs =
    ProcessInfo.processInfo.environment["IMAGO_BENCH_DIR"]
    ?? FileManager.default.currentDirectoryPath + "/../bench-out/inputs"

func load(_ name: String) -> Data? { try? Data(contentsOf: URL(fileURLWithPath: "\(inputs)/\(name)")) }

nonisolated(unsafe) let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
        maxDuration: .seconds(5), maxIterations: 30)

    let files: [(String, String)] = [
        ("JPEG 24MP baseline", "photo-24mp.jpg"),
        ("JPEG 24MP progressive", "photo-24mp-progressive.jpg"),
        ("PNG 6MP RGBA", "photo-6mp-rgba.png"),
        ("WebP bryce", "bryce.webp")
    ]
    for (label, file) in files {
        guard let data = load(file) else { continue }
        Benchmark("decode \(label)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageCoders.shared.decode(data))
            }
        }
    }
    if let data = load("photo-24mp.jpg"), let info = try? ImageCoders.shared.info(of: data) {
        let eighth = DecodeOptions(thumbnailPixelSize: PixelSize(width: info.width / 8, height: info.height / 8))
        Benchmark("decode JPEG 24MP at 1/8 (DCT scaling)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try ImageCoders.shared.decode(data, options: eighth))
            }
        }
    }
    // 256-px thumbnails: shrink-on-load for JPEG and WebP, a streamed PNG decode, Lanczos3.
    for (label, file) in [
        ("JPEG 24MP", "photo-24mp.jpg"), ("PNG 24MP (streamed)", "photo-24mp.png"),
        ("WebP 12MP", "photo-12mp.webp")
    ] {
        let url = URL(fileURLWithPath: "\(inputs)/\(file)")
        guard FileManager.default.fileExists(atPath: url.path) else { continue }
        Benchmark("thumbnail 256 px of \(label) from file") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try Thumbnailer.thumbnail(of: ImageInput(contentsOf: url), fitting: PixelSize(width: 256, height: 256)))
            }
        }
    }
    // Animations: every frame at once against frame by frame through the lazy source.
    for (label, file) in [("GIF 380 frames", "muybridge.gif")] {
        guard let data = load(file) else { continue }
        Benchmark("decode \(label), all frames") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try ImageCoders.shared.decode(data)) }
        }
        Benchmark("decode \(label), lazily, every frame in turn") { benchmark in
            for _ in benchmark.scaledIterations {
                let image = try ImageCoders.shared.decode(data, options: DecodeOptions(decodesFramesLazily: true))
                for i in 0..<image.frameCount { blackHole(try image.frame(at: i)) }
            }
        }
    }
}
