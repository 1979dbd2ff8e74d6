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

/// Bytes by key on disk, with an SQLite manifest that records each entry's size, checksum,
/// creation, modification and last-access times and metadata: an LRU that never relies on
/// filesystem atime, so it is right on `noatime` and `relatime` mounts. The default
/// ``DataCaching``.
///
/// Why SQLite for the manifest (as YYCache does): it gives atomic, crash-safe updates of the
/// bookkeeping, ordered queries for trimming by access time, and safe sharing between processes
/// (WAL mode with a busy timeout, so the CLI and a server can use one directory at once).
///
/// **Crash safety.** A small value is written inside one SQLite transaction. A larger one goes to
/// a new file of its own (flushed with `fsync` when ``Configuration/durable``), and only then is
/// the manifest pointed at it; the file it replaces is removed after. A process killed at any
/// moment leaves either the old entry or the new one. Files no entry points at (a writer killed
/// between its two steps) are removed when a cache opens, once they are an hour old.
/// Every read checks the file's size against the manifest, and its checksum whenever the file's
/// inode or change time differs from when it was published (any write, truncation or
/// replacement through the filesystem changes them, and user space cannot set ctime back), so a
/// damaged or half-replaced file is never served: it counts as a miss and is removed. Silent
/// media corruption beneath the filesystem is not caught on that fast path, as it is not by
/// plain-file caches or SQLite.
///
/// **File names** are 128 random bits in hex plus the key's path extension when it is short and
/// alphanumeric, recorded in the manifest. Nothing is derived from the key, so keys chosen by
/// others (URLs) cannot be made to collide, and no cryptographic hash is needed.
public final class DiskCache: DataCaching {
    /// Which recorded time ``Configuration/maxAge`` is measured from.
    public enum ExpirationDate: String, Sendable {
        /// Last read or write (default): least recently used entries expire.
        case accessDate
        /// Last write.
        case modificationDate
        /// First write.
        case creationDate
    }

    /// Limits and storage choices, fixed when the cache opens.
    public struct Configuration: Sendable, Hashable {
        /// A subdirectory per cache, so several caches can share a parent. Default `"default"`.
        public var namespace: String
        /// Entries unused (per ``expirationDate``) for longer than this are removed. Default one
        /// week; `nil` keeps entries regardless of age.
        public var maxAge: Duration?
        /// When the total size passes this many bytes, the oldest entries are removed until half
        /// of it remains. 0 (default) means unlimited.
        public var maxSize: Int
        /// Which time ``maxAge`` counts from. Default ``ExpirationDate/accessDate``.
        public var expirationDate: ExpirationDate
        /// Values up to this many bytes are stored inside the manifest instead of in a file of their
        /// own: one SQLite row read beats opening a file for small items (YYCache's finding).
        /// Default 16 KiB; 0 stores every value in a file.
        public var inlineThreshold: Int
        /// `fsync` each file before publishing it. Default `false`: a killed process can never leave
        /// a torn entry either way, and after a power loss the checksum check turns a torn file into
        /// a miss; turn it on to also keep entries written just before a power loss.
        public var durable: Bool
        /// How stale a recorded access time may get before a read records a new one. Default 60
        /// seconds: LRU order and access-date expiry are exact to within this, and hot entries cost
        /// no manifest write per read.
        public var accessTimeResolution: Duration
        /// Files of at least this many bytes are read by mapping them (`mmap`) instead of copying
        /// them into memory: no copy, no freshly zeroed pages, and the pages are the kernel's page
        /// cache, shared rather than duplicated (SDWebImage's `diskCacheReadingOptions` offers the
        /// same). Default `nil`: every file is read with `read(2)`.
        ///
        /// Only map when nothing else truncates files in the cache directory and the disk is
        /// sound: a mapped file cut short while its `Data` is in use, or a page the disk fails to
        /// read, raises `SIGBUS` instead of an error. The cache itself never truncates (it
        /// publishes by rename and removes by unlink, which leave a mapping intact).
        public var mappingThreshold: Int?

