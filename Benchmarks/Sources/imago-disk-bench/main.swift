// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Disk-cache benchmark in YYCache's shape: 1,000 items of ~1 KB and of 100 KB; write, replace,
// random read, read again, miss. Imago's DiskCache beside plain file-per-key (write to a
// temporary file and rename; read the file) and a bare SQLite blob table (WAL). Best of 3 runs,
// milliseconds for 1,000 operations. Runs in a scratch directory under /tmp.
import CSQLiteBench
import Foundation
import ImagoCache

let itemCount = 1000
let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("imago-disk-bench-\(getpid())")

protocol Store {
    func set(_ data: Data, _ key: String) throws
    func get(_ key: String) throws -> Data?
}

final class ImagoStore: Store {
    let cache: DiskCache
    init(_ dir: URL) throws { cache = try DiskCache(directory: dir, maxAge: nil) }
    func set(_ data: Data, _ key: String) throws { try cache.setData(data, forKey: key) }
    func get(_ key: String) throws -> Data? { try cache.data(forKey: key) }
}

final class FileStore: Store {
    let dir: URL
    init(_ dir: URL) throws {
        self.dir = dir
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    func set(_ data: Data, _ key: String) throws {
        let tmp = dir.appendingPathComponent(".tmp-\(key)")
        try data.write(to: tmp)
        guard rename(tmp.path, dir.appendingPathComponent(key).path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
    func get(_ key: String) throws -> Data? { try? Data(contentsOf: dir.appendingPathComponent(key)) }
}

final class SQLiteStore: Store {
    var db: OpaquePointer?
    var insert: OpaquePointer?, select: OpaquePointer?
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    init(_ dir: URL) throws {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        sqlite3_open(dir.appendingPathComponent("blobs.sqlite").path, &db)
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE TABLE t(key TEXT PRIMARY KEY, value BLOB)", nil, nil, nil)
        sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO t(key, value) VALUES (?, ?)", -1, &insert, nil)
        sqlite3_prepare_v2(db, "SELECT value FROM t WHERE key = ?", -1, &select, nil)
    }
    deinit {
        sqlite3_finalize(insert)
        sqlite3_finalize(select)
        sqlite3_close(db)
    }
    func set(_ data: Data, _ key: String) throws {
        sqlite3_bind_text(insert, 1, key, -1, transient)
        data.withUnsafeBytes { _ = sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), transient) }
        sqlite3_step(insert)
        sqlite3_reset(insert)
    }
    func get(_ key: String) throws -> Data? {
        sqlite3_bind_text(select, 1, key, -1, transient)
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW, let p = sqlite3_column_blob(select, 0) else { return nil }
        return Data(bytes: p, count: Int(sqlite3_column_bytes(select, 0)))
    }
}

func ms(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start) / .milliseconds(1)
}

let phases = ["write", "replace", "random read", "read again", "miss"]
let keys = (0..<itemCount).map { "item-\($0)" }
var rng = SystemRandomNumberGenerator()
let order = keys.shuffled(using: &rng)

func run(_ make: (URL) throws -> any Store, size: Int) throws -> [Double] {
    var best = [Double](repeating: .infinity, count: phases.count)
    let values = (0..<itemCount).map { i in Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }) }
    for round in 0..<3 {
        let dir = scratch.appendingPathComponent("run-\(UUID().uuidString)")
        let store = try make(dir)
        var hits = 0
        let t = [
            try ms { for i in 0..<itemCount { try store.set(values[i], keys[i]) } },
            try ms { for i in 0..<itemCount { try store.set(values[(i + 1) % itemCount], keys[i]) } },
            try ms { for k in order { if try store.get(k) != nil { hits += 1 } } },
            try ms { for k in keys { if try store.get(k) != nil { hits += 1 } } },
            try ms { for k in keys { if try store.get(k + "-missing") != nil { hits += 1 } } }
        ]
        precondition(hits == 2 * itemCount, "round \(round): \(hits) hits")
        for k in 0..<t.count { best[k] = min(best[k], t[k]) }
        try? FileManager.default.removeItem(at: dir)
    }
    return best
}

print("| item size | phase | Imago DiskCache ms | plain files ms | bare SQLite ms | Imago / files | Imago / SQLite |")
print("|---|---|---:|---:|---:|---:|---:|")
var summary: [String] = []
for (label, size) in [("1 KB", 1024), ("100 KB", 100 * 1024)] {
    let imago = try run({ try ImagoStore($0) }, size: size)
    let files = try run({ try FileStore($0) }, size: size)
    let sqlite = try run({ try SQLiteStore($0) }, size: size)
    for k in 0..<phases.count {
        print(
            String(
                format: "| %@ | %@ | %.1f | %.1f | %.1f | %.2fx | %.2fx |", label, phases[k], imago[k], files[k], sqlite[k],
                imago[k] / files[k], imago[k] / sqlite[k]))
    }
    let worst = zip(imago, files).map { $0 / $1 }.max() ?? 0
    summary.append(String(format: "%@: worst Imago / plain files %.2fx", label, worst))
}
try? FileManager.default.removeItem(at: scratch)
print("\n" + summary.joined(separator: "; ") + " (targets: faster than files at 1 KB, within 1.3x at 100 KB)")
