// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE` through the service.
@Suite("IMAGO_USE_LINEAR_COLORSPACE")
struct LinearColorspaceServiceTests {
    @Test("a checkerboard PNG halves to sRGB 188 with it, 128 without; the two are different results with different ETags")
    func checkerboard() async throws {
        var bytes: [UInt8] = []
        for y in 0..<64 { for x in 0..<64 { bytes += (x + y) % 2 == 0 ? [255, 255, 255, 255] : [0, 0, 0, 255] } }
        let png = try ImageCoderRegistry.shared.encode(
            Image(buffer: try PixelBuffer(width: 64, height: 64, format: .rgba8, bytes: bytes)), as: .png)
        #expect(try ServerConfiguration(environment: ["IMGPROXY_USE_LINEAR_COLORSPACE": "true"]).output.useLinearColorspace)
        var etags: [String] = []
        for (linear, grey) in [(true, 186...190), (false, 126...130)] {
            try await ServiceHarness.with({ $0.output.useLinearColorspace = linear }) { h in
                h.origin.register("board.png", data: png)
                let r = try await h.get(h.plain("w:32/f:png", "/img/board.png"))
                let centre = try r.image().frame(at: 0).buffer.converted(to: .rgba8).withUnsafeBytes { Int($0[16 * 32 * 4 + 16 * 4]) }
                #expect(r.status == 200 && grey.contains(centre), "linear \(linear): \(centre)")
                etags.append(r["etag"] ?? "")
            }
        }
        #expect(etags[0] != etags[1])
    }
}
