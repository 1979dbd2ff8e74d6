#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import CSQLite
import Crypto
import ImagoCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Bytes by key on disk, with an SQLite manifest that records each entry's size, checksum,
/// creation, modification and last-access times and metadata: an LRU that never relies on
/// filesystem atime, so it is right on `noatime` and `relatime` mounts.
///
/// Why SQLite for the manifest (as YYCache does): it gives atomic, crash-safe updates of the
/// bookkeeping, ordered queries for trimming by access time, and safe sharing between processes
/// (WAL mode with a busy timeout, so the CLI and a server can use one directory at once).
///
/// **Crash safety.** A small value is written inside one SQLite transaction. A larger one goes to
/// a temporary file (flushed with `fsync` when ``durable``), is renamed over the entry's file, and
/// only then recorded in the manifest. A process killed at any moment leaves
/// either the old entry or the new one. Stray temporary files are removed when a cache opens.
/// Every read checks the file's size against the manifest, and its checksum whenever the file's
/// inode or change time differs from when it was published (any write, truncation or
/// replacement through the filesystem changes them, and user space cannot set ctime back), so a
/// damaged or half-replaced file is never served: it counts as a miss and is removed. Silent
/// media corruption beneath the filesystem is not caught on that fast path, as it is not by
/// plain-file caches or SQLite.
///
/// Files are named by the SHA-256 of the key plus the key's sanitized path extension
/// (SDWebImage's scheme). A cryptographic hash matters here: keys are often URLs chosen by
/// others, and a weak hash could be made to collide.
public final class DiskCache: Sendable {
    /// Which recorded time ``maxAge`` is measured from.
    public enum ExpirationDate: String, Sendable {
        /// Last read or write (default): least recently used entries expire.
        case accessDate
        /// Last write.
        case modificationDate
        /// First write.
        case creationDate
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

    /// The directory holding this cache's manifest and files.
    public let directory: URL
    /// Entries unused (per ``expirationDate``) for longer than this are removed. Default one week.
    public let maxAge: TimeInterval?
    /// When the total size passes this many bytes, the oldest entries are removed until half
    /// of it remains. 0 (default) means unlimited.
    public let maxSize: Int
    /// Which time ``maxAge`` counts from. Default ``ExpirationDate/accessDate``.
    public let expirationDate: ExpirationDate
    /// Values up to this many bytes are stored inside the manifest instead of in a file of their
    /// own: one SQLite row read beats opening a file for small items (YYCache's finding).
    /// Default 16 KiB; 0 stores every value in a file.
    public let inlineThreshold: Int
    /// `fsync` each file before publishing it. Default `false`: a killed process can never leave
    /// a torn entry either way (the rename is atomic), and after a power loss the checksum check turns
    /// a torn file into a miss; turn it on to also keep entries written just before a power loss.
    public let durable: Bool
    /// How stale a recorded access time may get before a read records a new one. Default 60
    /// seconds: LRU order and access-date expiry are exact to within this, and hot entries cost
    /// no manifest write per read.
    public let accessTimeResolution: TimeInterval

    private let database: Mutex<SQLiteDatabase>
    private let filesDirectory: URL
    private let now: @Sendable () -> Date
    private let writesSinceTrim = Mutex(0)
    /// Access times not yet written to the manifest: flushed in one transaction every
    /// ``accessFlushThreshold`` reads and before trimming or listing. A crash loses only
    /// LRU precision, never data.
    private let pendingAccess = Mutex<[String: Double]>([:])
    private static let accessFlushThreshold = 128

