// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Usage: imago-load-bench cold|coldwait|disk|memory|bare|keep|large|thumbs URLFILE CACHEDIR ROUNDS
//
// The Imago side of scripts/bench-loading. URLFILE lists one URL per line (nginx on loopback).
//   cold    a new manager over an empty disk cache: download + decode + store every URL, the
//           disk stores in the background as by default (the clock stops when every image is
//           loaded; the stores are then drained, untimed, before the next pass)
//   coldwait the same with .waitStoreCache: every load returns only once its bytes are on disk
//   nodisk  a new manager with no disk cache: download + decode + memory cache, the pipeline alone
//   disk    a new manager over the cache `cold` filled: read + decode every URL from disk
//   memory  one manager, loaded once, then every URL again from memory: latency per hit
//   bare    AsyncHTTPClient alone, 6 requests at a time, each body decoded and dropped
//   keep    the same, keeping every decoded image in a dictionary, as any memory cache must:
//           the floor for `cold`, which holds them in its memory cache
//   large   many large images: a new manager (memory cache of IMAGO_BENCH_MEMORY_MB, default 256,
//           and an empty disk cache), every URL fully decoded, 8 downloads at a time, each image
//           dropped by the caller as it arrives
//   thumbs  the same URLs as 256-px thumbnails, each encoded as a JPEG (what vipsthumbnail does)
// Prints "best_ms median_ms count extra": extra is the median memory-hit latency in µs for
// `memory`, the bytes received for the others.
import AsyncHTTPClient
import Foundation
import ImagoCache
import ImagoCoders
import ImagoCore
import ImagoLoading
import NIOCore

let args = CommandLine.arguments
guard args.count == 5, let rounds = Int(args[4]), rounds > 0 else {
    FileHandle.standardError.write(Data("usage: imago-load-bench cold|disk|memory|bare URLFILE CACHEDIR ROUNDS\n".utf8))
    exit(2)
}
let mode = args[1]
let urls = try String(contentsOfFile: args[2], encoding: .utf8).split(separator: "\n").compactMap { URL(string: String($0)) }
let cacheDir = URL(fileURLWithPath: args[3])
let concurrency = 6

/// Loads every URL through `manager`, all submitted at once (the downloader runs 6 at a time).
func loadAll(_ manager: ImageManager, options: ImageRequest.Options) async throws -> Int {
    try await withThrowingTaskGroup(of: Int.self) { group in
        for url in urls { group.addTask { try await manager.loadImage(with: ImageRequest(url: url, options: options)).data?.count ?? 0 } }
        var bytes = 0
        for try await n in group { bytes += n }
        return bytes
    }
}

func bareLoop(_ client: HTTPClient, keep: Bool) async throws -> Int {
    var kept: [URL: Image] = [:]
    defer { if keep { precondition(kept.count == urls.count) } }
    return try await withThrowingTaskGroup(of: (URL, Image, Int).self) { group in
        var next = 0
        func add() {
            guard next < urls.count else { return }
            let url = urls[next]
            next += 1
            group.addTask {
                let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 256 << 20)
                let data = Data(body.readableBytesView)
                return (url, try ImageCoderRegistry.shared.decode(data), data.count)
            }
        }
        for _ in 0..<concurrency { add() }
        var bytes = 0
        for try await (url, image, n) in group {
            bytes += n
            if keep { kept[url] = image }
            add()
        }
        return bytes
    }
}

var times: [Double] = []
var extra = 0.0
let clock = ContinuousClock()
let client = mode == "bare" || mode == "keep" ? HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup) : nil
for _ in 0..<rounds {
    switch mode {
    case "cold", "coldwait":
        try? FileManager.default.removeItem(at: cacheDir)
        let manager = ImageManager(configuration: ImageManager.Configuration(dataCache: try DiskCache(directory: cacheDir)))
        let start = clock.now
        extra = Double(try await loadAll(manager, options: mode == "coldwait" ? [.waitStoreCache] : []))
        times.append((clock.now - start) / .milliseconds(1))
        await manager.finishPendingStores()
        try await manager.downloader.shutdown()
    case "nodisk":
        // The pipeline alone: memory cache, no disk cache, so no disk reads or writes.
        let manager = ImageManager()
        let start = clock.now
        extra = Double(try await loadAll(manager, options: []))
        times.append((clock.now - start) / .milliseconds(1))
        try await manager.downloader.shutdown()
    case "disk":
        let manager = ImageManager(configuration: ImageManager.Configuration(dataCache: try DiskCache(directory: cacheDir)))
        let start = clock.now
        extra = Double(try await loadAll(manager, options: [.fromCacheOnly]))
        times.append((clock.now - start) / .milliseconds(1))
        try await manager.downloader.shutdown()
    case "memory":
        let manager = ImageManager(configuration: ImageManager.Configuration(dataCache: try DiskCache(directory: cacheDir)))
        _ = try await loadAll(manager, options: [.fromCacheOnly])
        var hits: [Double] = []
        let start = clock.now
        for _ in 0..<20 {
            for url in urls {
                let t = clock.now
                let r = try await manager.loadImage(with: url)
                hits.append((clock.now - t) / .microseconds(1))
                precondition(r.source == .memory)
            }
        }
        times.append((clock.now - start) / .milliseconds(1))
        hits.sort()
        extra = hits[hits.count / 2]
        try await manager.downloader.shutdown()
    case "large", "thumbs":
        try? FileManager.default.removeItem(at: cacheDir)
        let memoryMB = Int(ProcessInfo.processInfo.environment["IMAGO_BENCH_MEMORY_MB"] ?? "256") ?? 256
        let downloader = ImageDownloader(configuration: ImageDownloaderConfiguration(maxConcurrentDownloads: 8))
        let manager = ImageManager(
            configuration: ImageManager.Configuration(
                memoryCache: MemoryCache<String, Image>(costLimit: memoryMB << 20), dataCache: try DiskCache(directory: cacheDir),
                downloader: downloader))
        let thumbs = mode == "thumbs"
        let start = clock.now
        extra = Double(
            try await withThrowingTaskGroup(of: Int.self) { group in
                for url in urls {
                    group.addTask {
                        var request = ImageRequest(url: url)
                        if thumbs { request.thumbnail = .init(maxPixelSize: PixelSize(width: 256, height: 256)) }
                        let image = try await manager.loadImage(with: request).image
                        guard thumbs else { return image.byteCount }
                        return try await WorkQueue.processing.run {
                            try ImageCoderRegistry.shared.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.8)).count
                        }
                    }
                }
                var total = 0
                for try await n in group { total += n }
                return total
            })
        times.append((clock.now - start) / .milliseconds(1))
        await manager.finishPendingStores()
        try await downloader.shutdown()
    case "bare", "keep":
        guard let client else { preconditionFailure("the bare and keep modes make a client") }
        let start = clock.now
        extra = Double(try await bareLoop(client, keep: mode == "keep"))
        times.append((clock.now - start) / .milliseconds(1))
    default:
        FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
        exit(2)
    }
}
try await client?.shutdown()
let sorted = times.sorted()
print(String(format: "%.2f %.2f %d %.2f", sorted[0], sorted[sorted.count / 2], urls.count, extra))
