// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// `color_profile` (imgproxy Pro's): results converted into Display P3, sRGB or a profile file.
@Suite("Service color_profile: results in Display P3, sRGB or a profile file")
struct ServiceColorProfileTests {
    /// A saturated red and green, which Display P3 writes with smaller numbers than sRGB.
    static func source() throws -> Data {
        var bytes = [UInt8]()
        for _ in 0..<20 {
            for x in 0..<40 { bytes += x < 20 ? [255, 0, 0, 255] : [0, 255, 0, 255] }
        }
        return try ImageCoderRegistry.shared.encode(Image(buffer: try PixelBuffer(width: 40, height: 20, format: .rgba8, bytes: bytes)), as: .png)
    }

    /// The result's pixels as stored and the profile it carries.
    static func stored(_ reply: Reply) throws -> (pixels: PixelBuffer, icc: Data?) {
        let image = try ImageCoderRegistry.shared.decode(reply.body, options: DecodeOptions(pixelFormat: .rgba8, colorManagement: false))
        return (image.buffer.converted(to: .rgba8), image.metadata.iccProfile)
    }

    @Test("display-p3: P3's numbers for sRGB's red, the profile embedded; a reader converting back gets sRGB's red")
    func displayP3() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("rg.png", data: try Self.source())
            for ext in ["png", "jpg", "webp"] {
                let r = try await h.get(h.plain("cp:display-p3", "/img/rg.png", ext: ext))
                #expect(r.status == 200, "\(ext): \(r.errorFields)")
                let (pixels, icc) = try Self.stored(r)
                #expect(icc == ColorProfiles.displayP3, "\(ext)")
                // sRGB's pure red is about (234, 51, 35) in Display P3.
                let red = Array(pixels.bytes[(10 * 40 + 5) * 4..<(10 * 40 + 5) * 4 + 3])
                #expect(abs(Int(red[0]) - 234) <= 4 && abs(Int(red[1]) - 51) <= 6 && abs(Int(red[2]) - 35) <= 8, "\(ext): \(red)")
                // Read with colour management: back to sRGB's red.
                let shown = try r.image().buffer.converted(to: .rgba8)
                let back = Array(shown.bytes[(10 * 40 + 5) * 4..<(10 * 40 + 5) * 4 + 3])
                #expect(back[0] >= 245 && back[1] <= 12 && back[2] <= 12, "\(ext): \(back)")
            }
            // srgb: the pixels as they are, with the profile; icc and cp are the same option.
            let srgb = try Self.stored(try await h.get(h.plain("icc:srgb", "/img/rg.png", ext: "png")))
            #expect(srgb.icc == ColorProfiles.sRGB && Array(srgb.pixels.bytes.prefix(3)) == [255, 0, 0])
            // Formats that carry no profile ignore the option, as Pro does.
            let gif = try await h.get(h.plain("cp:display-p3", "/img/rg.png", ext: "gif"))
            let gifPixels = try Self.stored(gif).pixels
            #expect(gif.status == 200 && Array(gifPixels.bytes.prefix(3)) == [255, 0, 0])
            // Without the option, nothing changes.
            #expect(try Self.stored(try await h.get(h.plain("", "/img/rg.png", ext: "png"))).icc == nil)
        }
    }

    @Test("a Display P3 source sent on in Display P3 keeps its colours outside sRGB; to sRGB they are brought in")
    func wideSource() async throws {
        // P3's pure green, which sRGB cannot show: through sRGB it would come back near (117, 251, 76).
        let green = try PixelBuffer(width: 8, height: 8, format: .rgba8, bytes: [UInt8]((0..<64).flatMap { _ in [0, 255, 0, 255] }))
        var image = Image(buffer: green)
        image.metadata.iccProfile = ColorProfiles.displayP3
        let source = try ImageCoderRegistry.shared.encode(image, as: .png)
        try await ServiceHarness.with { h in
            h.origin.register("p3.png", data: source)
            let kept = try Self.stored(try await h.get(h.plain("cp:display-p3/w:4", "/img/p3.png", ext: "png")))
            #expect(kept.icc == ColorProfiles.displayP3 && Array(kept.pixels.bytes.prefix(4)) == [0, 255, 0, 255], "\(Array(kept.pixels.bytes.prefix(4)))")
            let srgb = try Self.stored(try await h.get(h.plain("cp:srgb/w:4", "/img/p3.png", ext: "png")))
            #expect(srgb.icc == ColorProfiles.sRGB && srgb.pixels.bytes[1] == 255 && srgb.pixels.bytes[0] < 20, "\(Array(srgb.pixels.bytes.prefix(4)))")
        }
    }

    @Test("a profile file by name, with or without .icc; unknown names, CMYK and bad names are refused")
    func files() async throws {
        let dir = try TestFiles.temporaryDirectory("imago-profiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        try ColorProfiles.displayP3.write(to: dir.appendingPathComponent("wide.icc"))
        try Data("not a profile".utf8).write(to: dir.appendingPathComponent("junk.icc"))
        try await ServiceHarness.with({ $0.output.colorProfilesDirectory = dir.path }) { h in
            h.origin.register("rg.png", data: try Self.source())
            for name in ["wide", "wide.icc"] {
                let r = try await h.get(h.plain("cp:\(name)", "/img/rg.png", ext: "png"))
                let icc = try Self.stored(r).icc
                #expect(r.status == 200 && icc == ColorProfiles.displayP3, "\(name)")
            }
            for name in ["missing", "junk", "cmyk"] {
                let r = try await h.get(h.plain("cp:\(name)", "/img/rg.png", ext: "png"))
                #expect(r.status == 422, "\(name): \(r.status)")
            }
            for bad in ["..%2Fetc", ".hidden", "a%2Fb"] {
                let r = try await h.get(h.plain("cp:\(bad)", "/img/rg.png", ext: "png"))
                #expect(r.status == 404, "\(bad): \(r.status)")
            }
        }
    }
}
