// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoServer

/// `imago-server settings`: every setting with its flag, default and meaning, from the settings'
/// descriptors; `--markdown` prints the table Running the Service has (a test compares them).
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "List every setting: its variable, flag, default and meaning.")

    @Flag(help: "Print the Markdown table of the documentation.")
    var markdown = false

    /// The rows of every setting, the service's then the process's.
    static var rows: [SettingsTable.Row] {
        SettingsTable.rows(ServerConfiguration.settings, defaults: ServerConfiguration())
            + SettingsTable.rows(ProcessSettings.settings, defaults: ProcessSettings())
    }

    func run() {
        print(markdown ? SettingsTable.markdown(Self.rows) : SettingsTable.help(Self.rows))
    }
}
