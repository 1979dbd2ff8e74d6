// swift-tools-version: 6.2
// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import PackageDescription

// A batch thumbnailer: every image under the given paths, resized and re-encoded in parallel,
// with a progress bar. Depends on Imago by path; outside this repository use
// .package(url: "https://github.com/imago-swift/imago.git", branch: "main").
let package = Package(
    name: "BatchThumbnails",
    dependencies: [
        .package(name: "imago", path: "../.."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .executableTarget(
            name: "BatchThumbnails",
            dependencies: [
                .product(name: "ImagoCoders", package: "imago"),
                .product(name: "ImagoProcessing", package: "imago"),
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ])
    ]
)
