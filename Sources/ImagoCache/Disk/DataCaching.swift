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

/// Encoded bytes by key: the disk layer under ``ImageCache`` and `ImageManager` (Nuke's
/// `DataCaching`). ``DiskCache`` is the default; an object store or a shared network cache plugs
/// in the same way.
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

    /// Whether `key` has an entry, without reading its bytes.
    ///
    /// - Throws: when the store itself cannot be read.
    func contains(_ key: String) throws -> Bool

    /// Stores `data` and `metadata` for `key`, replacing any entry, atomically.
    ///
    /// - Throws: when writing fails; the previous entry, if any, is left intact.
    func setData(_ data: Data, forKey key: String, metadata: [String: String]) throws

    /// Removes the entry for `key`, if any.
    ///
    /// - Throws: when the store cannot be written.
    func removeValue(forKey key: String) throws

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