    /// Opens (creating if needed) the cache at `directory/namespace`, removes stray temporary
    /// files, and trims to the limits.
    ///
    /// - Parameters:
    ///   - directory: The parent directory, for example `~/.cache/imago`.
    ///   - namespace: A subdirectory per cache. Default `"default"`.
    ///   - maxAge: Default one week; `nil` keeps entries regardless of age.
    ///   - maxSize: Bytes; 0 (default) means unlimited.
    ///   - expirationDate: Default ``ExpirationDate/accessDate``.
    ///   - inlineThreshold: Default 16 KiB.
    ///   - durable: `fsync` files before publishing them. Default `false`.
    ///   - accessTimeResolution: Default 60 seconds.
    ///   - now: The time source; tests pass their own.
    /// - Throws: ``DiskCacheError`` when the directory or manifest cannot be created or opened.
    public init(directory: URL, namespace: String = "default", maxAge: TimeInterval? = 7 * 24 * 3600,
                maxSize: Int = 0, expirationDate: ExpirationDate = .accessDate, inlineThreshold: Int = 16 << 10,
                durable: Bool = false, accessTimeResolution: TimeInterval = 60,
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.accessTimeResolution = max(0, accessTimeResolution)
        self.inlineThreshold = max(0, inlineThreshold)
        self.durable = durable
        self.directory = directory.appendingPathComponent(Self.sanitized(namespace), isDirectory: true)
        self.maxAge = maxAge
        self.maxSize = max(0, maxSize)
        self.expirationDate = expirationDate
        self.now = now
        filesDirectory = self.directory.appendingPathComponent("data", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: filesDirectory, withIntermediateDirectories: true)
        } catch {
            throw DiskCacheError.io(path: filesDirectory.path, reason: String(describing: error))
        }
        let db = try SQLiteDatabase(path: self.directory.appendingPathComponent("manifest.sqlite").path)
        try db.execute("""
            CREATE TABLE IF NOT EXISTS entries(
                key TEXT PRIMARY KEY, filename TEXT NOT NULL, size INTEGER NOT NULL, crc INTEGER NOT NULL,
                created REAL NOT NULL, modified REAL NOT NULL, accessed REAL NOT NULL, metadata BLOB, inline BLOB,
                inode INTEGER NOT NULL DEFAULT 0, ctime INTEGER NOT NULL DEFAULT 0);
            CREATE INDEX IF NOT EXISTS entries_accessed ON entries(accessed);
            CREATE INDEX IF NOT EXISTS entries_modified ON entries(modified);
            CREATE INDEX IF NOT EXISTS entries_created ON entries(created);
            """)
        database = Mutex(db)
        removeStrayTemporaryFiles()
        try trim()
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

    // MARK: Reading

    /// The bytes for `key`, or `nil` when absent, expired or damaged (a damaged entry is removed).
    ///
    /// - Throws: ``DiskCacheError/database(_:)`` when the manifest cannot be read.
    public func data(forKey key: String) throws -> Data? {
        try read(key)?.data
    }

    /// The bytes and entry record for `key`, or `nil` (see ``data(forKey:)``).
    public func entry(forKey key: String) throws -> (data: Data, entry: Entry)? {
        try read(key)
    }

    /// Whether `key` has a live entry (not expired). Does not read the file or count as a use.
    public func contains(_ key: String) throws -> Bool {
        try database.withLock { db in try row(key, db) }.map { !isExpired($0) } ?? false
    }

    private func read(_ key: String) throws -> (data: Data, entry: Entry)? {
        for attempt in 0..<2 {
            guard let found = try database.withLock({ db in try row(key, db) }) else { return nil }
            if isExpired(found) {
                try removeValue(forKey: key)
                return nil
            }
            var unchanged = false
            let stored = found.inline
                ?? Self.readFile(filesDirectory.appendingPathComponent(found.filename).path, expectedSize: found.entry.size,
                                 signature: found.signature, unchanged: &unchanged)
            // Inline values are covered by SQLite; a file whose inode and ctime are as published
            // has not been touched since, so only changed files need their checksum verified.
            if let data = stored, data.count == found.entry.size,
               unchanged || Checksum.fast64(data) == found.checksum {
                let t = now()
                let recorded = found.entry.accessed.timeIntervalSince1970
                let due = t.timeIntervalSince1970 - recorded < accessTimeResolution ? false : pendingAccess.withLock { pending -> Bool in
                    if let p = pending[key], t.timeIntervalSince1970 - p < accessTimeResolution { return false }
                    pending[key] = t.timeIntervalSince1970
                    return pending.count >= Self.accessFlushThreshold
                }
                if due { try? flushAccessTimes() }   // bookkeeping; never fails a read
                var entry = found.entry
                entry.accessed = t
                return (data, entry)
            }
            // Missing or damaged; another process may have replaced it between our two reads: look once more.
            if attempt == 0 { continue }
            try removeValue(forKey: key)
        }
        return nil
    }

