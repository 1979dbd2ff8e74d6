// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ServerConfiguration {
    /// Every setting with its current value, for the start-up log (keys, salts, secrets and
    /// credentials shown as `(set)`).
    public var summary: [(String, String)] {
        Self.settings.map { ($0.name, $0.show(self)) }
    }

    /// What each setting means, by name: for `imago-server --help`.
    package static var meanings: [String: String] {
        Dictionary(uniqueKeysWithValues: settings.map { ($0.name, $0.meaning) })
    }
}

/// The settings as the documentation and `--help` list them, made from their descriptors.
package enum SettingsTable {
    /// One row a setting: its variable, its default and its meaning.
    package struct Row: Sendable, Equatable {
        /// The variable.
        package var name: String
        /// The default, as documented.
        package var defaultValue: String
        /// What it does.
        package var meaning: String
    }

    /// The rows of `settings`, with the defaults of `defaults`.
    package static func rows<Root>(_ settings: [Setting<Root>], defaults: Root) -> [Row] {
        settings.map { Row(name: $0.name, defaultValue: $0.documentedDefault ?? $0.show(defaults), meaning: $0.meaning) }
    }

    /// A Markdown table of `rows` (`| variable | default | meaning |`), as Running the Service has it.
    package static func markdown(_ rows: [Row]) -> String {
        let lines = rows.map { "| `\($0.name)` | \(escaped($0.defaultValue)) | \(escaped($0.meaning)) |" }
        return (["| variable | default | meaning |", "|---|---|---|"] + lines).joined(separator: "\n")
    }

    /// Lines for `--help`: `  IMAGO_NAME, --flag (default): meaning`.
    package static func help(_ rows: [Row]) -> String {
        rows.map { row in
            "  \(row.name), \(flag(for: row.name)) (\(row.defaultValue)): \(row.meaning)"
        }.joined(separator: "\n")
    }

    /// The command-line flag that sets a variable: `IMAGO_MAX_SRC_RESOLUTION` is
    /// `--max-src-resolution`.
    package static func flag(for name: String) -> String {
        "--" + name.dropFirst("IMAGO_".count).lowercased().replacing("_", with: "-")
    }

    private static func escaped(_ text: String) -> String {
        text.replacing("|", with: "\\|")
    }
}
