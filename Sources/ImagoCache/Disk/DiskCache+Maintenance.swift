// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoDiskIO
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DiskCache {
    // MARK: Limits and statistics

    /// Removes expired entries, then, when the total passes ``Configuration/maxSize``, the least
    /// recently used (per ``Configuration/expirationDate``) until at most half of it remains.
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func trim() throws {
        try? flushAccessTimes()  // best effort: trimming must work even when the disk is full
        let column = expirationColumn
        let maxSize = configuration.maxSize
        var doomed: [String] = []
        try withDatabase { db in
            try db.transaction {
                if let maxAgeSeconds {
                    let cutoff = now().timeIntervalSince1970 - maxAgeSeconds
                    try db.query("DELETE FROM entries WHERE \(column) < ? RETURNING filename", [.real(cutoff)]) { r in
                        if let f = r.text(0) { doomed.append(f) }
                    }
                }
                guard maxSize > 0 else { return }
                var total: Int64 = 0
                try db.query("SELECT total(size) FROM entries") { r in total = Int64(r.double(0)) }
                guard total > Int64(maxSize) else { return }
                let target = Int64(maxSize / 2)
                var victims: [String] = []
                try db.query("SELECT key, filename, size FROM entries ORDER BY \(column) ASC") { r in
                    guard total > target, let key = r.text(0) else { return }
                    victims.append(key)
                    if let f = r.text(1) { doomed.append(f) }
                    total -= r.int64(2)
                }
                for key in victims { try db.query("DELETE FROM entries WHERE key = ?", [.text(key)]) }
            }
        }
        for f in doomed where !f.isEmpty { DiskFile.remove(path(of: f)) }
    }

    /// Number of entries and their total size in bytes.
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func statistics() throws -> (count: Int, totalSize: Int) {
        try withDatabase { db in
            var result = (count: 0, totalSize: 0)
            try db.query("SELECT count(*), total(size) FROM entries") { r in
                result = (Int(r.int64(0)), Int(r.double(1)))
            }
            return result
        }
    }

    /// Writes buffered access times to the manifest in one transaction. Reads call this every
    /// 128 hits, trimming and listing call it first; call it before handing the directory to
    /// another process if its LRU view must be exact.
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func flushAccessTimes() throws {
        let batch = pendingAccess.withLock { pending -> [String: Double] in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !batch.isEmpty else { return }
        try withDatabase { db in
            try db.transaction {
                for (key, t) in batch {
                    try db.query("UPDATE entries SET accessed = max(accessed, ?) WHERE key = ?", [.real(t), .text(key)])
                }
            }
        }
    }

    /// Every entry, least recently used first (per ``Configuration/expirationDate``).
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func entries() throws -> [Entry] {
        try? flushAccessTimes()
        let keys: [String] = try withDatabase { db in
            var keys: [String] = []
            try db.query("SELECT key FROM entries ORDER BY \(expirationColumn) ASC") { r in
                if let k = r.text(0) { keys.append(k) }
            }
            return keys
        }
        return try keys.compactMap { key in try withDatabase { db in try row(key, db) }?.entry }
    }

    var expirationColumn: String {
        switch configuration.expirationDate {
        case .accessDate: "accessed"
        case .modificationDate: "modified"
        case .creationDate: "created"
        }
    }

    // MARK: Files

    func path(of filename: String) -> String {
        filesDirectory.appendingPathComponent(filename).path
    }

    /// 128 random bits in hex, plus the key's path extension when it is short and alphanumeric.
    static func newFilename(for key: String) -> String {
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let hex2 = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let name = String(repeating: "0", count: 16 - hex.count) + hex + String(repeating: "0", count: 16 - hex2.count) + hex2
        let path = URL(string: key)?.path ?? key
        let ext = PathName.pathExtension(path).lowercased()
        let clean = !ext.isEmpty && ext.count <= 8 && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return clean ? "\(name).\(ext)" : name
    }

    static func sanitized(_ namespace: String) -> String {
        let s = namespace.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") ? $0 : "_" }
        var name = Substring(String(s))
        while name.first == "." { name.removeFirst() }
        while name.last == "." { name.removeLast() }
        return name.isEmpty ? "default" : String(name)
    }

    /// Removes files left by writers that died more than an hour ago: temporary files, and files
    /// no entry points at (a writer killed between writing its file and recording it). Younger
    /// ones may belong to another process writing right now.
    func removeStrayFiles() {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: filesDirectory.path) else { return }
        let cutoff = Date().addingTimeInterval(-3600)
        func isOld(_ name: String) -> Bool {
            guard let modified = (try? fm.attributesOfItem(atPath: path(of: name)))?[.modificationDate] as? Date else { return false }
            return modified < cutoff
        }
        for name in names where name.hasPrefix(".tmp-") && isOld(name) { DiskFile.remove(path(of: name)) }
        // Listing every file name the manifest knows is only worth it when there are more files than entries.
        let files = names.filter { !$0.hasPrefix(".tmp-") }
        var filed = 0
        try? withDatabase { db in try db.query("SELECT count(*) FROM entries WHERE inline IS NULL") { r in filed = Int(r.int64(0)) } }
        guard files.count > filed else { return }
        var known = Set<String>()
        try? withDatabase { db in
            try db.query("SELECT filename FROM entries WHERE inline IS NULL") { r in if let f = r.text(0) { known.insert(f) } }
        }
        for name in files where !known.contains(name) && isOld(name) { DiskFile.remove(path(of: name)) }
    }
}
