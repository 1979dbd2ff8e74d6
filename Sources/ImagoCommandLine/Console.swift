// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(Glibc)
import Glibc
#endif

/// Terminal output without Foundation's `FileHandle` and formatters (the tool builds on
/// FoundationEssentials, which keeps its start-up memory down by about 7 MB).
package enum Console {
    /// Writes `text` to standard output as is, unbuffered (frames of an animation go out whole).
    package static func output(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes `text` to standard error as is.
    package static func error(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private static func write(_ text: String, to fd: Int32) {
        var remaining = Array(text.utf8)[...]
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            remaining = remaining.dropFirst(written)
        }
    }

    /// Whether standard error is a terminal (progress bars go there only then).
    package static var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// A size for people: `1.5 MB`, `820 KB`, `12 bytes` (decimal units, as `ByteCountFormatter`'s file style).
    package static func byteCount(_ bytes: Int) -> String {
        if bytes < 1000 { return "\(bytes) bytes" }
        let units = ["KB", "MB", "GB", "TB", "PB"]
        var value = Double(bytes) / 1000, unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return "\(decimal(value, places: value < 10 ? 1 : 0)) \(units[unit])"
    }

    /// `value` rounded to `places` decimals (no locale, no trailing zeros dropped).
    package static func decimal(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        guard places > 0 else { return String(scaled) }
        let sign = scaled < 0 ? "-" : ""
        let magnitude = abs(scaled), whole = magnitude / Int(scale), fraction = magnitude % Int(scale)
        let digits = String(fraction)
        return "\(sign)\(whole).\(String(repeating: "0", count: places - digits.count))\(digits)"
    }

    /// Whether `path` names a regular file (following symbolic links).
    package static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// The size of the file at `path` in bytes, or 0 when it cannot be read.
    package static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// Whether `path` names a directory.
    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }
}
