// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// A moment as UTC calendar fields, for the timestamps written without a formatter (the JSON
/// log's, AWS signatures'): Howard Hinnant's `civil_from_days`, proleptic Gregorian.
package struct CivilTime: Sendable, Equatable {
    package var year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64

    /// The fields of `seconds` since 1970-01-01T00:00:00Z (negative ones too).
    package init(secondsSince1970 seconds: Int64) {
        var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        hour = rest / 3600
        minute = rest / 60 % 60
        second = rest % 60
    }

    /// `v` in at least two digits.
    package static func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
