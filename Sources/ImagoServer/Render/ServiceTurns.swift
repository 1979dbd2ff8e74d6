// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoServiceURL

/// The turns between a source as stored and the picture its options describe, as imgproxy
/// applies them: the EXIF orientation's angle and mirror, then the URL's `rotate`, then its
/// flips. imgproxy trims and crops the stored picture, before any turn, with the gravity turned
/// back (`GravityOptions.RotateAndFlip`); Imago turns first, so it asks these turns where
/// imgproxy's cut would land: the same pixels, to the pixel where an odd margin splits.
struct ServiceTurns: Equatable {
    /// The EXIF orientation's clockwise angle and horizontal mirror (imgproxy's `angleFlip`).
    var exifAngle = 0
    var exifFlip = false
    /// The URL's clockwise `rotate` and flips.
    var rotate = 0
    var flipX = false
    var flipY = false

    init(orientation: ImageOrientation = .up, rotate: Int = 0, flipX: Bool = false, flipY: Bool = false) {
        switch orientation {
        case .down, .downMirrored: exifAngle = 180
        case .leftMirrored, .right: exifAngle = 90
        case .rightMirrored, .left: exifAngle = 270
        case .up, .upMirrored: exifAngle = 0
        }
        exifFlip = [.upMirrored, .downMirrored, .leftMirrored, .rightMirrored].contains(orientation)
        self.rotate = ((rotate % 360) + 360) % 360
        self.flipX = flipX
        self.flipY = flipY
    }

    /// Nothing turns.
    var isIdentity: Bool { exifAngle == 0 && !exifFlip && rotate == 0 && !flipX && !flipY }

    /// Whether the turned picture's width is the stored one's height.
    var swapsAxes: Bool { (exifAngle + rotate) % 180 == 90 }

    /// A rectangle `x, y, w, h` of a stored frame `width`×`height`, where it lies once turned.
    func forward(_ r: (x: Int, y: Int, w: Int, h: Int), in width: Int, _ height: Int) -> (x: Int, y: Int, w: Int, h: Int) {
        var r = r, size = (w: width, h: height)
        func turn(_ angle: Int) {
            switch angle {
            case 90: (r, size) = ((size.h - r.y - r.h, r.x, r.h, r.w), (size.h, size.w))
            case 180: r = (size.w - r.x - r.w, size.h - r.y - r.h, r.w, r.h)
            case 270: (r, size) = ((r.y, size.w - r.x - r.w, r.h, r.w), (size.h, size.w))
            default: break
            }
        }
        turn(exifAngle)
        if exifFlip { r.x = size.w - r.x - r.w }
        turn(rotate)
        if flipX { r.x = size.w - r.x - r.w }
        if flipY { r.y = size.h - r.y - r.h }
        return r
    }

    /// Where the stored frame's top-left pixel lies once turned, in a turned frame `width`×`height`.
    func storedOrigin(inTurned width: Int, _ height: Int) -> (x: Int, y: Int) {
        let stored = swapsAxes ? (w: height, h: width) : (w: width, h: height)
        let r = forward((0, 0, 1, 1), in: stored.w, stored.h)
        return (r.x, r.y)
    }

    /// Places `w`×`h` in a turned frame `width`×`height` at `gravity` (given for the turned
    /// picture) as imgproxy does: in the stored frame, the gravity turned back, then turned.
    func place(
        _ w: Int, _ h: Int, in width: Int, _ height: Int, gravity: ProcessingOptions.Gravity, pixelScale: Double
    ) -> (x: Int, y: Int) {
        guard !isIdentity else { return ServiceGeometry.place(w, h, in: width, height, gravity: gravity, pixelScale: pixelScale) }
        let swap = swapsAxes
        let stored = swap ? (w: height, h: width) : (w: width, h: height)
        let inner = swap ? (w: h, h: w) : (w: w, h: h)
        // imgproxy's crop: the URL's turns undone first, then the EXIF orientation's.
        let back = Self.turnedBack(Self.turnedBack(gravity, angle: rotate, flipX: flipX, flipY: flipY), angle: exifAngle, flipX: exifFlip, flipY: false)
        let at = ServiceGeometry.place(inner.w, inner.h, in: stored.w, stored.h, gravity: back, pixelScale: pixelScale)
        let r = forward((at.x, at.y, inner.w, inner.h), in: stored.w, stored.h)
        return (r.x, r.y)
    }

