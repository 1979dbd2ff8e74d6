// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// `g:obj:face`, `g:objw`, faces in `g:sm`, the fallbacks, and `/info`'s `detect_objects`.
// One test at a time: every render here searches for faces, and the suite must not starve the
// timing tests that run beside it.
@Suite("Service faces: object gravity, smart crops that keep faces", .serialized, .enabled(if: Portraits.isAvailable, Portraits.missingReason))
struct ServiceFacesTests {
    /// The astronaut at (1088, 388) in a 1600×900 canvas of gravel, as PNG.
    /// (Off the cooperative pool, as every heavy step of these tests: see `blocking`.)
    static func source(at x: Int = 1088, _ y: Int = 388) async throws -> Data {
        try await blocking {
            let canvas = try Portraits.canvas(
                try Portraits.picture("astronaut.png"), at: x, y, width: 1600, height: 900, background: try Portraits.picture("gravel.png"))
            return try ImageCoderRegistry.shared.encode(Image(buffer: canvas), as: .png)
        }
    }

    static func faces(_ reply: Reply) async throws -> [DetectedObject] {
        let body = reply
        return try await blocking { try FaceDetector().faces(in: try body.image().buffer) }
    }

    @Test("g:obj:face and g:sm keep the face in fill and crop; g:objw weighs it; the result's size is asked's")
    func keepsFaces() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("portrait.png", data: try await Self.source())
            h.origin.register("left.png", data: try await Self.source(at: 0, 0))
            // The options and the face's size in the result (the source's 93 px, scaled).
            let cases: [(String, Double)] = [
                ("rs:fill:600:600/g:obj:face", 600 / 900), ("rs:fill:600:600/g:sm", 600 / 900), ("rs:fill:600:600/g:objw:all:1:face:2", 600 / 900),
                ("c:700:700:obj:face/rs:fill:600:600", 600 / 700), ("c:700:700:sm/rs:fill:600:600", 600 / 700)
            ]
            for (options, scale) in cases {
                for file in ["portrait.png", "left.png"] {
                    let r = try await h.get(h.plain(options, "/img/\(file)"))
                    #expect(r.status == 200, "\(options): \(r.errorFields)")
                    let image = try r.image()
                    #expect(image.pixelSize == PixelSize(width: 600, height: 600))
                    // The face is in the result, whole: the detector finds a face of its size there.
                    let size = Double(Portraits.astronautFace.width) * scale
                    let found = try await Self.faces(r)
                    #expect(found.contains { abs(Double($0.width) - size) < size * 0.25 }, "\(options) of \(file): \(found)")
                }
            }
            // The centre of a 1600x900 source, cut to 300x300 after the fill, holds no face.
            let centre = try await h.get(h.plain("rs:fill:600:600/g:ce", "/img/portrait.png"))
            let centreFaces = try await Self.faces(centre)
            #expect(!centreFaces.contains { abs(Double($0.width) - 62) < 16 })
        }
    }

    @Test("no object of the classes: smart crop (entropy) by default, the centre without the fallback; g:sm without faces as before")
    func fallbacks() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("portrait.png", data: try await Self.source())
            h.origin.register("coffee.png", data: try Portraits.data("coffee.png"))
            let cat = try await h.get(h.plain("rs:fill:300:300/g:obj:cat", "/img/portrait.png")).image().buffer
            let centre = try await h.get(h.plain("rs:fill:300:300/g:ce", "/img/portrait.png")).image().buffer
            #expect(cat.bytes != centre.bytes)
            try await ServiceHarness.with({ $0.drawing.smartCropFaceDetection = false }) { plain in
                plain.origin.register("portrait.png", data: try await Self.source())
                plain.origin.register("coffee.png", data: try Portraits.data("coffee.png"))
                // g:obj:cat falls back to the entropy crop: the pixels of g:sm without faces.
                let entropy = try await plain.get(plain.plain("rs:fill:300:300/g:sm", "/img/portrait.png")).image().buffer
                #expect(cat.bytes == entropy.bytes)
                // A picture without faces: g:sm gives the same pixels with face detection on and off.
                for options in ["rs:fill:200:300/g:sm", "c:200:200:sm", "rs:fill:400:100/g:sm"] {
                    let on = try await h.get(h.plain(options, "/img/coffee.png")).image().buffer
                    let off = try await plain.get(plain.plain(options, "/img/coffee.png")).image().buffer
                    #expect(on.bytes == off.bytes, "\(options)")
                }
            }
            try await ServiceHarness.with({ $0.drawing.objectDetectionFallbackToSmartCrop = false }) { centred in
                centred.origin.register("portrait.png", data: try await Self.source())
                let r = try await centred.get(centred.plain("rs:fill:300:300/g:obj:cat", "/img/portrait.png")).image().buffer
                #expect(r.bytes == centre.bytes)
            }
        }
    }

    @Test("obj and objw in the URL: refused where they mean nothing, canonical for the cache")
    func parsing() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("portrait.png", data: try await Self.source())
            for bad in ["ex:1:obj", "exar:1:objw:face:2", "g:objw:face", "g:objw", "g:obj:fa ce", "g:objw:face:-1"] {
                let r = try await h.get(h.plain(bad + "/w:100", "/img/portrait.png"))
                #expect(r.status == 404, "\(bad)")
            }
            // The same crop by two spellings shares the ETag.
            let a = try await h.get(h.plain("rs:fill:300:300/g:obj:face", "/img/portrait.png"))
            let b = try await h.get(h.plain("rs:fill:300:300/g:objw:face:1", "/img/portrait.png"))
            #expect(a["etag"] != nil && a["etag"] == b["etag"])
        }
    }

    @Test("objects_position: the face at the left, the right, or where it was; parsed as a gravity or prop")
    func objectsPosition() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("middle.png", data: try await Self.source(at: 544, 194))
            func face(_ options: String) async throws -> DetectedObject {
                let r = try await h.get(h.plain("rs:fill:400:600/g:obj:face" + (options.isEmpty ? "" : "/" + options), "/img/middle.png"))
                #expect(r.status == 200, "\(options): \(r.errorFields)")
                let found = try await Self.faces(r)
                return try #require(found.first { abs($0.width - 62) < 16 }, "\(options)")
            }
            #expect(try await face("op:we").x < 16)
            let east = try await face("op:ea")
            #expect(east.x + east.width > 384, "\(east)")
            let west10 = try await face("obj_pos:we:40")
            #expect(west10.x > 30 && west10.x < 56, "\(west10)")
            let centred = try await face("op:ce"), plain = try await face("")
            let middle = centred.x + centred.width / 2
            #expect(abs(centred.x - plain.x) <= 2 && abs(middle - 200) < 16)
            let focus = try await face("op:fp:0.25:0.5")
            let quarter = focus.x + focus.width / 2
            #expect(abs(quarter - 100) < 16, "\(focus)")
            // prop: the face as far across the result as across the source (about 45%).
            let prop = try await face("op:prop")
            let across: Double = Double(prop.x + prop.width / 2) / 400
            let inSource: Double = Double(544 + 177 + 46) / 1600
            #expect(abs(across - inSource) < 0.05, "\(prop)")
            for bad in ["op:sm", "op:obj", "op:prop:1", "op:fp:0.5"] {
                #expect(try await h.get(h.plain("rs:fill:400:600/g:obj:face/" + bad, "/img/middle.png")).status == 404, "\(bad)")
            }
        }
    }

    @Test("blur_detections hides the face and nothing else; draw_detections outlines it")
    func blurAndDraw() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("portrait.png", data: try await Self.source())
            let plain = try await h.get(h.plain("rs:fill:600:600/g:obj:face/f:png", "/img/portrait.png"))
            let plainFaces = try await Self.faces(plain)
            let face = try #require(plainFaces.first { abs($0.width - 62) < 16 })
            for options in ["bd:12:face", "bd:12", "blur_detections:12:all"] {
                let r = try await h.get(h.plain("rs:fill:600:600/g:obj:face/f:png/" + options, "/img/portrait.png"))
                #expect(r.status == 200, "\(options): \(r.errorFields)")
                let blurred = try await Self.faces(r)
                #expect(!blurred.contains { abs($0.width - 62) < 16 }, "\(options): the face is still there")
                // Far from the face every pixel is as it was.
                let a = try plain.image().buffer.converted(to: .rgba8), b = try r.image().buffer.converted(to: .rgba8)
                let y = face.y + face.height + 60 < 600 ? face.y + face.height + 60 : max(0, face.y - 60)
                let row = Array(a.bytes[(y * 600 * 4)..<((y + 1) * 600 * 4)]), same = Array(b.bytes[(y * 600 * 4)..<((y + 1) * 600 * 4)])
                #expect(row == same, "\(options)")
            }
            // A class with no detections blurs nothing.
            let cat = try await h.get(h.plain("rs:fill:600:600/g:obj:face/f:png/bd:12:cat", "/img/portrait.png"))
            #expect(try cat.image().buffer.bytes == plain.image().buffer.bytes)
            let drawn = try await h.get(h.plain("rs:fill:600:600/g:obj:face/f:png/dd:1", "/img/portrait.png")).image().buffer.converted(to: .rgba8)
            // The top edge of the outline, within a few rows of where the result's own detection puts it.
            let red = (max(0, face.y - 6)...min(599, face.y + 6)).contains { y in
                let o = (y * 600 + face.x + face.width / 2) * 4
                return Array(drawn.bytes[o..<(o + 4)]) == [255, 0, 0, 255]
            }
            #expect(red)
            for bad in ["bd:-1", "bd:x", "dd:1:a b", "bd:2000"] {
                #expect(try await h.get(h.plain(bad + "/w:100", "/img/portrait.png")).status == 404, "\(bad)")
            }
        }
    }

    @Test("/info detect_objects: the face in fractions of the shown size, Pro's keys")
    func info() async throws {
        try await ServiceHarness.with { h in
            h.origin.register("portrait.png", data: try await Self.source())
            let r = try await h.get("/info" + h.plain("do:1", "/img/portrait.png"))
            #expect(r.status == 200, "\(r.errorFields)")
            let json = try #require(try JSONSerialization.jsonObject(with: r.body) as? [String: Any])
            let objects = try #require(json["objects"] as? [[String: Any]])
            let face = try #require(objects.first)
            #expect(objects.count == 1)
            #expect(face["class_name"] as? String == "face" && face["class_id"] as? Int == 0)
            let f = Portraits.astronautFace
            let left = try #require(face["left"] as? Double), top = try #require(face["top"] as? Double)
            #expect(abs(left - Double(1088 + f.x) / 1600) < 0.02 && abs(top - Double(388 + f.y) / 900) < 0.03, "\(face)")
            let width = try #require(face["width"] as? Double)
            #expect(abs(width - Double(f.width) / 1600) < 0.02)
            // crop: where a crop would be cut, by a fixed gravity from the header, by faces from the pixels.
            func crop(_ options: String) async throws -> [String: Double] {
                let r = try await h.get("/info" + h.plain(options, "/img/portrait.png"))
                let json = try #require(try JSONSerialization.jsonObject(with: r.body) as? [String: Any])
                return try #require(json["crop"] as? [String: Double], "\(options): \(json)")
            }
            let corner = try await crop("c:0.5:0.5:nowe")
            #expect(corner == ["left": 0, "top": 0, "width": 0.5, "height": 0.5])
            for gravity in ["obj:face", "sm"] {
                let c = try await crop("c:300:300:\(gravity)")
                let x0 = (c["left"] ?? 0) * 1600, y0 = (c["top"] ?? 0) * 900
                #expect(abs((c["width"] ?? 0) - 300.0 / 1600) < 1e-9)
                let fx = Double(1088 + f.x), fy = Double(388 + f.y)
                #expect(x0 <= fx + 4 && x0 + 300 >= fx + Double(f.width) - 4 && y0 <= fy + 4 && y0 + 300 >= fy + Double(f.height) - 4, "\(gravity): \(c)")
            }
            let none = try #require(try JSONSerialization.jsonObject(with: try await h.get("/info" + h.plain("", "/img/portrait.png")).body) as? [String: Any])
            #expect(none["objects"] == nil)
        }
    }
}
