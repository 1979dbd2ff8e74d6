// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoServer

/// The settings given on `imago-server serve`'s command line: `--set NAME=VALUE`, and every
/// setting as a flag of its own name (``Setting/flag``), `--NAME VALUE` or `--NAME=VALUE`.
enum SettingFlags {
    /// Each setting's flag, the service's and the process's.
    static let names: [String: String] = Dictionary(
        uniqueKeysWithValues: (ServerConfiguration.settings.map(\.names) + ProcessSettings.names).map { (SettingsTable.flag(for: $0.name), $0.name) })

    /// The variables `set` and `flags` give, by name.
    ///
    /// - Throws: `ValidationError` for a flag that names no setting (with the nearest one), a
    ///   flag without a value, or a `--set` that is not `IMAGO_NAME=VALUE`.
    static func parse(set: [String], flags: [String]) throws -> [String: String] {
        var out: [String: String] = [:]
        for item in set {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0].hasPrefix("IMAGO_") else { throw ValidationError("--set takes IMAGO_NAME=VALUE, not '\(item)'") }
            out[parts[0]] = parts[1]
        }
        var rest = flags[...]
        while let token = rest.popFirst() {
            let parts = token.split(separator: "=", maxSplits: 1).map(String.init)
            guard let name = names[parts[0]] else {
                let near = names.keys.min { ServerConfiguration.distance(token, $0) < ServerConfiguration.distance(token, $1) }
                throw ValidationError("'\(token)' is not a setting's flag" + (near.map { "; did you mean \($0)?" } ?? ""))
            }
            if parts.count == 2 {
                out[name] = parts[1]
            } else if let value = rest.popFirst() {
                out[name] = value
            } else {
                throw ValidationError("\(token) needs a value")
            }
        }
        return out
    }
}
