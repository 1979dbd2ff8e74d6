// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Testing

@testable import ImagoServer

@Suite("The JSON log's timestamps: ISO 8601 in UTC with milliseconds")
struct JSONLogTimestampTests {
    @Test("epoch, a leap day, the last second of a century and a moment before 1970")
    func timestamps() {
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 951_782_400 + 3_723.5)) == "2000-02-29T01:02:03.500Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: 4_102_444_799.25)) == "2099-12-31T23:59:59.250Z")
        #expect(JSONLogHandler.timestamp(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    }
}
