// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(Glibc)
import Glibc
#endif

/// Where Imago's own shared libraries are looked for: `libImagoPDF` (poppler's renderer) and
/// `libImagoFaceDetector` (OpenCV), each opened on first use so that a process that never needs
/// one never maps the large library behind it.
package enum ImagoLibraries {
    /// The files to try for the library `name` (say `libImagoPDF.so`), in order: beside the
    /// executable (where SwiftPM builds it), in `../lib/imago` from it (where the Debian package
    /// installs it), then the bare name, for the dynamic loader's own search.
    package static func candidates(_ name: String) -> [String] {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return [name] }
        let exe = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = exe.lastIndex(of: "/") else { return [name] }
        let dir = String(exe[..<slash])
        return ["\(dir)/\(name)", "\(dir)/../lib/imago/\(name)", name]
    }

    /// Tries `open` on each candidate until one succeeds; the path it opened, or the last
    /// failure's message.
    package static func open(_ name: String, explicit: String? = nil, with open: (String) -> String?) -> Result<String, LoadFailure> {
        var last = "not found"
        for path in explicit.map({ [$0] }) ?? candidates(name) where !path.utf8.contains(0) {
            guard let failure = open(path) else { return .success(path) }
            last = failure
        }
        return .failure(LoadFailure(message: last))
    }

    /// Why a library could not be opened (the last candidate's message).
    package struct LoadFailure: Error, Sendable {
        package let message: String
    }
}
