// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("Orientation of pixels, and the rectangle where two buffers differ")
struct OrientationAndDifferenceTests {
    /// The 3×2 gray image `1 2 3 / 4 5 6` as shown with each orientation, row by row, worked out
    /// by hand from the EXIF definitions (for 6, the stored top row is the shown right column).
    static let shown: [ImageOrientation: (width: Int, bytes: [UInt8])] = [
        .up: (3, [1, 2, 3, 4, 5, 6]),
        .upMirrored: (3, [3, 2, 1, 6, 5, 4]),
        .down: (3, [6, 5, 4, 3, 2, 1]),
        .downMirrored: (3, [4, 5, 6, 1, 2, 3]),
        .leftMirrored: (2, [1, 4, 2, 5, 3, 6]),
        .right: (2, [4, 1, 5, 2, 6, 3]),
        .rightMirrored: (2, [6, 3, 5, 2, 4, 1]),
        .left: (2, [3, 6, 2, 5, 1, 4])
    ]

    @Test(
        "each orientation lays out a 3×2 image as EXIF defines it, through the 1-, 2-, 3- and 4-byte paths",
        arguments: ImageOrientation.allCases)
    func handComputed(_ orientation: ImageOrientation) throws {
        let gray = try PixelBuffer(width: 3, height: 2, format: .gray8, bytes: [1, 2, 3, 4, 5, 6])
        let expected = try #require(Self.shown[orientation])
        for format in PixelFormat.allCases {
            let out = gray.converted(to: format).applyingOrientation(orientation)
            #expect(out.width == expected.width && out.height == 6 / expected.width, "\(format)")
            #expect(out.format == format && out.bytesPerRow == expected.width * format.bytesPerPixel, "\(format)")
            #expect(out.converted(to: .gray8).bytes == expected.bytes, "\(format)")
        }
    }

    @Test(
        "a padded source gives the same pixels as a tight one; .up returns the buffer untouched",
        arguments: ImageOrientation.allCases)
    func stridedSource(_ orientation: ImageOrientation) throws {
        for format in [PixelFormat.grayAlpha8, .rgb8, .argb32Premultiplied] {
            let tight = try Fixtures.coordinates(width: 5, height: 3).converted(to: format)
            let padded = try paddedCopy(of: tight, extra: 7, fill: 0x5A)
            if orientation == .up {
                #expect(padded.applyingOrientation(.up) == padded, "\(format)")
            } else {
                let out = padded.applyingOrientation(orientation)
                #expect(out == tight.applyingOrientation(orientation), "\(format)")
                #expect(out.bytesPerRow == out.width * format.bytesPerPixel, "\(format): tight rows")
            }
        }
    }

