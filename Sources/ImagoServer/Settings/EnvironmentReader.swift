// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ImagoCore
import ImagoServiceURL

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Typed reads of environment values, for the settings' descriptors (``Setting``). A value is
/// trimmed, and an empty one is as if unset. Every failure names the variable.
package struct EnvironmentReader: Sendable {
    /// The variables, by name.
    package let values: [String: String]

    /// Reads `values`.
    package init(values: [String: String]) {
        self.values = values
    }

    /// The trimmed value of `name`; `nil` when unset or empty.
    package subscript(_ name: String) -> String? {
        values[name].map { PathName.trimmed($0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `1`, `t`, `true`, `yes`, `on` or their opposites, in any case.
    package func bool(_ name: String) throws(ConfigurationError) -> Bool? {
        guard let v = self[name] else { return nil }
        switch v.lowercased() {
        case "1", "t", "true", "yes", "on": return true
        case "0", "f", "false", "no", "off": return false
        default: throw ConfigurationError(variable: name, reason: "'\(v)' is not true or false")
        }
    }

    /// An integer within `range`.
    package func int(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let v = self[name] else { return nil }
        guard let n = Int(v), range.contains(n) else { throw ConfigurationError(variable: name, reason: "'\(v)' is not an integer in \(range)") }
        return n
    }

    /// A positive, finite number.
    package func double(_ name: String) throws(ConfigurationError) -> Double? {
        guard let v = self[name] else { return nil }
        guard let d = Double(v), d.isFinite, d > 0 else { throw ConfigurationError(variable: name, reason: "'\(v)' is not a positive number") }
        return d
    }

    /// A positive number of seconds, at most a billion, to the millisecond.
    package func seconds(_ name: String) throws(ConfigurationError) -> Duration? {
        guard let d = try double(name) else { return nil }
        guard d <= 1_000_000_000 else { throw ConfigurationError(variable: name, reason: "'\(d)' seconds is too long") }
        return .milliseconds(Int64((d * 1000).rounded()))
    }

    /// A comma-separated list, its entries trimmed and the empty ones left out.
    package func list(_ name: String) -> [String]? {
        self[name].map { $0.split(separator: ",").map { PathName.trimmed($0) }.filter { !$0.isEmpty } }
    }

    /// An image given as base64 in `name` or as a file at the path in `path` (which wins, as it
    /// is read later), read and sniffed here, at start.
    package func imageData(_ name: String, path: String) throws(ConfigurationError) -> Data? {
        var out: Data?
        if let data = self[name] {
            guard let bytes = Data(base64Encoded: data), ImageFormat(sniffing: bytes) != nil else {
                throw ConfigurationError(variable: name, reason: "not base64 of an image")
            }
            out = bytes
        }
        if let file = self[path] {
            guard let bytes = FileManager.default.contents(atPath: file), ImageFormat(sniffing: bytes) != nil else {
                throw ConfigurationError(variable: path, reason: "'\(file)' is not a readable image")
            }
            out = bytes
        }
        return out
    }

    /// A comma-separated list of format names (`jpeg`, `png`, `webp`, …), in order.
    package func formats(_ name: String) throws(ConfigurationError) -> [ImageFormat]? {
        guard let v = self[name] else { return nil }
        var formats: [ImageFormat] = []
        for part in v.split(separator: ",") {
            guard let format = ImageFormat(serviceExtension: PathName.trimmed(part)) else {
                throw ConfigurationError(variable: name, reason: "'\(part)' is not an image format")
            }
            formats.append(format)
        }
        return formats
    }

    /// An `http` or `https` URL.
    package func httpURL(_ name: String) throws(ConfigurationError) -> String? {
        guard let url = self[name] else { return nil }
        guard url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            throw ConfigurationError(variable: name, reason: "'\(url)' is not an http or https URL")
        }
        return url
    }

    /// An `http` or `https` URL with a host.
    package func endpoint(_ name: String) throws(ConfigurationError) -> URL? {
        guard let text = try httpURL(name) else { return nil }
        guard let url = URL(string: text), url.host?.isEmpty == false else {
            throw ConfigurationError(variable: name, reason: "'\(text)' has no host")
        }
        return url
    }

    /// A number as a setting is written: `50`, not `50.0`.
    package static func text(_ number: Double) -> String {
        number == number.rounded() && Swift.abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// Seconds as a setting is written: `3600`, `0.5`.
    package static func text(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return text(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
