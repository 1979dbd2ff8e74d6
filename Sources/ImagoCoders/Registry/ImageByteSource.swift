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

/// Encoded bytes read in order, a piece at a time: what a streamed decode reads from, so a large
/// file never has to be in memory (or mapped and touched) all at once.
public protocol ImageByteSource: AnyObject {
    /// The next bytes, at most `maxLength` of them; empty at the end.
    ///
    /// - Throws: the source's own read error.
    func read(maxLength: Int) throws -> Data

    /// Copies the next bytes into `buffer`, at most its count, and returns how many: 0 at the
    /// end. The default copies what ``read(maxLength:)`` returns; sources that can read straight
    /// into memory (a file) do, so a decoder reusing one buffer allocates nothing per piece.
    ///
    /// - Throws: the source's own read error.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

extension ImageByteSource {
    /// Copies what ``read(maxLength:)`` returns into `buffer`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let piece = try read(maxLength: buffer.count)
        return piece.withUnsafeBytes { raw in
            let n = min(raw.count, buffer.count)
            if n > 0, let from = raw.baseAddress, let to = buffer.baseAddress { to.copyMemory(from: from, byteCount: n) }
            return n
        }
    }
}

/// Bytes already in memory, handed out as slices that share the data's storage.
public final class DataByteSource: ImageByteSource {
    private let data: Data
    private var offset: Int

    /// Creates a source reading `data` from its start.
    public init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    /// The next slice of `data`.
    public func read(maxLength: Int) throws -> Data {
        let end = min(data.endIndex, offset + max(0, maxLength))
        defer { offset = end }
        return data[offset..<end]
    }
}

/// A file read with plain `read(2)` calls into a reused buffer, so the memory a decode holds
/// for its input is one piece, however large the file (libvips's sequential access). Unlike
/// ``ImageFile``, which reads at offsets, it reads a pipe or FIFO too.
public final class FileByteSource: ImageByteSource {
    private let descriptor: Int32
    /// The file's path, for messages.
    public let path: String

    /// Opens the file at `url` for reading.
    ///
    /// - Throws: `CocoaError(.fileReadNoSuchFile)`, `.fileReadNoPermission` or `.fileReadUnknown`.
    public init(url: URL) throws {
        path = url.path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw CocoaError(code == ENOENT ? .fileReadNoSuchFile : code == EACCES ? .fileReadNoPermission : .fileReadUnknown)
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Up to `maxLength` next bytes of the file; empty at its end.
    ///
    /// - Throws: `CocoaError(.fileReadUnknown)` when the read fails.
    public func read(maxLength: Int) throws -> Data {
        var chunk = Data(count: max(0, maxLength))
        chunk.count = try chunk.withUnsafeMutableBytes { try read(into: $0) }
        return chunk
    }

    /// Reads the next bytes of the file straight into `buffer`; 0 at its end.
    ///
    /// - Throws: `CocoaError(.fileReadUnknown)` when the read fails.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try fill(buffer) { base, count, _ in Glibc.read(descriptor, base, count) }
    }
}

/// Fills `buffer` by calling `read(at, count, filled)` until it is full or `read` returns 0
/// (the end), retrying interrupted calls; returns how many bytes it holds.
///
/// - Throws: `CocoaError(.fileReadUnknown)` when a read fails.
func fill(
    _ buffer: UnsafeMutableRawBufferPointer,
    with read: (UnsafeMutableRawPointer, Int, Int) -> Int
) throws -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var filled = 0
    while filled < buffer.count {
        let n = read(base + filled, buffer.count - filled, filled)
        if n == 0 { break }
        if n < 0 {
            if errno == EINTR { continue }
            throw CocoaError(.fileReadUnknown)
        }
        filled += n
    }
    return filled
}
