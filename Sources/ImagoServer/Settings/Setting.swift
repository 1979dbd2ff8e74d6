// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// One setting of `imago-server`, declared once: its variable, imgproxy's names for it, what it
/// means, how its value reads and where it goes, and how its current value is shown.
///
/// Everything that lists or reads settings comes from these descriptors: the environment parser
/// (``ServerConfiguration/init(environment:)``), the `--set NAME=VALUE` and `--name value` flags,
/// `--help`, the start-up summary, imgproxy's names (`ServerConfiguration.imgproxyEquivalents`),
/// the near-miss check of misspelt names, and the settings table of the documentation (a test
/// compares it with ``SettingsTable/markdown(_:)``). Adding a setting is adding one descriptor.
///
/// `Root` is what the settings fill: ``ServerConfiguration`` for the service, the executable's
/// own settings for what concerns the whole process.
package struct Setting<Root>: Sendable {
    /// The variable, `IMAGO_…`.
    package let name: String
    /// imgproxy's names for the same setting, read when the `IMAGO_` one is not set.
    package let imgproxyNames: [String]
    /// What the setting does, in a line: `--help`, the start-up summary and the docs table show it.
    package let meaning: String
    /// The default as the documentation states it, when the value shown by ``show`` for
    /// `Root()` is not what a reader should see (the machine's cores, a folder of the user's).
    package let documentedDefault: String?
    /// The setting that reads this one with the rest of its group (`IMAGO_USE_S3` for
    /// `IMAGO_S3_REGION`), or `nil` when it reads itself.
    package let readBy: String?
    /// Reads the variable (and, for a setting that leads a group, its members) into a
    /// configuration. Does nothing when the variable is not set.
    package let read: @Sendable (EnvironmentReader, inout Root) throws(ConfigurationError) -> Void
    /// The value as the start-up summary shows it; secrets are shown as `(set)`.
    package let show: @Sendable (Root) -> String

    /// A descriptor from its parts; the typed constructors below are the usual way.
    package init(
        _ name: String, imgproxy: [String] = [], meaning: String, documentedDefault: String? = nil, readBy: String? = nil,
        read: @escaping @Sendable (EnvironmentReader, inout Root) throws(ConfigurationError) -> Void,
        show: @escaping @Sendable (Root) -> String
    ) {
        self.name = name
        self.imgproxyNames = imgproxy
        self.meaning = meaning
        self.documentedDefault = documentedDefault
        self.readBy = readBy
        self.read = read
        self.show = show
    }

    /// The command-line flag that sets it: `IMAGO_MAX_SRC_RESOLUTION` is `--max-src-resolution`.
    package var flag: String { SettingsTable.flag(for: name) }
}

/// What a setting's value must be, for the typed constructors.
package typealias SettingPath<Root, Value> = any WritableKeyPath<Root, Value> & Sendable

extension Setting {
    /// A `true`/`false` setting (also `1`/`0`, `yes`/`no`, `on`/`off`, `t`/`f`).
    package static func bool(
        _ name: String, _ path: SettingPath<Root, Bool>, imgproxy: String? = nil, _ meaning: String
    ) -> Setting {
        Setting(name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning) { env, root throws(ConfigurationError) in
            if let value = try env.bool(name) { root[keyPath: path] = value }
        } show: {
            "\($0[keyPath: path])"
        }
    }

    /// An integer within `range`.
    package static func int(
        _ name: String, _ path: SettingPath<Root, Int>, _ range: ClosedRange<Int>, imgproxy: String? = nil, documentedDefault: String? = nil,
        _ meaning: String
    ) -> Setting {
        Setting(name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning, documentedDefault: documentedDefault) { env, root throws(ConfigurationError) in
            if let value = try env.int(name, in: range) { root[keyPath: path] = value }
        } show: {
            "\($0[keyPath: path])"
        }
    }

