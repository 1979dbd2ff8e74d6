// swift-tools-version: 6.2
// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import PackageDescription

// Serves avatars from an origin through ImageManager: square thumbnails at a few sizes, kept
// decoded in memory and as original bytes on disk. Depends on Imago by path; outside this
// repository use .package(url: "https://github.com/imago-swift/imago.git", branch: "main").
let package = Package(
    name: "ThumbnailServer",
    dependencies: [
        .package(name: "imago", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0")
    ],
    targets: [
        .executableTarget(
            name: "ThumbnailServer",
            dependencies: [
                .product(name: "Imago", package: "imago"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types")
            ])
    ]
)