    private struct Row {
        var filename: String
        var checksum: UInt64
        var entry: Entry
        /// The value itself when stored inline.
        var inline: Data?
        /// The file's inode and change time (ns) when it was published.
        var signature: FileSignature
    }

    private func row(_ key: String, _ db: SQLiteDatabase) throws -> Row? {
        var result: Row?
        try db.query("SELECT filename, size, crc, created, modified, accessed, metadata, inline, inode, ctime FROM entries WHERE key = ?", [.text(key)]) { s in
            let metadata = SQLiteDatabase.blob(s, 6).flatMap { try? JSONDecoder().decode([String: String].self, from: $0) } ?? [:]
            result = Row(filename: SQLiteDatabase.text(s, 0) ?? "", checksum: UInt64(bitPattern: sqlite3_column_int64(s, 2)),
                         entry: Entry(key: key, size: Int(sqlite3_column_int64(s, 1)),
                                      created: Date(timeIntervalSince1970: sqlite3_column_double(s, 3)),
                                      modified: Date(timeIntervalSince1970: sqlite3_column_double(s, 4)),
                                      accessed: Date(timeIntervalSince1970: sqlite3_column_double(s, 5)),
                                      metadata: metadata),
                         inline: sqlite3_column_type(s, 7) == SQLITE_NULL ? nil : (SQLiteDatabase.blob(s, 7) ?? Data()),
                         signature: FileSignature(inode: UInt64(bitPattern: sqlite3_column_int64(s, 8)),
                                                  ctime: sqlite3_column_int64(s, 9)))
        }
        return result
    }

    private func isExpired(_ row: Row) -> Bool {
        guard let maxAge else { return false }
        let reference: Date
        switch expirationDate {
        case .accessDate:
            let pending = pendingAccess.withLock { $0[row.entry.key] } ?? 0
            reference = max(row.entry.accessed, Date(timeIntervalSince1970: pending))
        case .modificationDate: reference = row.entry.modified
        case .creationDate: reference = row.entry.created
        }
        return now().timeIntervalSince(reference) > maxAge
    }

    // MARK: Writing

    /// Stores `data` for `key` with `metadata`, atomically: readers see the old bytes or the new,
    /// never a mix, whatever happens to this process.
    ///
    /// - Throws: ``DiskCacheError/io(path:reason:)`` when the file cannot be written (the disk
    ///   is full, for example), leaving the previous entry intact; ``DiskCacheError/database(_:)``.
    public func setData(_ data: Data, forKey key: String, metadata: [String: String] = [:]) throws {
        let filename = Self.filename(for: key)
        let final = filesDirectory.appendingPathComponent(filename)
        let inline = data.count <= inlineThreshold
        var signature = FileSignature(inode: 0, ctime: 0)
        if !inline {
            let temporary = filesDirectory.appendingPathComponent(".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
            try Self.writeFile(data, to: temporary, sync: durable)
            guard rename(temporary.path, final.path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary.path)
                throw DiskCacheError.io(path: final.path, reason: reason)
            }
            // Recorded after the rename, which itself updates ctime.
            signature = FileSignature(path: final.path) ?? signature
        }
        let t = now().timeIntervalSince1970
        let encoded = metadata.isEmpty ? nil : try? JSONEncoder().encode(metadata)
        do {
            try recordEntry(key: key, filename: filename, data: data, inline: inline, signature: signature,
                            time: t, metadata: encoded)
        } catch {
            // The manifest could not record the new file (the disk may be full): do not leave an
            // unlisted file taking space. An old row for this key now points at nothing: a miss.
            if !inline { unlink(final.path) }
            throw error
        }
        // A value that moved inline leaves its old file behind: remove it (usually there is none).
        if inline { unlink(final.path) }
        let due = writesSinceTrim.withLock { n -> Bool in
            n += 1
            if n >= 64 { n = 0; return true }
            return false
        }
        if due, maxSize > 0 { try trim() }
    }

