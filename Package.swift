// swift-tools-version: 6.2
// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import PackageDescription

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `IMAGO_WARNINGS_AS_ERRORS=1` (set by `make test`, so CI) turns every warning in Imago's own
/// targets into an error. Only these targets: dependencies keep their warnings, and a package
/// that depends on Imago never sees the setting.
let warningsAsErrors = ProcessInfo.processInfo.environment["IMAGO_WARNINGS_AS_ERRORS"] == "1"

let warnings: [SwiftSetting] = warningsAsErrors ? [.treatAllWarnings(as: .error)] : []

let strict: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault")
    ] + warnings

/// `IMAGO_SYMBOL_GRAPHS=DIR` (set by `scripts/docs`, and by `make test`, whose build the
/// documentation then reuses) has the compiler write each documented library's symbol graph into
/// DIR/TARGET as it compiles the target, so the documentation needs no second build per target.
/// Only for this package as the root: a package that depends on Imago never sees the setting.
let symbolGraphs = ProcessInfo.processInfo.environment["IMAGO_SYMBOL_GRAPHS"] ?? ""

func documented(_ target: String) -> [SwiftSetting] {
    guard !symbolGraphs.isEmpty else { return [] }
    return [
        .unsafeFlags([
            "-emit-symbol-graph", "-emit-symbol-graph-dir", "\(symbolGraphs)/\(target)",
            "-symbol-graph-minimum-access-level", "public", "-emit-extension-block-symbols"
        ])
    ]
}

let strictC: [CSetting] = warningsAsErrors ? [.treatAllWarnings(as: .error)] : []

