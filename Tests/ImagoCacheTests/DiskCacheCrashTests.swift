// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCache
import ImagoTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("DiskCache under kill -9")
struct DiskCacheCrashTests {
    static let writer = TestFiles.builtProduct("ImagoCacheCrashWriter")

    /// Checks a value the writer produced: header, key, version, and the pattern those determine.
    static func isIntact(_ data: Data, key: String) -> Bool {
        let bytes = [UInt8](data)
        let keyBytes = Array(key.utf8)
        let headerLength = 5 + 1 + keyBytes.count + 8 + 4
        guard bytes.count > headerLength, Array(bytes[0..<5]) == Array("IMAGO".utf8),
            Int(bytes[5]) == keyBytes.count, Array(bytes[6..<(6 + keyBytes.count)]) == keyBytes
        else { return false }
        var version: UInt64 = 0
        for i in 0..<8 { version |= UInt64(bytes[6 + keyBytes.count + i]) << (8 * UInt64(i)) }
        var length = 0
        for i in 0..<4 { length |= Int(bytes[6 + keyBytes.count + 8 + i]) << (8 * i) }
        guard bytes.count == headerLength + length else { return false }
        var x = version &* 2654435761
        for i in headerLength..<bytes.count {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            if bytes[i] != UInt8(truncatingIfNeeded: x >> 56) { return false }
        }
        return true
    }

    @Test("the integrity check rejects short, long and altered values")
    func checkerRejectsDamage() async throws {
        let dir = try TestFiles.temporaryDirectory("imago-check")
        defer { try? FileManager.default.removeItem(at: dir) }
        let pid = try Subprocess.spawn(Self.writer.path, [dir.path, "7"])
        try await Task.sleep(for: .milliseconds(300))
        kill(pid, SIGKILL)
        _ = try Subprocess.wait(pid)
        let cache = try DiskCache(directory: dir, maxAge: nil, maxSize: 3_000_000)
        let (key, value) = try #require(
            try (0..<40).lazy.compactMap { i in
                try cache.data(forKey: "entry-\(i)").map { ("entry-\(i)", $0) }
            }.first)
        #expect(Self.isIntact(value, key: key))
        #expect(!Self.isIntact(value.dropLast(), key: key))
        #expect(!Self.isIntact(value + Data([0]), key: key))
        var altered = value
        altered[altered.count - 1] ^= 1
        #expect(!Self.isIntact(altered, key: key))
        #expect(!Self.isIntact(value, key: key + "x"))
    }

    @Test("a writer killed at random moments never leaves a torn entry to be served", .timeLimit(.minutes(5)))
    func killNine() async throws {
        let dir = try TestFiles.temporaryDirectory("imago-crash")
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SystemRandomNumberGenerator()
        var served = 0
        for round in 0..<25 {
            let pid = try Subprocess.spawn(Self.writer.path, [dir.path, String(round + 1)])
            try await Task.sleep(for: .microseconds(Int.random(in: 30_000...250_000, using: &rng)))
            kill(pid, SIGKILL)
            // 128 + the signal: the writer was killed, not ended by itself.
            let status = try Subprocess.wait(pid)
            #expect(status == 128 + SIGKILL, "round \(round): the writer was not running when killed")

            // The cache must open, serve only intact values, and still trim.
            let cache = try DiskCache(directory: dir, maxAge: nil, maxSize: 3_000_000)
            for i in 0..<40 {
                let key = "entry-\(i)"
                if let data = try cache.data(forKey: key) {
                    served += 1
                    #expect(Self.isIntact(data, key: key), "round \(round): \(key) served damaged bytes")
                }
            }
            try cache.trim()
            #expect(try cache.statistics().totalSize <= 3_000_000)
        }
        #expect(served > 0, "the writer never got an entry in")
    }

    @Test("two processes writing one directory at once leave only intact entries")
    func twoWriters() throws {
        let dir = try TestFiles.temporaryDirectory("imago-two")
        defer { try? FileManager.default.removeItem(at: dir) }
        let writers = try (1...2).map { seed in try Subprocess.spawn(Self.writer.path, [dir.path, String(100 + seed)]) }
        let cache = try DiskCache(directory: dir, maxAge: nil, maxSize: 3_000_000)
        var served = 0
        let deadline = ContinuousClock.now + .milliseconds(1500)
        while ContinuousClock.now < deadline {
            for i in 0..<40 {
                if let data = try cache.data(forKey: "entry-\(i)") {
                    served += 1
                    #expect(Self.isIntact(data, key: "entry-\(i)"))
                }
            }
        }
        for pid in writers {
            kill(pid, SIGKILL)
            _ = try Subprocess.wait(pid)
        }
        #expect(served > 0)
    }
}
