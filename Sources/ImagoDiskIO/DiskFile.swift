// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Glibc
import Synchronization

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Why a file operation failed: the path and the system's reason (`strerror`).
package struct DiskIOError: Error, Sendable, Hashable {
    package var path: String
    package var reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    fileprivate static func errno(_ path: String) -> DiskIOError {
        DiskIOError(path: path, reason: String(cString: strerror(Glibc.errno)))
    }
}

/// A file's identity and last change, as `stat` reports them: what lets a read skip the
/// checksum for a file nobody has touched since it was published.
package struct FileSignature: Equatable, Sendable {
    package var inode: UInt64
    /// Change time in nanoseconds.
    package var ctime: Int64

    package init(inode: UInt64, ctime: Int64) {
        self.inode = inode
        self.ctime = ctime
    }

    fileprivate init(_ info: stat) {
        inode = UInt64(info.st_ino)
        ctime = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    /// The signature of the file at `path`, or `nil` when it cannot be read.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }
}

/// The POSIX file operations of the disk cache: whole-file writes and reads with one system call
/// loop each, atomic renames, unlinks.
package enum DiskFile {
    /// This process's id, for naming temporary files.
    package static var processID: Int32 { getpid() }

    /// Writes all bytes to a new file (it must not exist); with `sync`, `fsync`s before
    /// returning, so a rename that follows publishes a complete file even across a power loss.
    /// A failed write leaves no file behind.
    package static func write(_ data: Data, to path: String, sync: Bool) throws(DiskIOError) {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .errno(path) }
        var failure: DiskIOError?
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if Glibc.errno == EINTR { continue }
                    failure = .errno(path)
                    return
                }
                offset += n
            }
        }
        if failure == nil, sync, fsync(fd) != 0 { failure = .errno(path) }
        close(fd)
        if let failure {
            unlink(path)
            throw failure
        }
    }

    /// Replaces the file at `path` with `data` atomically: the bytes go to a new temporary file
    /// in the same folder, which is then renamed over `path`, so a reader sees the old file or
    /// the whole new one, never a part. With `sync` the temporary file is `fsync`ed first (the
    /// new file survives a power loss); without it the write is as `cp` and `djpeg` make it,
    /// and the kernel writes it back in its own time. A failure leaves `path` as it was and no
    /// temporary file behind. `temporary` names the temporary file (it must be on the same file
    /// system); by default `.NAME.imago-PID-N` beside `path`.
    ///
    /// - Throws: ``DiskIOError`` with the `errno` of the failed create, write, sync or rename.
    package static func replace(_ path: String, with data: Data, sync: Bool, temporary: String? = nil) throws(DiskIOError) {
        let temporary = temporary ?? defaultTemporary(for: path)
        try write(data, to: temporary, sync: sync)
        do {
            try rename(temporary, to: path)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// `.NAME.imago-PID-N` in the folder of `path`.
    private static func defaultTemporary(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return folder + ".\(name).imago-\(processID)-\(temporaryCounter.add(1, ordering: .relaxed).newValue)"
    }

    /// Numbers the temporary files of ``replace(_:with:sync:temporary:)`` within this process.
    private static let temporaryCounter = Atomic<Int>(0)

    /// Reads a whole file with one `open`, `fstat` and `read` loop into a buffer of the
    /// expected size; `nil` when it is missing, unreadable, or not exactly that size.
    /// `unchanged` tells whether the open file still has the inode and ctime of `signature`.
    package static func read(_ path: String, expectedSize: Int, signature: FileSignature) -> (data: Data, unchanged: Bool)? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == expectedSize else { return nil }
        let unchanged = signature.inode != 0 && FileSignature(info) == signature
        var data = Data(count: expectedSize)
        let complete = data.withUnsafeMutableBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return expectedSize == 0 }
            var offset = 0
            while offset < expectedSize {
                let n = Glibc.read(fd, base + offset, expectedSize - offset)
                if n < 0, Glibc.errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        return complete ? (data, unchanged) : nil
    }

    /// Maps a whole file read-only (`MAP_PRIVATE | MAP_POPULATE`: every page mapped up front
    /// from the page cache, no copy and no page faults later) and wraps the mapping in `Data`
    /// that unmaps it when the last copy goes; `nil` when the file is missing, unreadable, not
    /// exactly `expectedSize` bytes, or cannot be mapped. Empty files give empty `Data`.
    ///
    /// A mapped file must not be truncated while the `Data` lives: reading a page past the new
    /// end raises `SIGBUS`. Files published by rename and removed by unlink, as the disk cache
    /// does, are safe: the mapping keeps the old inode.
    package static func map(_ path: String, expectedSize: Int, signature: FileSignature) -> (data: Data, unchanged: Bool)? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == expectedSize else { return nil }
        let unchanged = signature.inode != 0 && FileSignature(info) == signature
        guard expectedSize > 0 else { return (Data(), unchanged) }
        guard let base = mmap(nil, expectedSize, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), base != MAP_FAILED else {
            return nil
        }
        let data = Data(
            bytesNoCopy: base, count: expectedSize,
            deallocator: .custom { pointer, count in
                munmap(pointer, count)
            })
        return (data, unchanged)
    }

    /// Opens a file read-only for the caller to own (and close); `nil` when it is missing,
    /// unreadable, or not exactly `expectedSize` bytes. `unchanged` tells whether it still has the
    /// inode and ctime of `signature`.
    package static func open(_ path: String, expectedSize: Int, signature: FileSignature) -> (descriptor: Int32, unchanged: Bool)? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == expectedSize else {
            _ = Glibc.close(fd)
            return nil
        }
        return (fd, signature.inode != 0 && FileSignature(info) == signature)
    }

    /// Closes a descriptor from ``open(_:expectedSize:signature:)``.
    package static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// Renames `source` over `destination` atomically.
    package static func rename(_ source: String, to destination: String) throws(DiskIOError) {
        guard Glibc.rename(source, destination) == 0 else { throw .errno(destination) }
    }

    /// Removes the file at `path`; a missing file is not an error.
    package static func remove(_ path: String) {
        unlink(path)
    }
}
