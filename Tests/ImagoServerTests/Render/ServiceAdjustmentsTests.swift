// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy Pro's colour options and Imago's rounded corners, through the service.
@Suite("Service colour adjustments and rounded corners")
struct ServiceAdjustmentsTests {
    @Test("names, aliases and adjust's shorthand read alike; canonical forms differ from none; bad values refused")
    func parsing() throws {
        let long = try ProcessingOptions(parsing: [
            "brightness:30", "contrast:1.5", "saturation:0.5", "monochrome:0.4:ff0000", "duotone:1:000:fff", "colorize:0.2:00f:1", "rounded_corners:12"
        ])
        let short = try ProcessingOptions(parsing: ["a:30:1.5:0.5", "mc:0.4:f00", "dt:1", "col:0.2:0000ff:t", "rc:12"])
        #expect(long.canonicalPath == short.canonicalPath)
        #expect(long.adjustments.brightness == 30 && long.adjustments.contrast == 1.5 && long.adjustments.saturation == 0.5)
        #expect(long.adjustments.colorizeKeepsAlpha && long.roundedCorners == 12)
        #expect(
            try ProcessingOptions(parsing: ["a::2"]).adjustments
                == {
                    var a = ProcessingOptions.Adjustments()
                    a.contrast = 2
                    return a
                }())
        #expect(try ProcessingOptions(parsing: ["br:0", "co:1", "sa:1", "mc:0"]).canonicalPath == "")
        for bad in [["br:256"], ["br:1.5"], ["co:-1"], ["sa:x"], ["mc:2"], ["dt:0.5:zzz"], ["col:1.5"], ["rc:-3"], ["a:1:2:3:4"]] {
            #expect(throws: ServiceURLError.self, "\(bad)") { try ProcessingOptions(parsing: bad) }
        }
    }

    @Test("saturation 0 makes a gray answer; monochrome and duotone act on the result; the ETag follows")
    func colours() async throws {
        try await ServiceHarness.with { h in
            let data = try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.noisy(width: 60, height: 40)), as: .png)
            h.origin.register("c.png", data: data, contentType: "image/png")
            let plain = try await h.get(h.plain("", "/img/c.png"))
            let gray = try await h.get(h.plain("sa:0", "/img/c.png"))
            #expect(gray.status == 200 && gray["etag"] != plain["etag"])
            let pixels = try gray.image().buffer.converted(to: .rgba8)
            let spread = pixels.bytes.withUnsafeBufferPointer { p in
                stride(from: 0, to: p.count, by: 4).map { max(p[$0], p[$0 + 1], p[$0 + 2]) - min(p[$0], p[$0 + 1], p[$0 + 2]) }.max() ?? 0
            }
            #expect(spread <= 2)
            let duo = try await h.get(h.plain("dt:1:ff0000:ffff00/w:30", "/img/c.png"))
            let duoPixels = try duo.image().buffer.converted(to: .rgba8)
            #expect(duoPixels.width == 30)
            let first = try #require(duoPixels.color(atX: 3, y: 3))
            #expect(first.r >= 250 && first.b <= 5, "red to yellow: \(first)")
            let refused = try await h.get(h.plain("br:999", "/img/c.png"))
            #expect(
                refused.status == 404 && refused.errorFields["error"] == "invalid_url", "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
        }
    }

    @Test("rounded corners: transparent in PNG, the background in JPEG, scaled by dpr")
    func corners() async throws {
        try await ServiceHarness.with { h in
            let data = try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: 80, height: 60)), as: .jpeg)
            h.origin.register("r.jpg", data: data, contentType: "image/jpeg")
            let png = try await h.get(h.plain("rc:10/f:png", "/img/r.jpg"))
            let p = try png.image().buffer.converted(to: .rgba8)
            #expect(try #require(p.color(atX: 0, y: 0)).a == 0)
            #expect(try #require(p.color(atX: 79, y: 59)).a == 0)
            #expect(try #require(p.color(atX: 40, y: 30)).a == 255)
            #expect(try #require(p.color(atX: 10, y: 0)).a == 255, "past the radius the edge is whole")
            let jpeg = try await h.get(h.plain("rc:10/bg:00ff00", "/img/r.jpg"))
            let j = try #require(try jpeg.image().buffer.converted(to: .rgba8).color(atX: 0, y: 0))
            #expect(j.g > 200 && j.r < 60 && j.b < 60, "\(j)")
            let doubled = try await h.get(h.plain("rc:10/dpr:2/f:png/el:1", "/img/r.jpg"))
            let d = try doubled.image().buffer.converted(to: .rgba8)
            #expect(try #require(d.color(atX: 4, y: 4)).a == 0, "a 20-px radius at dpr 2")
        }
    }
}