    @Test("orientations compose as the symmetries of a rectangle: mirrors undo themselves, left undoes right, two rights are down")
    func composition() throws {
        let source = try Fixtures.coordinates(width: 6, height: 4)
        for o in [ImageOrientation.upMirrored, .down, .downMirrored, .leftMirrored, .rightMirrored] {
            #expect(source.applyingOrientation(o).applyingOrientation(o) == source, "\(o)")
        }
        #expect(source.applyingOrientation(.right).applyingOrientation(.left) == source)
        #expect(source.applyingOrientation(.left).applyingOrientation(.right) == source)
        #expect(source.applyingOrientation(.right).applyingOrientation(.right) == source.applyingOrientation(.down))
        #expect(
            source.applyingOrientation(.left).applyingOrientation(.left).applyingOrientation(.left)
                == source.applyingOrientation(.right))
        // A mirror then a quarter turn is a transverse (7) or a transpose (5).
        #expect(source.applyingOrientation(.upMirrored).applyingOrientation(.right) == source.applyingOrientation(.rightMirrored))
        #expect(source.applyingOrientation(.upMirrored).applyingOrientation(.left) == source.applyingOrientation(.leftMirrored))
    }

    @Test("EXIF values 1–8 are the orientations, anything else none; exactly 5–8 swap width and height")
    func orientationValues() {
        #expect(ImageOrientation.allCases.map(\.rawValue) == Array(1...8))
        for value in [-1, 0, 9, 255] { #expect(ImageOrientation(exifValue: value) == nil, "\(value)") }
        for o in ImageOrientation.allCases { #expect(ImageOrientation(exifValue: o.rawValue) == o) }
        #expect(ImageOrientation.allCases.filter(\.swapsDimensions) == [.leftMirrored, .right, .rightMirrored, .left])
        #expect(ImageOrientation.left.orientedSize(PixelSize(width: 3, height: 7)) == PixelSize(width: 7, height: 3))
        #expect(ImageOrientation.down.orientedSize(PixelSize(width: 3, height: 7)) == PixelSize(width: 3, height: 7))
    }

    static func rect(_ r: (x0: Int, y0: Int, x1: Int, y1: Int)?) -> [Int]? { r.map { [$0.x0, $0.y0, $0.x1, $0.y1] } }

    /// `base` with byte `channel` of each pixel in `points` inverted.
    static func changing(_ base: PixelBuffer, _ points: [(x: Int, y: Int, channel: Int)]) -> PixelBuffer {
        var copy = base
        let row = base.bytesPerRow, bpp = base.format.bytesPerPixel
        copy.withUnsafeMutableBytes { p in
            for point in points { p[point.y * row + point.x * bpp + point.channel] ^= 0xFF }
        }
        return copy
    }

    @Test("changedRect bounds exactly the pixels that differ, in any channel and any format; equal buffers give nil")
    func changedRect() throws {
        let base = try Fixtures.noisy(width: 9, height: 7)
        #expect(base.changedRect(from: base) == nil)
        #expect(Self.rect(Self.changing(base, [(4, 3, 3)]).changedRect(from: base)) == [4, 3, 5, 4])
        #expect(Self.rect(Self.changing(base, [(0, 0, 0), (8, 6, 2)]).changedRect(from: base)) == [0, 0, 9, 7])
        let scattered = Self.changing(base, [(2, 1, 0), (6, 1, 1), (4, 5, 2)])
        #expect(Self.rect(scattered.changedRect(from: base)) == [2, 1, 7, 6])
        #expect(Self.rect(base.changedRect(from: scattered)) == [2, 1, 7, 6])
        for format in [PixelFormat.gray8, .grayAlpha8, .rgb8] {
            let converted = base.converted(to: format)
            let changed = Self.changing(converted, [(3, 2, format.bytesPerPixel - 1), (5, 4, 0)])
            #expect(Self.rect(changed.changedRect(from: converted)) == [3, 2, 6, 5], "\(format)")
        }
    }

    @Test("changedRect is the whole buffer when size or format differ, and ignores row padding")
    func changedRectEdges() throws {
        let base = try Fixtures.noisy(width: 9, height: 7)
        let shorter = try Fixtures.noisy(width: 9, height: 6)
        #expect(Self.rect(base.changedRect(from: shorter)) == [0, 0, 9, 7])
        #expect(Self.rect(base.changedRect(from: base.converted(to: .argb32Premultiplied))) == [0, 0, 9, 7])
        let paddedA = try paddedCopy(of: base, extra: 5, fill: 0xAB)
        let paddedB = try paddedCopy(of: base, extra: 5, fill: 0xCD)
        #expect(paddedA != paddedB, "the padding differs")
        #expect(paddedA.changedRect(from: paddedB) == nil)
        #expect(paddedA.changedRect(from: base) == nil && base.changedRect(from: paddedA) == nil)
        #expect(Self.rect(Self.changing(paddedA, [(8, 0, 1)]).changedRect(from: base)) == [8, 0, 9, 1])
        let one = try PixelBuffer(width: 1, height: 1, format: .rgba8, bytes: [1, 2, 3, 4])
        #expect(one.changedRect(from: one) == nil)
        #expect(Self.rect(Self.changing(one, [(0, 0, 3)]).changedRect(from: one)) == [0, 0, 1, 1])
    }
}