        /// Creates a configuration; every parameter defaults as documented on its property.
        public init(
            namespace: String = "default", maxAge: Duration? = .seconds(7 * 24 * 3600), maxSize: Int = 0,
            expirationDate: ExpirationDate = .accessDate, inlineThreshold: Int = 16 << 10, durable: Bool = false,
            accessTimeResolution: Duration = .seconds(60), mappingThreshold: Int? = nil
        ) {
            self.mappingThreshold = mappingThreshold.map { max(0, $0) }
            self.namespace = namespace
            self.maxAge = maxAge
            self.maxSize = max(0, maxSize)
            self.expirationDate = expirationDate
            self.inlineThreshold = max(0, inlineThreshold)
            self.durable = durable
            self.accessTimeResolution = max(.zero, accessTimeResolution)
        }
    }

    /// One stored entry.
    public struct Entry: Sendable, Hashable {
        /// The key.
        public var key: String
        /// Size in bytes.
        public var size: Int
        /// When it was first written.
        public var created: Date
        /// When it was last written.
        public var modified: Date
        /// When it was last read or written.
        public var accessed: Date
        /// Metadata stored with it (for example `ETag`, `Last-Modified`, `Content-Type`).
        public var metadata: [String: String]
    }

    /// The directory holding this cache's manifest and files: the parent given plus the namespace.
    public let directory: URL
    /// The limits and choices it was opened with.
    public let configuration: Configuration

    let database: Mutex<SQLiteDatabase>
    let filesDirectory: URL
    let now: @Sendable () -> Date
    let maxAgeSeconds: Double?
    let resolutionSeconds: Double
    let writesSinceTrim = Mutex(0)
    /// Access times not yet written to the manifest: flushed in one transaction every
    /// ``accessFlushThreshold`` reads and before trimming or listing. A crash loses only
    /// LRU precision, never data.
    let pendingAccess = Mutex<[String: Double]>([:])
    static let accessFlushThreshold = 128

