// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoHeap

/// The process's limit of open files, which bounds the connections a server may hold
/// (`HTTPSettings.connectionLimits(openFiles:)`).
enum ProcessLimits {
    /// The current limit (`RLIMIT_NOFILE`'s soft value); `nil` when unlimited or unknown.
    static var openFiles: Int? {
        let limit = imago_open_files_limit(0)
        return limit > 0 ? limit : nil
    }

    /// Raises the soft limit of open files to the hard one, as Go's runtime (and so imgproxy)
    /// does at start, and returns the new limit. The `imago-server` executable calls it before
    /// it makes its service; an app embedding the service decides for itself.
    @discardableResult
    static func raiseOpenFiles() -> Int? {
        let limit = imago_open_files_limit(1)
        return limit > 0 ? limit : nil
    }
}
