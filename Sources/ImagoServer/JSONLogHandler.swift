// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
public import Logging

/// A swift-log handler writing one JSON object per line to standard error (`IMAGO_LOG_FORMAT=json`,
/// imgproxy's `IMGPROXY_LOG_FORMAT=json`): `time` (RFC 3339, UTC, milliseconds), `level`,
/// `logger`, `message`, then every metadata field as a string. Lines are written whole, with one
/// `write`, so lines of concurrent requests never interleave.
public struct JSONLogHandler: LogHandler {
    /// The level below which nothing is written. Default `info`.
    public var logLevel: Logger.Level = .info
    /// Fields added to every line.
    public var metadata: Logger.Metadata = [:]
    private let label: String

    /// Creates a handler for loggers labelled `label`.
    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata { fields[key] = "\(value)" }
        for (key, value) in event.metadata ?? [:] { fields[key] = "\(value)" }
        fields["time"] = Self.timestamp(Date())
        fields["level"] = event.level.rawValue
        fields["logger"] = label
        fields["message"] = "\(event.message)"
        FileHandle.standardError.write(Self.line(fields))
    }

    /// The fields as one line of JSON: time, level, logger and message first, the rest by name.
    static func line(_ fields: [String: String]) -> Data {
        let first = ["time", "level", "logger", "message"]
        let order = first.filter { fields[$0] != nil } + fields.keys.filter { !first.contains($0) }.sorted()
        var text = "{"
        for (i, key) in order.enumerated() {
            if i > 0 { text += "," }
            text += JSONText.quoted(key) + ":" + JSONText.quoted(fields[key] ?? "")
        }
        text += "}\n"
        return Data(text.utf8)
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func timestamp(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = ms / 1000, millis = Int(ms % 1000)
        let days = Int(seconds / 86_400), rest = Int(seconds % 86_400)
        // civil_from_days (Howard Hinnant).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let milli = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)).\(milli)Z"
    }
}
