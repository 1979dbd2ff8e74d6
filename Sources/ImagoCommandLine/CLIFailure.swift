// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ArgumentParser
import ImagoCache
package import ImagoCore

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

extension ImageFormat {
    /// A format named on the command line: its short name (`jpeg`) or an extension (`jpg`).
    package init?(cliName name: String) {
        guard let f = ImageFormat(rawValue: name.lowercased()) ?? ImageFormat(fileExtension: name) else { return nil }
        self = f
    }
}

/// Shared failure path: one line on stderr naming the cause, exit status 1.
package enum CLIFailure {
    package static func exit(_ error: any Error, file: String) -> ExitCode {
        if let e = error as? ExitCode { return e }
        let line = "imago: \(file): \(describe(error))".split(separator: "\n").joined(separator: " ")
        Console.error(PathName.trimmed(line) + "\n")
        return ExitCode(1)
    }

    /// What went wrong, in a few words: the error's own description for Imago's errors, the
    /// cause for file errors.
    package static func describe(_ error: any Error) -> String {
        switch error {
        case let e as ImageCodingError: return e.description
        case let e as DiskCacheError: return e.description
        case let e as OutputFileError: return e.description
        case let e as CocoaError where e.code == .fileReadNoSuchFile || e.code == .fileNoSuchFile: return "no such file"
        case let e as CocoaError where e.code == .fileReadNoPermission || e.code == .fileWriteNoPermission:
            return "permission denied"
        case let e as CocoaError where e.code == .fileWriteOutOfSpace: return "no space left on the device"
        case let e as CocoaError: return "file error \(e.code.rawValue)"
        default: return String(describing: error)
        }
    }

    /// Reads a file without copying it into memory first (mapped when possible).
    package static func read(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
    }
}