    /// An optional integer within `range`; `0` (imgproxy's "no limit") leaves it unset when
    /// `zeroIsNone`.
    package static func int(
        _ name: String, _ path: SettingPath<Root, Int?>, _ range: ClosedRange<Int>, zeroIsNone: Bool = false, imgproxy: String? = nil,
        none: String = "none", _ meaning: String
    ) -> Setting {
        Setting(name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning) { env, root throws(ConfigurationError) in
            if zeroIsNone, env[name] == "0" {
                root[keyPath: path] = nil
            } else if let value = try env.int(name, in: range) {
                root[keyPath: path] = value
            }
        } show: {
            $0[keyPath: path].map(String.init) ?? none
        }
    }

    /// A positive number.
    package static func number(
        _ name: String, _ path: SettingPath<Root, Double>, imgproxy: String? = nil, _ meaning: String
    ) -> Setting {
        Setting(name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning) { env, root throws(ConfigurationError) in
            if let value = try env.double(name) { root[keyPath: path] = value }
        } show: {
            EnvironmentReader.text($0[keyPath: path])
        }
    }

    /// A duration given in seconds (fractions allowed); `0` is allowed, and means what the
    /// meaning says, when `zero` is `true`.
    package static func seconds(
        _ name: String, _ path: SettingPath<Root, Duration>, zero: Bool = false, imgproxy: String? = nil, _ meaning: String
    ) -> Setting {
        Setting(name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning) { env, root throws(ConfigurationError) in
            if zero, env[name] == "0" {
                root[keyPath: path] = .zero
            } else if let value = try env.seconds(name) {
                root[keyPath: path] = value
            }
        } show: {
            EnvironmentReader.text($0[keyPath: path])
        }
    }

    /// Any text.
    package static func text(
        _ name: String, _ path: SettingPath<Root, String>, imgproxy: String? = nil, _ meaning: String
    ) -> Setting {
        Setting(name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning) { env, root throws(ConfigurationError) in
            if let value = env[name] { root[keyPath: path] = value }
        } show: {
            $0[keyPath: path]
        }
    }

    /// Optional text; `none` is what the summary shows when it is unset. A `secret` is shown as
    /// `(set)`, never its value.
    package static func text(
        _ name: String, _ path: SettingPath<Root, String?>, secret: Bool = false, imgproxy: String? = nil, none: String = "none",
        documentedDefault: String? = nil, _ meaning: String
    ) -> Setting {
        Setting(name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning, documentedDefault: documentedDefault) { env, root throws(ConfigurationError) in
            if let value = env[name] { root[keyPath: path] = value }
        } show: { root in
            guard let value = root[keyPath: path] else { return none }
            return secret ? "(set)" : value
        }
    }

    /// One of an enumeration's raw values, read without regard to case.
    package static func choice<Value: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ path: SettingPath<Root, Value>, imgproxy: String? = nil, _ meaning: String
    ) -> Setting where Value.RawValue == String {
        Setting(name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning) { env, root throws(ConfigurationError) in
            guard let text = env[name] else { return }
            guard let value = Value(rawValue: text.lowercased()) else {
                let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError(variable: name, reason: "'\(text)' is not one of \(names)")
            }
            root[keyPath: path] = value
        } show: {
            $0[keyPath: path].rawValue
        }
    }

    /// A setting read by `leader`, the one that leads its group (``read`` does nothing): listed,
    /// shown and documented like the others.
    package static func member(
        _ name: String, of leader: String, imgproxy: String? = nil, documentedDefault: String? = nil, _ meaning: String,
        show: @escaping @Sendable (Root) -> String
    ) -> Setting {
        Setting(
            name, imgproxy: imgproxy.map { [$0] } ?? [], meaning: meaning, documentedDefault: documentedDefault, readBy: leader,
            read: { _, _ throws(ConfigurationError) in }, show: show)
    }
}

/// A setting's names, whatever it fills: what the environment's migration needs to know of the
/// settings a process reads besides the service's (``ServerConfiguration/migrate(_:alsoKnown:)``).
package struct SettingNames: Sendable, Hashable {
    /// The variable, `IMAGO_…`.
    package var name: String
    /// imgproxy's names for it.
    package var imgproxyNames: [String]
}

extension Setting {
    /// Its names.
    package var names: SettingNames { SettingNames(name: name, imgproxyNames: imgproxyNames) }
}
