// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import HTTPTypes
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// `Range` on `raw` answers: players (Safari's above all) ask for video in ranges, which
/// imgproxy passes to the origin and Imago answers from the source it keeps.
@Suite("Range requests on raw answers")
struct RangeTests {
    @Test("one byte range is read as RFC 9110 reads it; several, malformed or another unit get the whole answer")
    func parsing() {
        let cases: [(String, Int, ServiceRange?)] = [
            ("bytes=0-1", 10, .part(0..<2)), ("bytes=2-", 10, .part(2..<10)), ("bytes=-3", 10, .part(7..<10)),
            ("bytes=-30", 10, .part(0..<10)), ("bytes=5-100", 10, .part(5..<10)), ("BYTES= 0-0 ", 10, .part(0..<1)),
            ("bytes=0-99999999999999999999", 10, .part(0..<10)), ("bytes=10-", 10, .unsatisfiable), ("bytes=-0", 10, .unsatisfiable),
            ("bytes=99999999999999999999-", 10, .unsatisfiable), ("bytes=0-", 0, .unsatisfiable), ("bytes=3-2", 10, nil),
            ("bytes=0-1,4-5", 10, nil), ("items=0-1", 10, nil), ("bytes=a-b", 10, nil), ("bytes=-", 10, nil), ("bytes=1", 10, nil),
            ("bytes=+1-2", 10, nil)
        ]
        for (value, length, expected) in cases {
            #expect(ServiceRange.parse(value, length: length) == expected, "\(value) of \(length)")
        }
    }

    @Test("raw: 206 with Content-Range from memory and from the cached file, 416 past the end, If-Range and 304 honoured")
    func rawRanges() async throws {
        let bytes = Data((0..<1000).map { UInt8($0 % 251) })
        try await ServiceHarness.with { h in
            h.origin.register("clip.mp4", data: bytes, contentType: "video/mp4")
            let path = h.plain("raw:1", "/img/clip.mp4")
            let whole = try await h.get(path)
            #expect(whole.status == 200 && whole["accept-ranges"] == "bytes" && whole.body == bytes)
            // The first answer and the next (the source then read from the disk cache).
            for (range, part) in [("bytes=0-1", 0..<2), ("bytes=500-", 500..<1000), ("bytes=-10", 990..<1000)] {
                let r = try await h.get(path, headers: ["Range": range])
                #expect(r.status == 206 && r.body == bytes.subdata(in: part), "\(range): \(r.status) \(r.body.count)")
                #expect(r["content-range"] == "bytes \(part.lowerBound)-\(part.upperBound - 1)/1000")
            }
            let past = try await h.get(path, headers: ["Range": "bytes=1000-"])
            #expect(past.status == 416 && past["content-range"] == "bytes */1000" && past.body.isEmpty)
            let several = try await h.get(path, headers: ["Range": "bytes=0-1,4-5"])
            #expect(several.status == 200 && several.body == bytes)
            // If-Range: the answer's own ETag keeps the range; another one, or a weak one, gets it whole.
            let etag = whole["etag"] ?? ""
            #expect(try await h.get(path, headers: ["Range": "bytes=0-1", "If-Range": etag]).status == 206)
            #expect(try await h.get(path, headers: ["Range": "bytes=0-1", "If-Range": "\"other\""]).body == bytes)
            #expect(try await h.get(path, headers: ["Range": "bytes=0-1", "If-Range": "W/" + etag]).status == 200)
            // A copy the client holds is still a 304, range or not.
            #expect(try await h.get(path, headers: ["Range": "bytes=0-1", "If-None-Match": etag]).status == 304)
        }
    }

    @Test("a processed answer is sent whole, whatever the Range")
    func processedWhole() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("a.png", data: try ServerFixtures.png(width: 40, height: 20))
            let r = try await h.get(h.plain("w:20", "/img/a.png"), headers: ["Range": "bytes=0-1"])
            #expect(r.status == 200 && r["accept-ranges"] == nil && r["content-range"] == nil)
            #expect(try r.image().pixelSize.width == 20)
        }
    }
}
