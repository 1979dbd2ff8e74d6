import ArgumentParser
import Foundation
import Imago

@main
struct ImagoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imago",
        abstract: "Inspect, decode and re-encode images with the Imago library.",
        subcommands: [InfoCommand.self, ConvertCommand.self, ThumbnailCommand.self, CacheCommand.self]
    )
}

extension ImageFormat {
    /// A format named on the command line: its short name (`jpeg`) or an extension (`jpg`).
    init?(cliName name: String) {
        guard let f = ImageFormat(rawValue: name.lowercased()) ?? ImageFormat(fileExtension: name) else { return nil }
        self = f
    }
}

/// Shared failure path: one line on stderr naming the cause, exit status 1.
enum CLIFailure {
    static func exit(_ error: any Error, file: String) -> ExitCode {
        let message: String
        switch error {
        case let e as ImageCodingError: message = e.description
        case let e as DiskCacheError: message = e.description
        case let e as ExitCode: return e
        case let e as CocoaError where e.code == .fileReadNoSuchFile: message = "no such file"
        case let e as CocoaError: message = e.localizedDescription
        default: message = String(describing: error)
        }
        let line = "imago: \(file): \(message)\n".replacingOccurrences(of: "\n", with: " ")
        FileHandle.standardError.write(Data((line.trimmingCharacters(in: .whitespaces) + "\n").utf8))
        return ExitCode(1)
    }

    /// Reads a file without copying it into memory first (mapped when possible).
    static func read(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
    }
}
