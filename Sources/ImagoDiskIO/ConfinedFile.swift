// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Glibc

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Reads files inside one directory, and only there: what a service needs to serve
/// `local:///path` without letting a URL read `/etc/passwd`.
///
/// The path is walked one component at a time with `openat(2)` and `O_NOFOLLOW` from a
/// descriptor of the root, so no `..`, absolute path or symbolic link (at any depth, including
/// one swapped in while the walk runs) can lead out of it.
package enum ConfinedFile {
    /// Why a confined read failed.
    package enum Failure: Error, Sendable, Hashable {
        /// The root directory cannot be opened.
        case rootUnavailable(String)
        /// A component is empty, `.` or `..`, or holds a NUL.
        case invalidComponent(String)
        /// No such file (or a directory on the way is missing).
        case notFound
        /// A symbolic link, a special file, or a directory where a file was expected.
        case notAllowed(String)
        /// Larger than the limit.
        case tooLarge(size: Int, limit: Int)
        /// Another system error.
        case io(String)
    }

    /// Reads the file at `components` below `root`.
    ///
    /// - Parameters:
    ///   - root: The directory files may be read from; it may itself be reached through links.
    ///   - components: The path below it, one name per element (no `/`).
    ///   - maxBytes: Files larger than this are refused before reading.
    /// - Throws: ``Failure``.
    package static func read(root: String, components: [String], maxBytes: Int) throws(Failure) -> Data {
        for c in components where c.isEmpty || c == "." || c == ".." || c.contains("/") || c.utf8.contains(0) {
            throw .invalidComponent(c)
        }
        guard !components.isEmpty else { throw .notAllowed("the root itself") }
        var dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { throw .rootUnavailable(String(cString: strerror(errno))) }
        for name in components.dropLast() {
            let next = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(dir)
            guard next >= 0 else { throw failure(code, name) }
            dir = next
        }
        let last = components[components.count - 1]
        // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat refuses it next.
        let fd = openat(dir, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        let code = errno
        close(dir)
        guard fd >= 0 else { throw failure(code, last) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notAllowed("not a regular file") }
        let size = Int(info.st_size)
        guard size <= maxBytes else { throw .tooLarge(size: size, limit: maxBytes) }
        var data = Data(count: size)
        var failed: Int32 = 0
        let got = data.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            var offset = 0
            while offset < size {
                let n = Glibc.read(fd, base + offset, size - offset)
                if n < 0, errno == EINTR { continue }
                if n < 0 { failed = errno }
                if n <= 0 { break }
                offset += n
            }
            return offset
        }
        if failed != 0 { throw .io(String(cString: strerror(failed))) }
        // A file that shrank while being read gives what it holds now.
        if got < size { data.removeSubrange(got...) }
        return data
    }

    private static func failure(_ code: Int32, _ name: String) -> Failure {
        switch code {
        case ENOENT: .notFound
        // ELOOP: a symbolic link under O_NOFOLLOW; ENOTDIR: a file or a link where a folder was expected.
        case ELOOP, ENOTDIR, EACCES, EPERM: .notAllowed(name)
        default: .io(String(cString: strerror(code)))
        }
    }
}
