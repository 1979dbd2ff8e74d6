// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
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
    /// Fields read when a line is written, from the task writing it (the request id of the
    /// request it serves, with ``ServiceRequestScope/metadataProvider``). Default `nil`.
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    /// Creates a handler for loggers labelled `label`, with `metadataProvider`'s fields on each
    /// line (default none).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    /// A field added to every line.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one line of JSON: the handler's fields, the provider's, then the event's own.
    public func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata { fields[key] = "\(value)" }
        for (key, value) in metadataProvider?.get() ?? [:] { fields[key] = "\(value)" }
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

    /// `date` in ISO 8601, UTC, with milliseconds (`2026-11-26T21:30:00.123Z`).
    static func timestamp(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let millis = Int(ms % 1000 + (ms % 1000 < 0 ? 1000 : 0))
        let t = CivilTime(secondsSince1970: (ms - Int64(millis)) / 1000)
        let two = CivilTime.two
        let milli = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(t.year)-\(two(t.month))-\(two(t.day))T\(two(t.hour)):\(two(t.minute)):\(two(t.second)).\(milli)Z"
    }
}
