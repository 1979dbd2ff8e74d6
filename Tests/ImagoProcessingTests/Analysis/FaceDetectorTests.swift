// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// Faces through OpenCV (libImagoFaceDetector, loaded on first use) and the crops that keep them.
// One test at a time: each runs OpenCV's search many times, and the suite must not starve the
// timing tests that run beside it.
@Suite("Faces: detection and object-aware crops", .serialized, .enabled(if: Portraits.isAvailable, Portraits.missingReason))
struct FaceDetectorTests {
    @Test("the astronaut's face is found where it is, in its own pixels")
    func astronaut() async throws {
        let photo = try Portraits.picture("astronaut.png")
        let faces = try await blocking { try FaceDetector().faces(in: photo) }
        let face = try #require(faces.first)
        #expect(faces.count == 1)
        #expect(face.className == "face")
        let f = Portraits.astronautFace
        #expect(abs(face.x - f.x) <= 8 && abs(face.y - f.y) <= 8 && abs(face.width - f.width) <= 12)
        #expect(face.confidence > 0.5 && face.confidence < 1)
    }

    @Test("pictures without a face give none")
    func noFaces() async throws {
        for name in ["coffee.png", "rocket.jpg", "grass.png", "gravel.png", "brick.png", "hubble_deep_field.jpg"] {
            let picture = try Portraits.picture(name)
            let faces = try await blocking { try FaceDetector().faces(in: picture) }
            #expect(faces.isEmpty, "\(name): \(faces)")
        }
    }

    @Test("off-centre at many positions in a larger canvas: every crop keeps the whole face")
    func offCentre() async throws {
        let photo = try Portraits.picture("astronaut.png")
        let gravel = try Portraits.picture("gravel.png")
        let f = Portraits.astronautFace
        let detector = FaceDetector()
        // A wide and a tall canvas; the portrait at 4 × 3 positions in each, corners included.
        for (cw, ch) in [(1600, 900), (900, 1500)] {
            for i in 0..<4 {
                for j in 0..<3 {
                    let px = (cw - photo.width) * i / 3, py = (ch - photo.height) * j / 2
                    let faces = try await blocking {
                        try detector.faces(in: try Portraits.canvas(photo, at: px, py, width: cw, height: ch, background: gravel))
                    }
                    let face = try #require(faces.first, "no face with the portrait at \(px), \(py) in \(cw)x\(ch)")
                    #expect(faces.count == 1, "\(faces)")
                    // The detection covers the face it should.
                    let fx = px + f.x, fy = py + f.y
                    #expect(abs(face.x - fx) <= 12 && abs(face.y - fy) <= 12, "\(face) for \(fx), \(fy)")
                    // Crops narrower and shorter than the canvas, some barely larger than the face.
                    for (w, h) in [(300, ch), (cw, 300), (200, 200), (cw / 2, ch / 2), (120, 120)] {
                        let o = try #require(
                            ImageAnalysis.objectCropOrigin(faces, width: w, height: h, imageWidth: cw, imageHeight: ch))
                        #expect(o.x >= 0 && o.y >= 0 && o.x + w <= cw && o.y + h <= ch)
                        // The true face (not only the detection) is inside the crop.
                        #expect(
                            fx >= o.x && fy >= o.y && fx + f.width <= o.x + w && fy + f.height <= o.y + h,
                            "\(w)x\(h) at \(o) leaves out the face at \(fx), \(fy) (portrait at \(px), \(py) in \(cw)x\(ch))")
                    }
                }
            }
        }
    }

    @Test("object crops: weights, the weighted centre, classes left out, nothing to keep")
    func objectCrops() {
        let a = DetectedObject(className: "face", x: 100, y: 100, width: 50, height: 50)
        let b = DetectedObject(className: "face", x: 800, y: 120, width: 50, height: 50)
        let cat = DetectedObject(className: "cat", x: 500, y: 500, width: 100, height: 100)
        // Both fit in 800 px: kept together, centred between them.
        let both = ImageAnalysis.objectCropOrigin([a, b], width: 800, height: 300, imageWidth: 1000, imageHeight: 700)
        #expect(both.map { $0.x <= 100 && $0.x + 800 >= 850 } == true)
        // Only one fits in 300 px: the heavier class wins.
        let heavy = DetectedObject(className: "person", x: 800, y: 120, width: 50, height: 50)
        let pick = ImageAnalysis.objectCropOrigin(
            [a, heavy], width: 300, height: 300, imageWidth: 1000, imageHeight: 700, weights: ["person": 3])
        #expect(pick.map { $0.x <= 800 && $0.x + 300 >= 850 } == true)
        // Named classes only, unless "all" is weighed.
        #expect(ImageAnalysis.objectCropOrigin([cat], width: 100, height: 100, imageWidth: 1000, imageHeight: 700, weights: ["face": 1]) == nil)
        let all = ImageAnalysis.objectCropOrigin([cat], width: 200, height: 200, imageWidth: 1000, imageHeight: 700, weights: ["all": 1])
        #expect(all.map { $0.x == 450 && $0.y == 450 } == true)
        #expect(ImageAnalysis.objectCropOrigin([], width: 10, height: 10, imageWidth: 100, imageHeight: 100) == nil)
        // Placements (objects_position): where the one object lands in a 300x300 window of 1000x700.
        let one = [DetectedObject(className: "face", x: 400, y: 300, width: 50, height: 50)]
        func place(_ p: ObjectPlacement) -> [Int] {
            let o = ImageAnalysis.objectCropOrigin(one, width: 300, height: 300, imageWidth: 1000, imageHeight: 700, placement: p)
            return o.map { [$0.x, $0.y] } ?? []
        }
        #expect(place(.center) == [275, 175])
        #expect(place(.edges(x: -1, y: -1, dx: 10, dy: 10)) == [390, 290])
        #expect(place(.edges(x: 1, y: 1)) == [150, 50])
        #expect(place(.point(x: 0.25, y: 0.75)) == [350, 100])
        #expect(place(.proportional) == [298, 186])
        // Past the image's edge the window stops at it.
        #expect(place(.edges(x: -1, y: 1, dx: 0, dy: 0)) == [400, 50])
    }

    @Test("a detector that cannot load says why, and a short time limit still returns")
    func unavailableAndTimeLimit() async throws {
        let missing = FaceDetector(configuration: .init(cascadePath: "/nonexistent/cascade.xml"))
        #expect(!missing.isAvailable)
        #expect(throws: ImageCodingError.self) { try missing.faces(in: try Fixtures.gradient(width: 64, height: 64)) }
        let photo = try Portraits.picture("astronaut.png")
        let hurried = FaceDetector(configuration: .init(maxDimension: 2048, minFaceSize: 20, timeLimit: .milliseconds(1)))
        let start = ContinuousClock.now
        _ = try await blocking { try hurried.faces(in: photo) }
        // One band of sizes at most runs past the limit; a full search at this size takes longer.
        #expect(ContinuousClock.now - start < .seconds(2))
    }
}