    /// Opens (creating if needed) the cache at `directory/namespace`, removes files left by dead
    /// writers, and trims to the limits.
    ///
    /// - Parameters:
    ///   - directory: The parent directory, for example ``defaultDirectory``.
    ///   - configuration: Default: a ``Configuration`` with every setting at its default.
    ///   - now: The time source; tests pass their own. Default: the wall clock.
    /// - Throws: ``DiskCacheError`` when the directory or manifest cannot be created or opened.
    public init(
        directory: URL, configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.configuration = configuration
        self.directory = directory.appendingPathComponent(Self.sanitized(configuration.namespace), isDirectory: true)
        self.now = now
        maxAgeSeconds = configuration.maxAge.map(Self.seconds)
        resolutionSeconds = Self.seconds(configuration.accessTimeResolution)
        filesDirectory = self.directory.appendingPathComponent("data", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: filesDirectory, withIntermediateDirectories: true)
        } catch {
            throw DiskCacheError.io(path: filesDirectory.path, reason: String(describing: error))
        }
        let manifest = self.directory.appendingPathComponent("manifest.sqlite").path
        let db = try Self.mapped { try SQLiteDatabase(path: manifest) }
        try Self.mapped {
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS entries(
                    key TEXT PRIMARY KEY, filename TEXT NOT NULL, size INTEGER NOT NULL, crc INTEGER NOT NULL,
                    created REAL NOT NULL, modified REAL NOT NULL, accessed REAL NOT NULL, metadata BLOB, inline BLOB,
                    inode INTEGER NOT NULL DEFAULT 0, ctime INTEGER NOT NULL DEFAULT 0);
                CREATE INDEX IF NOT EXISTS entries_accessed ON entries(accessed);
                CREATE INDEX IF NOT EXISTS entries_modified ON entries(modified);
                CREATE INDEX IF NOT EXISTS entries_created ON entries(created);
                """)
        }
        database = Mutex(db)
        removeStrayFiles()
        try trim()
    }

    /// Opens a cache with the default configuration but for these limits (what `imago cache` takes).
    ///
    /// - Throws: as ``init(directory:configuration:now:)``.
    public convenience init(directory: URL, namespace: String = "default", maxAge: Duration?, maxSize: Int = 0) throws {
        try self.init(directory: directory, configuration: Configuration(namespace: namespace, maxAge: maxAge, maxSize: maxSize))
    }

    deinit { try? flushAccessTimes() }

    /// The conventional cache directory: `$XDG_CACHE_HOME/imago`, else `~/.cache/imago`.
    public static var defaultDirectory: URL {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("imago", isDirectory: true)
        }
        let home = env["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".cache/imago", isDirectory: true)
    }

    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }

    /// Runs a manifest operation, turning SQLite's error into ``DiskCacheError/database(_:)``.
    static func mapped<R>(_ body: () throws -> R) throws(DiskCacheError) -> R {
        do {
            return try body()
        } catch let e as DiskCacheError {
            throw e
        } catch let e as SQLiteError {
            throw .database(e.message)
        } catch let e as DiskIOError {
            throw .io(path: e.path, reason: e.reason)
        } catch {
            throw .database(String(describing: error))
        }
    }

    func withDatabase<R>(_ body: (SQLiteDatabase) throws -> R) throws(DiskCacheError) -> R {
        try Self.mapped { try database.withLock { db in try body(db) } }
    }

    // MARK: Reading

    /// The bytes for `key`, or `nil` when absent, expired or damaged (a damaged entry is removed).
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` when the manifest cannot be read.
    public func data(forKey key: String) throws -> Data? {
        try read(key)?.data
    }

    /// The bytes and entry record for `key`, or `nil` (see ``data(forKey:)``).
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` when the manifest cannot be read.
    public func entry(forKey key: String) throws -> (data: Data, entry: Entry)? {
        try read(key)
    }

    /// The bytes and metadata for `key`, or `nil` (see ``data(forKey:)``).
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` when the manifest cannot be read.
    public func cachedData(forKey key: String) throws -> CachedData? {
        try read(key).map { CachedData(data: $0.data, metadata: $0.entry.metadata) }
    }

    /// The entry for `key` opened where it lies, or `nil` as ``data(forKey:)`` would give it:
    /// a large value as an open file, read (or decoded) without bringing all of it into memory.
    /// A file changed since it was published is read and verified against its checksum instead
    /// (and removed when damaged). Counts as a use, as a read does.
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` when the manifest cannot be read.
    public func openEntry(forKey key: String) throws -> CachedEntry? {
        guard let found = try withDatabase({ db in try row(key, db) }) else { return nil }
        if isExpired(found) {
            try removeValue(forKey: key)
            return nil
        }
        if found.inline == nil, found.entry.size > 0,
            let opened = DiskFile.open(path(of: found.filename), expectedSize: found.entry.size, signature: found.signature)
        {
            guard opened.unchanged else {
                DiskFile.close(opened.descriptor)
                return try read(key).map { CachedEntry(contents: .data($0.data), metadata: $0.entry.metadata, digest: Checksum.fast64($0.data)) }
            }
            let file = ImageFile(adopting: opened.descriptor, size: found.entry.size, path: path(of: found.filename), mapsContents: true)
            return CachedEntry(contents: .file(file), metadata: touched(found).metadata, digest: found.checksum)
        }
        return try read(key).map { CachedEntry(contents: .data($0.data), metadata: $0.entry.metadata, digest: found.checksum) }
    }

    /// Whether `key` has a live entry (not expired). Does not read the file or count as a use.
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` when the manifest cannot be read.
    public func contains(_ key: String) throws -> Bool {
        try withDatabase { db in try row(key, db) }.map { !isExpired($0) } ?? false
    }

    func readFile(_ path: String, expectedSize: Int, signature: FileSignature) -> (data: Data, unchanged: Bool)? {
        if let threshold = configuration.mappingThreshold, expectedSize >= threshold {
            return DiskFile.map(path, expectedSize: expectedSize, signature: signature)
                ?? DiskFile.read(path, expectedSize: expectedSize, signature: signature)
        }
        return DiskFile.read(path, expectedSize: expectedSize, signature: signature)
    }

    func read(_ key: String) throws -> (data: Data, entry: Entry)? {
        for attempt in 0..<2 {
            guard let found = try withDatabase({ db in try row(key, db) }) else { return nil }
            if isExpired(found) {
                try removeValue(forKey: key)
                return nil
            }
            let stored: (data: Data, unchanged: Bool)? =
                found.inline.map { ($0, true) }
                ?? readFile(path(of: found.filename), expectedSize: found.entry.size, signature: found.signature)
            // Inline values are covered by SQLite; a file whose inode and ctime are as published
            // has not been touched since, so only changed files need their checksum verified.
            if let stored, stored.data.count == found.entry.size,
                stored.unchanged || Checksum.fast64(stored.data) == found.checksum
            {
                return (stored.data, touched(found))
            }
            // Missing or damaged; another process may have replaced it between our two reads: look once more.
            if attempt == 0 { continue }
            try removeValue(forKey: key)
        }
        return nil
    }

    /// Records a use of the entry (in memory, flushed to the manifest in batches) and returns
    /// its record as used now.
    func touched(_ found: Row) -> Entry {
        let key = found.entry.key
        let t = now().timeIntervalSince1970
        let recorded = found.entry.accessed.timeIntervalSince1970
        let due =
            t - recorded < resolutionSeconds
            ? false
            : pendingAccess.withLock { pending -> Bool in
                if let p = pending[key], t - p < resolutionSeconds { return false }
                pending[key] = t
                return pending.count >= Self.accessFlushThreshold
            }
        if due { try? flushAccessTimes() }  // bookkeeping; never fails a read
        var entry = found.entry
        entry.accessed = Date(timeIntervalSince1970: t)
        return entry
    }

    struct Row {
        var filename: String
        var checksum: UInt64
        var entry: Entry
        /// The value itself when stored inline.
        var inline: Data?
        /// The file's inode and change time (ns) when it was published.
        var signature: FileSignature
    }

    func row(_ key: String, _ db: SQLiteDatabase) throws -> Row? {
        var result: Row?
        try db.query("SELECT filename, size, crc, created, modified, accessed, metadata, inline, inode, ctime FROM entries WHERE key = ?", [.text(key)]) { r in
            let metadata = r.blob(6).flatMap { try? JSONDecoder().decode([String: String].self, from: $0) } ?? [:]
            result = Row(
                filename: r.text(0) ?? "", checksum: UInt64(bitPattern: r.int64(2)),
                entry: Entry(
                    key: key, size: Int(r.int64(1)),
                    created: Date(timeIntervalSince1970: r.double(3)),
                    modified: Date(timeIntervalSince1970: r.double(4)),
                    accessed: Date(timeIntervalSince1970: r.double(5)),
                    metadata: metadata),
                inline: r.blob(7),
                signature: FileSignature(inode: UInt64(bitPattern: r.int64(8)), ctime: r.int64(9)))
        }
        return result
    }

    func isExpired(_ row: Row) -> Bool {
        guard let maxAgeSeconds else { return false }
        let reference: Double
        switch configuration.expirationDate {
        case .accessDate:
            let pending = pendingAccess.withLock { $0[row.entry.key] } ?? 0
            reference = max(row.entry.accessed.timeIntervalSince1970, pending)
        case .modificationDate: reference = row.entry.modified.timeIntervalSince1970
        case .creationDate: reference = row.entry.created.timeIntervalSince1970
        }
        return now().timeIntervalSince1970 - reference > maxAgeSeconds
    }
}
