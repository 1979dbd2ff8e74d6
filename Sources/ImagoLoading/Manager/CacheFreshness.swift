// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// How long downloaded bytes stay fresh in the disk cache, from the origin's `Cache-Control`,
/// `Expires`, `Date` and `Age` (RFC 9111, as a shared cache reads them): `no-store` is not kept,
/// `no-cache` is kept but revalidated on every use, `s-maxage` then `max-age` then `Expires`
/// give the lifetime, held within ``minimum`` and ``maximum``; a response that says nothing
/// lives ``default``. A stale entry is revalidated with `If-None-Match` and `If-Modified-Since`,
/// and kept (with a new lifetime) when the origin answers 304.
public struct CacheFreshness: Sendable, Hashable {
    /// The lifetime of a response without `Cache-Control` lifetimes or `Expires`. `nil` keeps it
    /// until the cache evicts it.
    public var `default`: Duration?
    /// The shortest lifetime given to a stored response (`no-cache` is always revalidated).
    public var minimum: Duration
    /// The longest lifetime given to any response. `nil`: no cap.
    public var maximum: Duration?
    /// A cache shared by many users (a service): `private` responses are not kept either.
    public var shared: Bool

    /// Creates a policy; `minimum` defaults to 0, `maximum` to none, `shared` to `false`.
    public init(default: Duration?, minimum: Duration = .zero, maximum: Duration? = nil, shared: Bool = false) {
        self.default = `default`
        self.minimum = minimum
        self.maximum = maximum
        self.shared = shared
    }

    /// The origin's word, and bytes without one kept until evicted: the library's default.
    public static let origin = CacheFreshness(default: nil)

    /// What to do with a response.
    package enum Lifetime: Sendable, Hashable {
        /// Do not keep it (`no-store`).
        case noStore
        /// Keep it, fresh until the date (`nil`: until evicted).
        case fresh(until: Date?)
    }

    /// The lifetime of a response with these (lowercased) header fields, received at `now`.
    package func lifetime(headers: [String: String], now: Date = Date()) -> Lifetime {
        let directives = Self.directives(headers["cache-control"] ?? "")
        if directives["no-store"] != nil || (shared && directives["private"] != nil) { return .noStore }
        var seconds: Double?
        if directives["no-cache"] != nil {
            seconds = 0
        } else if let s = directives["s-maxage"].flatMap(Self.integer) ?? directives["max-age"].flatMap(Self.integer) {
            seconds = Double(s)
        } else if let expires = headers["expires"] {
            // An Expires that does not parse (such as 0) means already expired.
            if let at = HTTPDate.parse(expires) {
                let date = headers["date"].flatMap(HTTPDate.parse) ?? now
                seconds = max(0, at.timeIntervalSince(date))
            } else {
                seconds = 0
            }
        }
        guard var lifetime = seconds ?? self.default.map(Self.seconds) else {
            return .fresh(until: maximum.map { now.addingTimeInterval(Self.seconds($0)) })
        }
        if let age = headers["age"].flatMap(Self.integer), seconds != nil { lifetime -= Double(age) }
        if directives["no-cache"] == nil { lifetime = max(lifetime, Self.seconds(minimum)) }
        if let maximum { lifetime = min(lifetime, Self.seconds(maximum)) }
        return .fresh(until: now.addingTimeInterval(max(0, lifetime)))
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func integer(_ text: String) -> Int? {
        var t = Substring(PathName.trimmed(Substring(text)))
        if t.hasPrefix("\""), t.hasSuffix("\""), t.count >= 2 { t = t.dropFirst().dropLast() }
        guard let n = Int(t), n >= 0 else { return nil }
        return n
    }

    /// `Cache-Control`'s directives by lowercased name (value `""` when none).
    static func directives(_ field: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in field.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard let name = pair.first.map({ PathName.trimmed($0).lowercased() }), !name.isEmpty else { continue }
            out[name] = pair.count > 1 ? PathName.trimmed(pair[1]) : ""
        }
        return out
    }
}

/// HTTP dates in RFC 9110's preferred form, `Sun, 06 Nov 1994 08:49:37 GMT` (the obsolete forms
/// are not read: an `Expires` in them counts as already expired, as RFC 9111 allows).
package enum HTTPDate {
    /// `date` (whole seconds, rounded down) in that form.
    package static func format(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let t = CivilTime(secondsSince1970: seconds)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        // 1970-01-01 was a Thursday.
        let weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][Int(((days % 7) + 11) % 7)]
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][Int(t.month - 1)]
        let two = CivilTime.two
        return "\(weekday), \(two(t.day)) \(month) \(t.year) \(two(t.hour)):\(two(t.minute)):\(two(t.second)) GMT"
    }

    package static func parse(_ text: String) -> Date? {
        let parts = PathName.trimmed(Substring(text)).split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int(parts[1]), let year = Int(parts[3]), (1601...9999).contains(year),
            let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].firstIndex(of: String(parts[2]))
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        // Days from 1970-01-01 to the date (Howard Hinnant's days_from_civil).
        let m = month + 1
        let y = m <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]))
    }
}
