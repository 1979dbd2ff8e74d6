// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Test helper for the exit-flush test: loads one URL through an ImageManager whose disk cache
// is at DIRECTORY, prints where the image came from (network, disk, memory) and returns from
// main without calling finishPendingStores. With DELAY_MS, each disk write first sleeps that
// long, so a write is certainly still pending when main returns.
// Usage: ImagoLoadingExitProbe DIRECTORY URL [DELAY_MS]
import Foundation
import ImagoCache
import ImagoLoading

/// A disk cache whose writes take `delay` longer.
struct SlowWrites: DataCaching {
    let base: DiskCache
    let delay: Duration
    func cachedData(forKey key: String) throws -> CachedData? { try base.cachedData(forKey: key) }
    func contains(_ key: String) throws -> Bool { try base.contains(key) }
    func setData(_ data: Data, forKey key: String, metadata: [String: String]) throws {
        Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        try base.setData(data, forKey: key, metadata: metadata)
    }
    func removeValue(forKey key: String) throws { try base.removeValue(forKey: key) }
    func removeAll() throws { try base.removeAll() }
    func statistics() throws -> (count: Int, totalSize: Int) { try base.statistics() }
}

let args = CommandLine.arguments
guard args.count >= 3, let url = URL(string: args[2]) else {
    FileHandle.standardError.write(Data("usage: ImagoLoadingExitProbe DIRECTORY URL [DELAY_MS]\n".utf8))
    exit(2)
}
let delay = Duration.milliseconds(args.count > 3 ? Int(args[3]) ?? 0 : 0)
do {
    let disk = try DiskCache(directory: URL(fileURLWithPath: args[1]))
    let manager = ImageManager(configuration: .init(dataCache: SlowWrites(base: disk, delay: delay)))
    let result = try await manager.loadImage(with: url)
    print(result.source)
} catch {
    FileHandle.standardError.write(Data("load failed: \(error.localizedDescription)\n".utf8))
    exit(1)
}
