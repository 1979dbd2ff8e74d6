// swift-tools-version: 6.1
// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Benchmarks live in their own package so the library's build and tests never compile them.
import PackageDescription

let package = Package(
    name: "ImagoBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Imago", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0")
    ],
    targets: [
        // package-benchmark suite: `swift package --package-path Benchmarks benchmark`
        .executableTarget(
            name: "DecodeBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Imago", package: "Imago")
            ],
            path: "Benchmarks/DecodeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The Imago side of scripts/bench-peers: decodes one file N times, prints timings.
        .executableTarget(
            name: "imago-decode-timer",
            // Not the umbrella: the network stack would add to the peak memory it reports.
            // ImagoPDF: libImagoPDF.so beside the timer, which PDFCoder opens for the PDF cases.
            dependencies: [
                .product(name: "ImagoCoders", package: "Imago"), .product(name: "ImagoProcessing", package: "Imago"),
                .product(name: "ImagoPDF", package: "Imago")
            ],
            path: "Sources/imago-decode-timer"
        ),
        // Memory-cache benchmark in YYCache's shape (issue: caches).
        .executableTarget(
            name: "imago-cache-bench",
            dependencies: [.product(name: "ImagoCache", package: "Imago")],
            path: "Sources/imago-cache-bench",
            // Shared read-only fixtures used from concurrentPerform threads: measurement code.
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The loading benchmark's Imago side (scripts/bench-loading): manager against bare AsyncHTTPClient.
        .executableTarget(
            name: "imago-load-bench",
            dependencies: [
                .product(name: "ImagoLoading", package: "Imago"), .product(name: "ImagoCache", package: "Imago"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio")
            ],
            path: "Sources/imago-load-bench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The player benchmark's Imago side (scripts/bench-play).
        .executableTarget(
            name: "imago-play-bench",
            dependencies: [.product(name: "ImagoAnimation", package: "Imago"), .product(name: "ImagoCoders", package: "Imago")],
            path: "Sources/imago-play-bench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .systemLibrary(name: "CSQLiteBench", path: "Sources/CSQLiteBench"),
        // Disk-cache benchmark in YYCache's shape (issue: caches).
        .executableTarget(
            name: "imago-disk-bench",
            dependencies: ["CSQLiteBench", .product(name: "ImagoCache", package: "Imago")],
            path: "Sources/imago-disk-bench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        )
    ],
    swiftLanguageModes: [.v6]
)
