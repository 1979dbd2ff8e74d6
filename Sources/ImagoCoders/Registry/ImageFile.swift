// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// An image file opened for reading, decoded where it lies instead of from its bytes in memory.
///
/// Decoders that read their input in order (``StreamingImageDecoding``: JPEG, PNG stills) take
/// it a piece at a time through ``makeByteSource()``, so decoding a 40 MB JPEG holds one 64 KiB
/// piece of it rather than 40 MB; formats that need their bytes at hand (animations decoded
/// frame by frame, WebP, TIFF) get all of it from ``contents()``.
///
/// The descriptor stays open as long as the value lives, and every reader reads at its own
/// offset (`pread`), so one file can serve several decodes at once from any task. A file removed
/// (unlinked) while open stays readable; one truncated while open reads short, which decoders
/// report as truncated data.
public final class ImageFile: Sendable, Hashable {
    /// The path it was opened at, for messages.
    public let path: String
    /// The size when it was opened, in bytes.
    public let size: Int
    private let descriptor: Int32
    /// Whether ``contents()`` maps the file (no copy) rather than reading it: only for files
    /// nobody truncates in place (the disk cache publishes by rename and removes by unlink), since
    /// a page past a new end raises `SIGBUS`.
    package let mapsContents: Bool

    /// Opens the file at `path` read-only.
    ///
    /// - Throws: `CocoaError(.fileReadNoSuchFile)`, `.fileReadNoPermission` or `.fileReadUnknown`
    ///   (also for a directory or anything else that is not a regular file).
    public convenience init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw CocoaError(code == ENOENT ? .fileReadNoSuchFile : code == EACCES ? .fileReadNoPermission : .fileReadUnknown)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw CocoaError(.fileReadUnknown)
        }
        self.init(adopting: fd, size: Int(info.st_size), path: path, mapsContents: false)
    }

    /// Takes ownership of `descriptor`, an open regular file of `size` bytes, closing it when the
    /// value goes (the disk cache hands out its entries this way). With `mapsContents`,
    /// ``contents()`` maps the file instead of reading it: only for files never truncated in place.
    package init(adopting descriptor: Int32, size: Int, path: String, mapsContents: Bool) {
        self.descriptor = descriptor
        self.size = size
        self.path = path
        self.mapsContents = mapsContents
    }

    deinit { close(descriptor) }

    /// Up to `buffer.count` bytes from `offset` into `buffer`; fewer only at the end of the file.
    ///
    /// - Throws: `CocoaError(.fileReadUnknown)` when the read fails.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard offset >= 0 else { return 0 }
        return try fill(buffer) { base, count, filled in pread(descriptor, base, count, off_t(offset + filled)) }
    }

    /// Up to `maxLength` bytes from `offset`: the header a format is told by, say.
    ///
    /// - Throws: `CocoaError(.fileReadUnknown)` when the read fails.
    public func read(at offset: Int, maxLength: Int) throws -> Data {
        let length = max(0, min(maxLength, size - offset))
        guard length > 0 else { return Data() }
        var data = Data(count: length)
        let n = try data.withUnsafeMutableBytes { try read(at: offset, into: $0) }
        data.count = n
        return data
    }

    /// The same open file: files compare by identity.
    public static func == (a: ImageFile, b: ImageFile) -> Bool { a === b }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// A reader from the first byte onwards, with a position of its own.
    public func makeByteSource() -> any ImageByteSource { ImageFileReader(file: self) }

    /// All of the file: read into memory, or for the disk cache's entries mapped read-only (no
    /// copy: the page cache's pages; the mapping lives as long as the `Data`).
    ///
    /// - Throws: `CocoaError(.fileReadUnknown)` when it cannot be read, or reads short (the file
    ///   was truncated).
    public func contents() throws -> Data {
        guard size > 0 else { return Data() }
        if mapsContents, let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED {
            return Data(bytesNoCopy: base, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
        }
        let data = try read(at: 0, maxLength: size)
        guard data.count == size else { throw CocoaError(.fileReadUnknown) }
        return data
    }
}

/// Reads an ``ImageFile`` in order from its start.
final class ImageFileReader: ImageByteSource {
    private let file: ImageFile
    private var offset = 0

    init(file: ImageFile) { self.file = file }

    func read(maxLength: Int) throws -> Data {
        let piece = try file.read(at: offset, maxLength: maxLength)
        offset += piece.count
        return piece
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = try file.read(at: offset, into: buffer)
        offset += n
        return n
    }
}
