// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCoders
import ImagoDiskIO

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Bytes stored for a key, with the metadata written beside them (an `ETag`, say).
public struct CachedData: Sendable, Hashable {
    /// The stored bytes.
    public var data: Data
    /// The metadata stored with them; empty when none was.
    public var metadata: [String: String]

    /// Creates a value.
    public init(data: Data, metadata: [String: String] = [:]) {
        self.data = data
        self.metadata = metadata
    }
}

/// An entry opened for reading where it lies (``DataCaching/openEntry(forKey:)``): a large value
/// as an open file, read or decoded a piece at a time rather than brought into memory whole.
public struct CachedEntry: Sendable {
    /// How the bytes are had.
    public enum Contents: Sendable {
        /// The bytes themselves: a small value, or one from a store without files.
        case data(Data)
        /// A file, open: it stays readable even if the entry is removed or replaced meanwhile.
        // Indirect, as `ImageRequest.Source.file`: one layout wherever the enum is copied.
        indirect case file(ImageFile)
    }

    /// The bytes, or the file holding them.
    public var contents: Contents
    /// The metadata stored with them.
    public var metadata: [String: String]
    /// A 64-bit digest of the bytes (``digest(of:)``), recorded when they were stored: equal bytes,
    /// equal digest. What a service puts in its `ETag`s without reading the bytes again.
    public var digest: UInt64

    /// Creates an entry.
    public init(contents: Contents, metadata: [String: String], digest: UInt64) {
        self.contents = contents
        self.metadata = metadata
        self.digest = digest
    }

    /// The size in bytes.
    public var size: Int {
        switch contents {
        case .data(let data): data.count
        case .file(let file): file.size
        }
    }

    /// The digest of `data` that entries record: a fast 64-bit checksum, for telling contents
    /// apart, not for security.
    public static func digest(of data: Data) -> UInt64 {
        Checksum.fast64(data)
    }
}

/// Encoded bytes by key: the disk layer of `ImageManager` (its configuration's `dataCache`, read
/// and written by request through `manager.cache`; Nuke's `DataCaching`). ``DiskCache`` is the
/// default; an object store or a shared network cache plugs in the same way.
///
/// The methods block (they do I/O): callers run them off the cooperative pool, as the pipeline
/// does on its own I/O queue. Implementations must be safe to call from several threads at once,
/// and a write must be atomic: a reader sees the old bytes or the new, never a mix.
public protocol DataCaching: Sendable {
    /// The bytes and metadata for `key`, or `nil` when there are none (or they expired or were
    /// found damaged).
    ///
    /// - Throws: when the store itself cannot be read.
    func cachedData(forKey key: String) throws -> CachedData?

    /// The entry for `key` opened where it lies, or `nil` as ``cachedData(forKey:)`` would give
    /// none: a large value as an open file with the digest recorded when it was stored, so a
    /// caller that decodes it a piece at a time never holds it whole. The default reads
    /// ``cachedData(forKey:)`` and computes the digest.
    ///
    /// - Throws: when the store itself cannot be read.
    func openEntry(forKey key: String) throws -> CachedEntry?

    /// Whether `key` has an entry, without reading its bytes.
    ///
    /// - Throws: when the store itself cannot be read.
    func contains(_ key: String) throws -> Bool

    /// Stores `data` and `metadata` for `key`, replacing any entry, atomically.
    ///
    /// - Throws: when writing fails; the previous entry, if any, is left intact.
    func setData(_ data: Data, forKey key: String, metadata: [String: String]) throws

    /// Replaces the metadata of `key`'s entry, keeping its bytes (a revalidation's new lifetime,
    /// say); does nothing when `key` is absent. The default reads the bytes and stores them again.
    ///
    /// - Throws: when the store cannot be read or written.
    func setMetadata(_ metadata: [String: String], forKey key: String) throws

    /// Removes the entry for `key`, if any.
    ///
    /// - Throws: when the store cannot be written.
    func removeValue(forKey key: String) throws

    /// Removes every entry whose key starts with `prefix`: how a purge reaches the results kept
    /// of one source (``DiskCache`` matches the keys in its manifest). The default throws
    /// ``DiskCacheError/store(_:)``: a store that cannot list its keys says so rather than keep
    /// what a purge meant to remove.
    ///
    /// - Throws: when the store cannot be written, or cannot find keys by prefix.
    func removeValues(withKeyPrefix prefix: String) throws

    /// Removes every entry.
    ///
    /// - Throws: when the store cannot be written.
    func removeAll() throws

    /// How many entries there are and their total size in bytes.
    ///
    /// - Throws: when the store cannot be read.
    func statistics() throws -> (count: Int, totalSize: Int)
}

extension DataCaching {
    /// ``cachedData(forKey:)`` as an entry of bytes, with their digest computed.
    ///
    /// - Throws: as ``cachedData(forKey:)``.
    public func openEntry(forKey key: String) throws -> CachedEntry? {
        try cachedData(forKey: key).map { CachedEntry(contents: .data($0.data), metadata: $0.metadata, digest: CachedEntry.digest(of: $0.data)) }
    }

    /// ``DataCaching/setMetadata(_:forKey:)`` by storing the bytes again with the new metadata.
    ///
    /// - Throws: as ``cachedData(forKey:)`` and ``setData(_:forKey:metadata:)``.
    public func setMetadata(_ metadata: [String: String], forKey key: String) throws {
        guard let existing = try cachedData(forKey: key) else { return }
        try setData(existing.data, forKey: key, metadata: metadata)
    }

    /// Throws: this store cannot find its keys by prefix.
    ///
    /// - Throws: ``DiskCacheError/store(_:)``, always.
    public func removeValues(withKeyPrefix prefix: String) throws {
        throw DiskCacheError.store("\(type(of: self)) cannot remove entries by key prefix")
    }

    /// The bytes for `key`, without their metadata.
    ///
    /// - Throws: as ``cachedData(forKey:)``.
    public func data(forKey key: String) throws -> Data? {
        try cachedData(forKey: key)?.data
    }

    /// Stores `data` for `key` without metadata.
    ///
    /// - Throws: as ``setData(_:forKey:metadata:)``.
    public func setData(_ data: Data, forKey key: String) throws {
        try setData(data, forKey: key, metadata: [:])
    }
}