/// The library's face-aware fill.
@Suite("SmartFill: cover around the faces, else the detail", .enabled(if: Portraits.isAvailable, Portraits.missingReason))
struct SmartFillTests {
    @Test("the face is kept where the centre would cut it; without faces the entropy crop")
    func smartFill() async throws {
        let photo = try Portraits.picture("astronaut.png")
        let canvas = try Portraits.canvas(photo, at: 1000, 300, width: 1600, height: 900, background: try Portraits.picture("gravel.png"))
        let filled = try await blocking { try ImageTransformers.SmartFill(size: PixelSize(width: 450, height: 450)).transform(canvas) }
        #expect(filled.size == PixelSize(width: 450, height: 450))
        // Scaled by 0.5: the face is about 46 px, found in the result.
        let faces = try await blocking { try FaceDetector().faces(in: filled) }
        #expect(faces.contains { abs($0.width - 46) < 12 }, "\(faces)")
        let centre = try ImageTransformers.Resize(size: PixelSize(width: 450, height: 450), mode: .aspectFill).transform(canvas)
        let centreFaces = try await blocking { try FaceDetector().faces(in: centre) }
        #expect(!centreFaces.contains { abs($0.width - 46) < 12 })
        // Detail alone: the entropy crop of the scaled picture.
        let detail = try await blocking { try ImageTransformers.SmartFill(size: PixelSize(width: 450, height: 450), faces: nil).transform(canvas) }
        let scaled = try Resampler.resize(canvas, to: PixelSize(width: 800, height: 450))
        let o = ImageAnalysis.smartCropOrigin(scaled, width: 450, height: 450)
        let expected = try ImageTransformers.Crop(x: o.x, y: o.y, width: 450, height: 450).transform(scaled)
        #expect(detail.bytes == expected.bytes)
        let four = PixelSize(width: 4, height: 4)
        #expect(ImageTransformers.SmartFill(size: four).key != ImageTransformers.SmartFill(size: four, faces: nil).key)
    }
}
