// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import ImagoDiskIO
import Synchronization

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension DiskCache {
    // MARK: Writing

    /// Stores `data` for `key` with `metadata`, atomically: readers see the old bytes or the new,
    /// never a mix, whatever happens to this process.
    ///
    /// - Throws: ``DiskCacheError/io(path:reason:)`` when the file cannot be written (the disk
    ///   is full, for example), leaving the previous entry intact; ``DiskCacheError/database(_:)``.
    public func setData(_ data: Data, forKey key: String, metadata: [String: String]) throws {
        let inline = data.count <= configuration.inlineThreshold
        var filename = ""
        var signature = FileSignature(inode: 0, ctime: 0)
        if !inline {
            // A new file of its own: the entry it replaces keeps its file until the manifest moves on.
            filename = Self.newFilename(for: key)
            let temporary = path(of: ".tmp-\(DiskFile.processID)-\(UInt64.random(in: 0...UInt64.max))")
            let final = path(of: filename)
            try Self.mapped { try DiskFile.replace(final, with: data, sync: configuration.durable, temporary: temporary) }
            // Recorded after the rename, which itself updates ctime.
            signature = FileSignature(path: final) ?? signature
        }
        let t = now().timeIntervalSince1970
        let encoded = metadata.isEmpty ? nil : try? JSONEncoder().encode(metadata)
        let replaced: String?
        do {
            replaced = try recordEntry(
                key: key, filename: filename, data: data, inline: inline, signature: signature,
                time: t, metadata: encoded)
        } catch {
            // The manifest could not record the new file (the disk may be full): do not leave an
            // unlisted file taking space. The old entry stays as it was.
            if !inline { DiskFile.remove(path(of: filename)) }
            throw error
        }
        if let replaced, !replaced.isEmpty, replaced != filename { DiskFile.remove(path(of: replaced)) }
        let due = writesSinceTrim.withLock { n -> Bool in
            n += 1
            if n >= 64 {
                n = 0
                return true
            }
            return false
        }
        if due, configuration.maxSize > 0 { try trim() }
    }

    /// Points the manifest at the new value; returns the file the old entry used, if any.
    private func recordEntry(
        key: String, filename: String, data: Data, inline: Bool, signature: FileSignature,
        time t: Double, metadata encoded: Data?
    ) throws -> String? {
        try withDatabase { db in
            try db.transaction {
                var old: String?
                try db.query("SELECT filename FROM entries WHERE key = ? AND inline IS NULL", [.text(key)]) { r in old = r.text(0) }
                try db.query(
                    """
                    INSERT INTO entries(key, filename, size, crc, created, modified, accessed, metadata, inline, inode, ctime)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(key) DO UPDATE SET filename = excluded.filename, size = excluded.size, crc = excluded.crc,
                        modified = excluded.modified, accessed = excluded.accessed, metadata = excluded.metadata,
                        inline = excluded.inline, inode = excluded.inode, ctime = excluded.ctime
                    """,
                    [
                        .text(key), .text(filename), .int(Int64(data.count)), .int(Int64(bitPattern: Checksum.fast64(data))),
                        .real(t), .real(t), .real(t), .blob(encoded), inline ? .blob(data) : .blob(nil),
                        .int(Int64(bitPattern: signature.inode)), .int(signature.ctime)
                    ])
                return old
            }
        }
    }

    /// Replaces the metadata of an existing entry (for example after a 304 revalidation).
    /// Does nothing when `key` is absent.
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func setMetadata(_ metadata: [String: String], forKey key: String) throws {
        let encoded = metadata.isEmpty ? nil : try? JSONEncoder().encode(metadata)
        try withDatabase { db in
            try db.query("UPDATE entries SET metadata = ? WHERE key = ?", [.blob(encoded), .text(key)])
        }
    }

    /// Removes the entry for `key`, if any.
    ///
    /// The file goes first, then the manifest row: on a full disk SQLite needs space to record a
    /// deletion, and unlinking frees it. A crash in between leaves a row without a file, which
    /// reads already treat as a miss.
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func removeValue(forKey key: String) throws {
        let filename: String? = try withDatabase { db in
            var name: String?
            try db.query("SELECT filename FROM entries WHERE key = ? AND inline IS NULL", [.text(key)]) { r in
                name = r.text(0)
            }
            return name
        }
        if let filename, !filename.isEmpty { DiskFile.remove(path(of: filename)) }
        try withDatabase { db in try db.query("DELETE FROM entries WHERE key = ?", [.text(key)]) }
        pendingAccess.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// Removes every entry whose key starts with `prefix` (the results kept of one source, say),
    /// files first, as ``removeValue(forKey:)`` does.
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func removeValues(withKeyPrefix prefix: String) throws {
        guard !prefix.isEmpty else { return try removeAll() }
        let length = Int64(prefix.utf8.count)
        let rows: [(key: String, filename: String?)] = try withDatabase { db in
            var found: [(String, String?)] = []
            try db.query(
                "SELECT key, CASE WHEN inline IS NULL THEN filename END FROM entries WHERE substr(CAST(key AS BLOB), 1, ?) = CAST(? AS BLOB)",
                [.int(length), .text(prefix)]
            ) { r in
                if let key = r.text(0) { found.append((key, r.text(1))) }
            }
            return found
        }
        for row in rows {
            if let filename = row.filename, !filename.isEmpty { DiskFile.remove(path(of: filename)) }
        }
        try withDatabase { db in
            try db.transaction {
                for row in rows { try db.query("DELETE FROM entries WHERE key = ?", [.text(row.key)]) }
            }
        }
        pendingAccess.withLock { pending in for row in rows { pending.removeValue(forKey: row.key) } }
    }

    /// Removes every entry.
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func removeAll() throws {
        try withDatabase { db in try db.execute("DELETE FROM entries") }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: filesDirectory.path)) ?? []
        for name in files { DiskFile.remove(path(of: name)) }
    }
}