    private func recordEntry(key: String, filename: String, data: Data, inline: Bool, signature: FileSignature,
                             time t: Double, metadata encoded: Data?) throws {
        try database.withLock { db in
            try db.query("""
                INSERT INTO entries(key, filename, size, crc, created, modified, accessed, metadata, inline, inode, ctime)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET filename = excluded.filename, size = excluded.size, crc = excluded.crc,
                    modified = excluded.modified, accessed = excluded.accessed, metadata = excluded.metadata,
                    inline = excluded.inline, inode = excluded.inode, ctime = excluded.ctime
                """, [.text(key), .text(filename), .int(Int64(data.count)), .int(Int64(bitPattern: Checksum.fast64(data))),
                      .real(t), .real(t), .real(t), .blob(encoded), inline ? .blob(data) : .blob(nil),
                      .int(Int64(bitPattern: signature.inode)), .int(signature.ctime)])
        }
    }

    /// Replaces the metadata of an existing entry (for example after a 304 revalidation).
    /// Does nothing when `key` is absent.
    public func setMetadata(_ metadata: [String: String], forKey key: String) throws {
        let encoded = metadata.isEmpty ? nil : try? JSONEncoder().encode(metadata)
        try database.withLock { db in
            try db.query("UPDATE entries SET metadata = ? WHERE key = ?", [.blob(encoded), .text(key)])
        }
    }

    /// Removes the entry for `key`, if any.
    ///
    /// The file goes first, then the manifest row: on a full disk SQLite needs space to record a
    /// deletion, and unlinking frees it. A crash in between leaves a row without a file, which
    /// reads already treat as a miss.
    public func removeValue(forKey key: String) throws {
        let filename: String? = try database.withLock { db in
            var name: String?
            try db.query("SELECT filename FROM entries WHERE key = ? AND inline IS NULL", [.text(key)]) { s in
                name = SQLiteDatabase.text(s, 0)
            }
            return name
        }
        if let filename, !filename.isEmpty { unlink(filesDirectory.appendingPathComponent(filename).path) }
        try database.withLock { db in try db.query("DELETE FROM entries WHERE key = ?", [.text(key)]) }
        pendingAccess.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// Removes every entry.
    public func removeAll() throws {
        try database.withLock { db in try db.execute("DELETE FROM entries") }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: filesDirectory.path)) ?? []
        for name in files { unlink(filesDirectory.appendingPathComponent(name).path) }
    }

    // MARK: Limits and statistics

    /// Removes expired entries, then, when the total passes ``maxSize``, the least recently used
    /// (per ``expirationDate``) until at most half of ``maxSize`` remains.
    ///
    /// - Throws: ``DiskCacheError/database(_:)``.
    public func trim() throws {
        try? flushAccessTimes()   // best effort: trimming must work even when the disk is full
        let column = expirationColumn
        var doomed: [String] = []
        try database.withLock { db in
            try db.transaction {
                if let maxAge {
                    let cutoff = now().timeIntervalSince1970 - maxAge
                    try db.query("DELETE FROM entries WHERE \(column) < ? RETURNING filename", [.real(cutoff)]) { s in
                        if let f = SQLiteDatabase.text(s, 0) { doomed.append(f) }
                    }
                }
                guard maxSize > 0 else { return }
                var total: Int64 = 0
                try db.query("SELECT total(size) FROM entries") { s in total = Int64(sqlite3_column_double(s, 0)) }
                guard total > Int64(maxSize) else { return }
                let target = Int64(maxSize / 2)
                var victims: [String] = []
                try db.query("SELECT key, filename, size FROM entries ORDER BY \(column) ASC") { s in
                    guard total > target, let key = SQLiteDatabase.text(s, 0) else { return }
                    victims.append(key)
                    if let f = SQLiteDatabase.text(s, 1) { doomed.append(f) }
                    total -= sqlite3_column_int64(s, 2)
                }
                for key in victims { try db.query("DELETE FROM entries WHERE key = ?", [.text(key)]) }
            }
        }
        for f in doomed { unlink(filesDirectory.appendingPathComponent(f).path) }
    }