    /// `gravity` as it reads before a turn by `angle` and the flips (imgproxy's
    /// `GravityOptions.RotateAndFlip`, step for step).
    static func turnedBack(_ gravity: ProcessingOptions.Gravity, angle: Int, flipX: Bool, flipY: Bool) -> ProcessingOptions.Gravity {
        unturned(unflipped(gravity, flipX: flipX, flipY: flipY), angle: angle)
    }

    /// The flip half of ``turnedBack(_:angle:flipX:flipY:)``: the sides swapped and the offsets
    /// along each flipped axis negated (a focus point mirrored).
    private static func unflipped(_ gravity: ProcessingOptions.Gravity, flipX: Bool, flipY: Bool) -> ProcessingOptions.Gravity {
        typealias Kind = ProcessingOptions.Gravity.Kind
        var g = gravity
        if flipX {
            let map: [Kind: Kind] = [.east: .west, .west: .east, .northWest: .northEast, .northEast: .northWest, .southWest: .southEast, .southEast: .southWest]
            g.kind = map[g.kind] ?? g.kind
            switch g.kind {
            case .center, .north, .south: g.x = -g.x
            case .focusPoint: g.x = 1 - g.x
            default: break
            }
        }
        if flipY {
            let map: [Kind: Kind] = [
                .north: .south, .south: .north, .northWest: .southWest, .northEast: .southEast, .southWest: .northWest, .southEast: .northEast
            ]
            g.kind = map[g.kind] ?? g.kind
            switch g.kind {
            case .center, .east, .west: g.y = -g.y
            case .focusPoint: g.y = 1 - g.y
            default: break
            }
        }
        return g
    }

    /// The rotation half of ``turnedBack(_:angle:flipX:flipY:)``: the side a turn by `angle`
    /// (clockwise) brought the gravity to, and its offsets carried along.
    private static func unturned(_ gravity: ProcessingOptions.Gravity, angle: Int) -> ProcessingOptions.Gravity {
        typealias Kind = ProcessingOptions.Gravity.Kind
        var g = gravity
        let turns: [Int: [Kind: Kind]] = [
            90: [
                .north: .west, .east: .north, .south: .east, .west: .south, .northWest: .southWest, .northEast: .northWest, .southWest: .southEast,
                .southEast: .northEast
            ],
            180: [
                .north: .south, .east: .west, .south: .north, .west: .east, .northWest: .southEast, .northEast: .southWest, .southWest: .northEast,
                .southEast: .northWest
            ],
            270: [
                .north: .east, .east: .south, .south: .west, .west: .north, .northWest: .northEast, .northEast: .southEast, .southWest: .northWest,
                .southEast: .southWest
            ]
        ]
        let a = ((angle % 360) + 360) % 360
        guard let map = turns[a] else { return g }
        g.kind = map[g.kind] ?? g.kind
        let (x, y) = (g.x, g.y)
        switch a {
        case 90:
            switch g.kind {
            case .center, .east, .west: (g.x, g.y) = (y, -x)
            case .focusPoint: (g.x, g.y) = (y, 1 - x)
            default: (g.x, g.y) = (y, x)
            }
        case 180:
            switch g.kind {
            case .center: (g.x, g.y) = (-x, -y)
            case .north, .south: g.x = -x
            case .east, .west: g.y = -y
            case .focusPoint: (g.x, g.y) = (1 - x, 1 - y)
            default: break
            }
        default:
            switch g.kind {
            case .center, .north, .south: (g.x, g.y) = (-y, x)
            case .focusPoint: (g.x, g.y) = (1 - y, x)
            default: (g.x, g.y) = (y, x)
            }
        }
        return g
    }
}
