// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Test helper for the disk cache's crash test: writes self-describing entries into a DiskCache
// forever (until killed). Usage: ImagoCacheCrashWriter DIRECTORY SEED
// Each value is "IMAGO" + key length + key + version + pattern length + a pattern derived from
// the version, so a reader can tell a complete, correct value from a torn, short or mixed one.
import Foundation
import ImagoCache

let args = CommandLine.arguments
guard args.count == 3, let seed = UInt64(args[2]) else {
    FileHandle.standardError.write(Data("usage: ImagoCacheCrashWriter DIRECTORY SEED\n".utf8))
    exit(2)
}
let cache: DiskCache
do {
    cache = try DiskCache(directory: URL(fileURLWithPath: args[1]), maxAge: nil, maxSize: 3_000_000)
} catch {
    FileHandle.standardError.write(Data("cannot open cache: \(error)\n".utf8))
    exit(1)
}
var state = seed
@MainActor func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}
var version: UInt64 = seed << 32
while true {
    version += 1
    let key = "entry-\(next() % 40)"
    let length = 1 + Int(next() % 60_000)
    var value = Data("IMAGO".utf8)
    value.append(UInt8(key.utf8.count))
    value.append(contentsOf: Array(key.utf8))
    withUnsafeBytes(of: version.littleEndian) { value.append(contentsOf: $0) }
    withUnsafeBytes(of: UInt32(length).littleEndian) { value.append(contentsOf: $0) }
    var x = version &* 2654435761
    for _ in 0..<length {
        x = x &* 6364136223846793005 &+ 1442695040888963407
        value.append(UInt8(truncatingIfNeeded: x >> 56))
    }
    do {
        if next() % 10 == 0 { try cache.removeValue(forKey: key) } else { try cache.setData(value, forKey: key) }
    } catch {
        FileHandle.standardError.write(Data("write failed: \(error)\n".utf8))
    }
}