    /// Number of entries and their total size in bytes.
    public func statistics() throws -> (count: Int, totalSize: Int) {
        try database.withLock { db in
            var result = (count: 0, totalSize: 0)
            try db.query("SELECT count(*), total(size) FROM entries") { s in
                result = (Int(sqlite3_column_int64(s, 0)), Int(sqlite3_column_double(s, 1)))
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
        try database.withLock { db in
            try db.transaction {
                for (key, t) in batch {
                    try db.query("UPDATE entries SET accessed = max(accessed, ?) WHERE key = ?", [.real(t), .text(key)])
                }
            }
        }
    }

    /// Every entry, least recently used first (per ``expirationDate``).
    public func entries() throws -> [Entry] {
        try? flushAccessTimes()
        let keys: [String] = try database.withLock { db in
            var keys: [String] = []
            try db.query("SELECT key FROM entries ORDER BY \(expirationColumn) ASC") { s in
                if let k = SQLiteDatabase.text(s, 0) { keys.append(k) }
            }
            return keys
        }
        return try keys.compactMap { key in try database.withLock { db in try row(key, db) }?.entry }
    }

    private var expirationColumn: String {
        switch expirationDate {
        case .accessDate: "accessed"
        case .modificationDate: "modified"
        case .creationDate: "created"
        }
    }

    // MARK: Files

    /// SHA-256 of the key in hex, plus the key's path extension when it is short and alphanumeric.
    static func filename(for key: String) -> String {
        let digest = PathName.hex(SHA256.hash(data: Data(key.utf8)))
        let path = URL(string: key)?.path ?? key
        let ext = PathName.pathExtension(path).lowercased()
        let clean = !ext.isEmpty && ext.count <= 8 && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return clean ? "\(digest).\(ext)" : digest
    }

    static func sanitized(_ namespace: String) -> String {
        let s = namespace.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") ? $0 : "_" }
        var name = Substring(String(s))
        while name.first == "." { name.removeFirst() }
        while name.last == "." { name.removeLast() }
        return name.isEmpty ? "default" : String(name)
    }


    /// Writes all bytes to a new file; with `sync`, `fsync`s before returning, so a rename that
    /// follows publishes a complete file even across a power loss.
    static func writeFile(_ data: Data, to url: URL, sync: Bool) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw DiskCacheError.io(path: url.path, reason: String(cString: strerror(errno))) }
        var failure: String?
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += n
            }
        }
        if failure == nil, sync, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if let failure {
            unlink(url.path)
            throw DiskCacheError.io(path: url.path, reason: failure)
        }
    }

    /// Reads a whole file with one `open`, `fstat` and `read` loop into a buffer of the
    /// expected size; `nil` when it is missing, unreadable, or not exactly that size.
    ///
    /// `unchanged` tells whether the open file still has the inode and ctime of `signature`.
    static func readFile(_ path: String, expectedSize: Int, signature: FileSignature, unchanged: inout Bool) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == expectedSize else { return nil }
        unchanged = signature.inode != 0 && FileSignature(info) == signature
        var data = Data(count: expectedSize)
        let complete = data.withUnsafeMutableBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return expectedSize == 0 }
            var offset = 0
            while offset < expectedSize {
                let n = Glibc.read(fd, base + offset, expectedSize - offset)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        return complete ? data : nil
    }

    /// Removes temporary files left by writers that died more than an hour ago (younger ones may
    /// belong to another process writing right now).
    private func removeStrayTemporaryFiles() {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: filesDirectory.path) else { return }
        let cutoff = Date().addingTimeInterval(-3600)
        for name in names where name.hasPrefix(".tmp-") {
            let path = filesDirectory.appendingPathComponent(name).path
            if let modified = (try? fm.attributesOfItem(atPath: path))?[.modificationDate] as? Date, modified < cutoff {
                unlink(path)
            }
        }
    }
}

/// A file's identity and last change, as `stat` reports them: what lets a read skip the
/// checksum for a file nobody has touched since it was published.
struct FileSignature: Equatable {
    var inode: UInt64
    /// Change time in nanoseconds.
    var ctime: Int64

    init(inode: UInt64, ctime: Int64) {
        self.inode = inode
        self.ctime = ctime
    }

    init(_ info: stat) {
        inode = UInt64(info.st_ino)
        ctime = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }
}
