// Decode benchmarks over the inputs scripts/bench-peers generates (IMAGO_BENCH_DIR,
// default bench-out/inputs). Run: make bench, or
//   IMAGO_BENCH_DIR=$PWD/bench-out/inputs swift package --package-path Benchmarks benchmark
import Benchmark
import Foundation
import Imago

let inputs = ProcessInfo.processInfo.environment["IMAGO_BENCH_DIR"]
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
        ("WebP bryce", "bryce.webp"),
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
}
