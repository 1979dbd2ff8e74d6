// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoDiskIO

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// How the command-line tools write the files they make.
package enum OutputFile {
    /// Writes `data` to `url` atomically: a temporary file in the same folder, renamed over
    /// `url`, so nobody sees half a file under its name, and a failure leaves what was there.
    /// It does not wait for the disk (no `fsync`), as `cp`, `djpeg` and `vips` do not: waiting
    /// would hold each decoded image's slot for the disk's time, and a batch would run at the
    /// disk's pace instead of the cores'.
    ///
    /// - Throws: ``OutputFileError`` naming `url` and the system's reason.
    package static func write(_ data: Data, to url: URL) throws(OutputFileError) {
        do {
            try DiskFile.replace(url.path, with: data, sync: false)
        } catch {
            throw OutputFileError(path: url.path, reason: error.reason)
        }
    }
}

/// A file the tools could not write: its path and the system's reason.
package struct OutputFileError: Error, CustomStringConvertible {
    package var path: String
    package var reason: String

    package var description: String { "cannot write \(path): \(reason)" }
}