let package = Package(
    name: "Imago",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Imago", targets: ["Imago"]),
        .library(name: "ImagoCore", targets: ["ImagoCore"]),
        .library(name: "ImagoCoders", targets: ["ImagoCoders"]),
        .library(name: "ImagoProcessing", targets: ["ImagoProcessing"]),
        .library(name: "ImagoCache", targets: ["ImagoCache"]),
        .library(name: "ImagoLoading", targets: ["ImagoLoading"]),
        .library(name: "ImagoAnimation", targets: ["ImagoAnimation"]),
        .library(name: "ImagoServiceURL", targets: ["ImagoServiceURL"]),
        .library(name: "ImagoServer", targets: ["ImagoServer"]),
        // OpenCV's face detector behind a C interface, a shared library of its own that
        // ImagoProcessing's FaceDetector opens on first use (libImagoFaceDetector.so beside the
        // executable, or in ../lib/imago): a process that never looks for a face never maps OpenCV.
        .library(name: "ImagoFaceDetector", type: .dynamic, targets: ["CImagoFaceDetector"]),
        // poppler's renderer (Splash, as pdftoppm draws) behind a C interface, a shared library of
        // its own that ImagoCoders' PDFCoder opens on first use (libImagoPDF.so beside the
        // executable, or in ../lib/imago): a process that never reads a PDF never maps poppler.
        .library(name: "ImagoPDF", type: .dynamic, targets: ["CImagoPDF"]),
        .executable(name: "imago", targets: ["ImagoCLI"]),
        .executable(name: "imago-fetch", targets: ["ImagoFetchCLI"]),
        .executable(name: "imago-server", targets: ["ImagoServerCLI"])
    ],
    // OTLP: imago-server exports spans over OTLP with swift-otel (`swift build --traits OTLP`;
    // `make test` builds with it). Off by default: swift-otel brings SwiftProtobuf, which links
    // Foundation with ICU, about 9 MB of resident size in every process, exporting or not.
    traits: [.trait(name: "OTLP", description: "imago-server exports spans over OTLP/HTTP with swift-otel")],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        // No traits: without FullFoundation (DateFormatter in form coding, unused here) and
        // ConfigurationSupport (swift-configuration, unused here) imago-server links
        // FoundationEssentials alone, not Foundation with ICU.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        // Spans for the pipeline's stages (the API only; nothing is exported without a tracer).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.6.0"),
        // OTLP export of those spans, in imago-server only, with the OTLP trait; OTLP over HTTP
        // alone (no gRPC stack).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // `swift package generate-documentation --target Imago`; a plugin only, nothing is linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0")
    ],
    targets: [
        // Pure Swift: pixel buffers, Image, formats and sniffing, errors, limits.
        .target(name: "ImagoCore", swiftSettings: strict + documented("ImagoCore")),

        // C libraries, each through a module-map system-library target.
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CImageQuant", pkgConfig: "imagequant", providers: [.apt(["libimagequant-dev"])]),
        // libheif's headers only: the library is loaded on first use (CImagoGlue/heif_loader.c).
        .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
        // libjxl's headers only: the library is loaded on first use (CImagoGlue/jxl_loader.c).
        .systemLibrary(name: "CJXL", providers: [.apt(["libjxl-dev"])]),
        // libavif's headers only: the library is loaded on first use (CImagoGlue/avif_loader.c).
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),
        // libtiff's headers only: the library is loaded on first use (CImagoGlue/tiff_glue.c).
        .systemLibrary(name: "CTIFF", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "COpenJPEG", pkgConfig: "libopenjp2", providers: [.apt(["libopenjp2-7-dev"])]),
        // giflib ships no pkg-config file.
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(
            name: "CLCMS2", pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(
            name: "CPixman", pkgConfig: "pixman-1",
            providers: [.apt(["libpixman-1-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        // The coders' C: setjmp/longjmp trampolines and I/O managers for libjpeg and libpng,
        // libtiff's variadic tag accessors and va_list error handler, which Swift cannot call, and
        // the stand-ins that load libheif on first use.
        .target(name: "CImagoGlue", dependencies: ["CJPEG", "CPNG", "CTIFF", "CHeif", "CJXL", "CAVIF"], cSettings: strictC),
        // The command-line tools' own C: exec of the sibling executable, the terminal's size, and
        // SVG's default language set at start-up.
        .target(name: "CImagoCLIGlue", dependencies: ["CImagoGlue"], cSettings: strictC),
        // imago-server's process tuning: glibc's malloc settings and trimming, the open-file limit.
        .target(name: "CImagoHeap", cSettings: strictC),
        // imago-server's worker threads pinned to CPUs (sched_setaffinity, which Swift's Glibc does not import).
        .target(name: "CImagoThreads", cSettings: strictC),
        // imago-server's start-up hooks: glibc's arena cap and SVG's default language, which must be
        // set before any thread exists.
        .target(name: "CImagoServerStart", dependencies: ["CImagoGlue"], cSettings: strictC),
        .target(name: "CImagoResample", cSettings: strictC),
        // Isolated decoding's system calls: worker processes, descriptors over sockets, memory
        // files, and the sandbox (rlimits, namespaces, Landlock, seccomp through libseccomp,
        // loaded when a worker starts).
        .target(name: "CImagoSandbox", cSettings: strictC),
        // The C++ of the face detector (OpenCV 4's detectors have no C interface), only in the
        // ImagoFaceDetector library. `opencv/opencv2` links to Debian's /usr/include/opencv4/opencv2
        // (libopencv-objdetect-dev ships no pkg-config file).
        .target(
            name: "CImagoFaceDetector", exclude: ["opencv"],
            cxxSettings: [.headerSearchPath("opencv")] + (warningsAsErrors ? [.treatAllWarnings(as: .error)] : []),
            linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),
        // The C++ of PDF rendering (poppler's core, whose Splash renderer has no C interface), only
        // in the ImagoPDF library. `poppler` links to Debian's /usr/include/poppler
        // (libpoppler-private-dev), whose headers include each other from that folder.
        .target(
            name: "CImagoPDF", exclude: ["poppler"],
            cxxSettings: [.headerSearchPath("poppler")] + (warningsAsErrors ? [.treatAllWarnings(as: .error)] : []),
            linkerSettings: [.linkedLibrary("poppler")]),
        // The disk cache's system layer: the SQLite manifest and POSIX file I/O, the only C pointers below the coders.
        .target(name: "ImagoDiskIO", dependencies: ["CSQLite"], swiftSettings: strict),

        .target(
            name: "ImagoCoders",
            dependencies: [
                "ImagoCore", "CImagoGlue", "CImagoSandbox", "CJPEG", "CPNG", "CWebP", "CGIF", "CHeif", "CJXL", "CAVIF", "CImageQuant", "CLCMS2",
                "COpenJPEG", "CZlib"
            ],
            swiftSettings: strict + documented("ImagoCoders")),

        .target(
            name: "ImagoProcessing", dependencies: ["ImagoCore", "ImagoCoders", "CPixman", "CImagoResample", "CImageQuant", "CImagoGlue"],
            swiftSettings: strict + documented("ImagoProcessing")),

        .target(
            name: "ImagoCache",
            dependencies: ["ImagoCore", "ImagoCoders", "ImagoDiskIO"],
            swiftSettings: strict + documented("ImagoCache")),

        .target(
            name: "ImagoLoading",
            dependencies: [
                "ImagoCore", "ImagoCoders", "ImagoProcessing", "ImagoCache",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // AWS Signature Version 4 for object-storage sources (HMAC-SHA256, SHA-256).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict + documented("ImagoLoading")),

        .target(name: "ImagoAnimation", dependencies: ["ImagoCore", "ImagoCoders"], swiftSettings: strict + documented("ImagoAnimation")),

        // libFuzzer targets for Imago's own parsers and the coders' C glue, one function each:
        // the `imago-fuzz` executable below runs them (scripts/fuzz), the tests replay their
        // regression inputs (Fuzz/regressions) and run each over a few inputs of their own.
        .target(
            name: "ImagoFuzzTargets", dependencies: ["ImagoCore", "ImagoCoders", "ImagoProcessing", "ImagoServiceURL"],
            swiftSettings: strict),

        // The service's URL contract (imgproxy's): options, parser, signer, builder. Apps that only
        // build signed URLs depend on this alone (swift-crypto for the HMAC, nothing else).
        .target(
            name: "ImagoServiceURL",
            dependencies: ["ImagoCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict + documented("ImagoServiceURL")),

        // The HTTP image service: imgproxy's URLs over the loading pipeline, on Hummingbird 2.
        .target(
            name: "ImagoServer",
            dependencies: [
                "ImagoCore", "ImagoCoders", "ImagoProcessing", "ImagoCache", "ImagoLoading", "ImagoDiskIO", "ImagoServiceURL",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strict + documented("ImagoServer")),

        .target(
            name: "Imago", dependencies: ["ImagoCore", "ImagoCoders", "ImagoProcessing", "ImagoCache", "ImagoLoading", "ImagoAnimation"],
            swiftSettings: strict),

        // What both executables share: console output, error lines, format names.
        .target(
            name: "ImagoCommandLine",
            dependencies: [
                "ImagoCore", "ImagoCoders", "ImagoProcessing", "ImagoCache", "ImagoDiskIO", "ImagoAnimation", "CImagoCLIGlue",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strict),
        // `imago`: everything but the network, which would add about 2 MB to every command's start-up.
        .executableTarget(
            name: "ImagoCLI",
            dependencies: [
                "ImagoCore", "ImagoCoders", "ImagoProcessing", "ImagoCache", "ImagoAnimation", "ImagoCommandLine", "CImagoCLIGlue",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strict),
        // `imago-fetch`, which `imago fetch` runs: the loading pipeline over AsyncHTTPClient.
        .executableTarget(
            name: "ImagoFetchCLI",
            dependencies: [
                "Imago", "ImagoCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strict),

        // `imago-server`, which `imago serve` runs: the service, its settings as flags, `sign`, and
        // what concerns the whole process (malloc, the workers' CPUs, trimming, open files).
        .executableTarget(
            name: "ImagoServerCLI",
            dependencies: [
                "CImagoServerStart", "CImagoHeap", "CImagoThreads", "ImagoCore", "ImagoCoders", "ImagoServer", "ImagoServiceURL", "ImagoCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"]))
            ],
            swiftSettings: strict),

        // Helpers shared by the test targets: corpus location, MD5, synthetic fixtures, a scripted
        // HTTP server, mocks of the pipeline's loader and caches, and the SSRF tests' resolver and
        // connection counter.
        .target(
            name: "ImagoTestSupport",
            dependencies: [
                "ImagoCore", "ImagoCache", "ImagoLoading", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client")
            ],
            path: "Tests/ImagoTestSupport", swiftSettings: warnings),
        .testTarget(name: "ImagoCoreTests", dependencies: ["ImagoCore", "ImagoTestSupport"], swiftSettings: strict),
        // Child process for the isolation tests: a decoder worker whose PNG decoder faults on marked input.
        .executableTarget(
            name: "ImagoDecoderWorkerProbe", dependencies: ["ImagoCoders", "ImagoCore", "CImagoSandbox"],
            path: "Tests/ImagoDecoderWorkerProbe", swiftSettings: strict),
        .testTarget(
            name: "ImagoCodersTests", dependencies: ["ImagoCoders", "ImagoTestSupport", "ImagoDecoderWorkerProbe", "CImagoSandbox", "CZlib", "CHeif"],
            swiftSettings: strict),
        .testTarget(name: "ImagoDiskIOTests", dependencies: ["ImagoDiskIO"], swiftSettings: strict),
        // Child process for the disk cache's kill -9 test: writes until killed.
        .executableTarget(
            name: "ImagoCacheCrashWriter", dependencies: ["ImagoCache"],
            path: "Tests/ImagoCacheCrashWriter", swiftSettings: strict),
        .testTarget(
            name: "ImagoProcessingTests", dependencies: ["ImagoProcessing", "ImagoTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ImagoCacheTests", dependencies: ["ImagoCache", "ImagoTestSupport", "ImagoCacheCrashWriter"],
            swiftSettings: strict),
        // Child process for the exit-flush test: loads one URL and returns from main.
        .executableTarget(
            name: "ImagoLoadingExitProbe", dependencies: ["ImagoLoading", "ImagoCache"],
            path: "Tests/ImagoLoadingExitProbe", swiftSettings: strict),
        .testTarget(
            name: "ImagoLoadingTests",
            dependencies: [
                "ImagoLoading", "ImagoTestSupport", "ImagoLoadingExitProbe", "ImagoDecoderWorkerProbe",
                .product(name: "AsyncHTTPClient", package: "async-http-client")
            ],
            swiftSettings: strict),
        // Child process for the tracing test: a library load exported over OTLP, as an app sets it up.
        .executableTarget(
            name: "ImagoTracingProbe",
            dependencies: [
                "ImagoLoading", "ImagoCore", .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OTLP"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log")
            ],
            path: "Tests/ImagoTracingProbe", swiftSettings: strict),
        .testTarget(name: "ImagoServiceURLTests", dependencies: ["ImagoServiceURL"], swiftSettings: strict),
        .testTarget(
            name: "ImagoServerTests",
            dependencies: [
                "ImagoServer", "ImagoServiceURL", "ImagoServerCLI", "ImagoCLI", "ImagoTracingProbe", "ImagoDecoderWorkerProbe", "ImagoTestSupport",
                "ImagoCore", "ImagoCoders",
                "ImagoLoading", "ImagoProcessing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing")
            ],
            swiftSettings: strict),
        .testTarget(name: "ImagoAnimationTests", dependencies: ["ImagoAnimation", "ImagoTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ImagoFuzzTargetsTests", dependencies: ["ImagoFuzzTargets", "ImagoCore", "ImagoCoders", "ImagoTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "ImagoTests", dependencies: ["Imago", "ImagoCLI", "ImagoFetchCLI", "ImagoCommandLine", "ImagoTestSupport"], swiftSettings: strict)
    ],
    swiftLanguageModes: [.v6]
)

/// `IMAGO_FUZZ=1` (set by scripts/fuzz) adds `imago-fuzz`, libFuzzer over the fuzz targets. It has
/// no `main` of its own (libFuzzer's is linked in), so it builds only with `--sanitize=fuzzer`,
/// and never as part of the package otherwise.
if let fuzz = ProcessInfo.processInfo.environment["IMAGO_FUZZ"], !fuzz.isEmpty {
    package.targets.append(
        // libImagoPDF's C++ linked in, so that it is instrumented too (pdf_loader.c finds it linked).
        .executableTarget(name: "ImagoFuzz", dependencies: ["ImagoFuzzTargets", "CImagoPDF"], path: "Fuzz/ImagoFuzz", swiftSettings: strict))
    package.products.append(.executable(name: "imago-fuzz", targets: ["ImagoFuzz"]))
}
