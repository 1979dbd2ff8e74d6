// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageTransformers {
    /// Which corners ``RoundCorner`` rounds.
    public struct Corners: OptionSet, Sendable, Hashable {
        /// The corners' bits, as the key writes them: 1 top left, 2 top right, 4 bottom left, 8 bottom right.
        public let rawValue: Int
        /// The corners whose bits are set in `rawValue`.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The top-left corner.
        public static let topLeft = Corners(rawValue: 1)
        /// The top-right corner.
        public static let topRight = Corners(rawValue: 2)
        /// The bottom-left corner.
        public static let bottomLeft = Corners(rawValue: 4)
        /// The bottom-right corner.
        public static let bottomRight = Corners(rawValue: 8)
        /// All four corners: ``RoundCorner``'s default.
        public static let all: Corners = [.topLeft, .topRight, .bottomLeft, .bottomRight]
    }

    /// Rounds corners (anti-aliased, 4×4 supersampled coverage) and optionally draws a border
    /// inside the edge, following the rounded outline.
    public struct RoundCorner: ImageTransforming {
        /// The corners' radius in pixels, at least 0; cut to half the shorter side.
        public var radius: Double
        /// Which corners are rounded; the others stay square. Default ``Corners/all``.
        public var corners: Corners
        /// The border's width in pixels, inside the edge; 0 (the default) draws none.
        public var borderWidth: Double
        /// The border's colour, straight alpha. Default opaque black.
        public var borderColor: RGBA8
        /// Creates the transformer. Defaults: all corners, no border, black border colour.
        public init(radius: Double, corners: Corners = .all, borderWidth: Double = 0, borderColor: RGBA8 = RGBA8(r: 0, g: 0, b: 0)) {
            self.radius = radius
            self.corners = corners
            self.borderWidth = borderWidth
            self.borderColor = borderColor
        }
        /// `RoundCorner(r,corners,border,#rrggbbaa)`.
        public var key: String {
            "RoundCorner(\(radius),\(corners.rawValue),\(borderWidth),#\(PathName.hex([borderColor.r, borderColor.g, borderColor.b, borderColor.a])))"
        }

        /// - Throws: `.invalidArgument` for a negative or non-finite radius or border width.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard radius.isFinite, radius >= 0, borderWidth.isFinite, borderWidth >= 0 else {
                throw ImageCodingError.invalidArgument("round corner radius \(radius) and border \(borderWidth) must be finite and not negative")
            }
            var out = buffer.converted(to: .argb32Premultiplied)
            let w = out.width, h = out.height
            let r = min(radius, Double(min(w, h)) / 2)
            let off = PixelFormat.argbOffsets
            /// Coverage of the rounded rectangle inset by `inset` at point (px, py).
            func inside(_ px: Double, _ py: Double, inset: Double) -> Bool {
                let left = inset, top = inset, right = Double(w) - inset, bottom = Double(h) - inset
                guard px >= left, px <= right, py >= top, py <= bottom else { return false }
                let rr = max(0, r - inset)
                func corner(_ cx: Double, _ cy: Double) -> Bool { (px - cx) * (px - cx) + (py - cy) * (py - cy) <= rr * rr }
                if corners.contains(.topLeft), px < left + rr, py < top + rr { return corner(left + rr, top + rr) }
                if corners.contains(.topRight), px > right - rr, py < top + rr { return corner(right - rr, top + rr) }
                if corners.contains(.bottomLeft), px < left + rr, py > bottom - rr { return corner(left + rr, bottom - rr) }
                if corners.contains(.bottomRight), px > right - rr, py > bottom - rr { return corner(right - rr, bottom - rr) }
                return true
            }
            let samples = [0.125, 0.375, 0.625, 0.875]
            let edge = max(r, borderWidth) + 1
            out.withUnsafeMutableBytes { raw in
                guard let p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                for y in 0..<h {
                    for x in 0..<w {
                        // Only pixels near an edge can change.
                        let nearEdge = Double(x) < edge || Double(y) < edge || Double(w - x) < edge + 1 || Double(h - y) < edge + 1
                        guard nearEdge else { continue }
                        var shape = 0, body = 0
                        for sy in samples {
                            for sx in samples {
                                let fx = Double(x) + sx, fy = Double(y) + sy
                                if inside(fx, fy, inset: 0) {
                                    shape += 1
                                    if borderWidth == 0 || inside(fx, fy, inset: borderWidth) { body += 1 }
                                }
                            }
                        }
                        let o = (y * w + x) * 4
                        let bodyCov = UInt32(body), borderCov = UInt32(shape - body)
                        // Image where the body covers, border colour (premultiplied) where the ring covers.
                        let ba = UInt32(borderColor.a)
                        for (ch, bc) in [(off.r, borderColor.r), (off.g, borderColor.g), (off.b, borderColor.b), (off.a, borderColor.a)] {
                            let image = UInt32(p[o + ch]) * bodyCov
                            let border = (ch == off.a ? ba : UInt32(bc) * ba / 255) * borderCov
                            p[o + ch] = UInt8(min(255, (image + border + 8) / 16))
                        }
                    }
                }
            }
            return out
        }
    }

    /// How ``Tint`` mixes its colour in.
    public enum TintBlendMode: String, Sendable, Hashable {
        /// The colour over the image where the image is opaque (CoreGraphics' source-atop; SDWebImage's default).
        case sourceAtop
        /// The colour replaces the image's colour, keeping its alpha (source-in).
        case sourceIn
    }

    /// Tints the image with a colour.
    public struct Tint: ImageTransforming {
        /// The tint colour; with ``TintBlendMode/sourceAtop`` its alpha is how much of it is mixed in.
        public var color: RGBA8
        /// How the colour is mixed in. Default ``TintBlendMode/sourceAtop``.
        public var blendMode: TintBlendMode
        /// Creates the transformer. Default blend mode ``TintBlendMode/sourceAtop``.
        public init(color: RGBA8, blendMode: TintBlendMode = .sourceAtop) {
            self.color = color
            self.blendMode = blendMode
        }
        /// `Tint(#rrggbbaa,mode)`.
        public var key: String { "Tint(#\(PathName.hex([color.r, color.g, color.b, color.a])),\(blendMode.rawValue))" }
        /// The image, premultiplied, with ``color`` mixed in by ``blendMode``; alpha is kept.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            var out = buffer.converted(to: .argb32Premultiplied)
            let off = PixelFormat.argbOffsets
            let ca = UInt32(color.a)
            out.withUnsafeMutableBytes { raw in
                guard let p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                for i in stride(from: 0, to: raw.count, by: 4) {
                    let a = UInt32(p[i + off.a])
                    for (ch, c) in [(off.r, color.r), (off.g, color.g), (off.b, color.b)] {
                        let tint = UInt32(c) * a / 255  // the colour, premultiplied by the image's alpha
                        switch blendMode {
                        case .sourceAtop: p[i + ch] = UInt8((tint * ca + UInt32(p[i + ch]) * (255 - ca) + 127) / 255)
                        case .sourceIn: p[i + ch] = UInt8(tint)
                        }
                    }
                }
            }
            return out
        }
    }

    /// A Gaussian-quality blur: three box blurs of sizes chosen for the radius (premultiplied,
    /// edges clamped).
    public struct Blur: ImageTransforming {
        /// The Gaussian's standard deviation in pixels, 0–1000; 0 leaves the pixels as they are.
        public var radius: Double
        /// Creates the transformer; `radius` is the Gaussian's standard deviation in pixels.
        public init(radius: Double) { self.radius = radius }
        /// `Blur(r)`.
        public var key: String { "Blur(\(radius))" }
        /// - Throws: `.invalidArgument` for a negative, non-finite or absurd radius (over 1000).
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard radius.isFinite, radius >= 0, radius <= 1000 else {
                throw ImageCodingError.invalidArgument("blur radius \(radius) must be between 0 and 1000")
            }
            var out = buffer.converted(to: .argb32Premultiplied)
            guard radius > 0 else { return out }
            // Box sizes for three passes approximating a Gaussian of this sigma (Kovesi's method).
            let n = 3.0
            let ideal = (12 * radius * radius / n + 1).squareRoot()
            var wl = Int(ideal.rounded(.down))
            if wl % 2 == 0 { wl -= 1 }
            let wu = wl + 2
            let m = ((12 * radius * radius - n * Double(wl * wl) - 4 * n * Double(wl) - 3 * n) / (-4 * Double(wl) - 4)).rounded()
            let sizes = (0..<3).map { Double($0) < m ? wl : wu }
            let w = out.width, h = out.height
            out.withUnsafeMutableBytes { raw in
                guard let p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                var line = [UInt32](repeating: 0, count: max(w, h) * 4)
                for size in sizes where size > 1 {
                    let r = size / 2
                    Self.pass(p, count: h, length: w, step: 4, lineStride: w * 4, radius: r, line: &line)  // rows
                    Self.pass(p, count: w, length: h, step: w * 4, lineStride: 4, radius: r, line: &line)  // columns
                }
            }
            return out
        }

        /// One box pass along `count` lines of `length` pixels, with clamped edges (running sums).
        static func pass(
            _ p: UnsafeMutablePointer<UInt8>, count: Int, length: Int, step: Int, lineStride: Int,
            radius r: Int, line: inout [UInt32]
        ) {
            let window = UInt32(2 * r + 1)
            for l in 0..<count {
                let base = p + l * lineStride
                for i in 0..<length { for c in 0..<4 { line[i * 4 + c] = UInt32(base[i * step + c]) } }
                var sum = [UInt32](repeating: 0, count: 4)
                for k in -r...r {
                    let i = min(max(k, 0), length - 1)
                    for c in 0..<4 { sum[c] += line[i * 4 + c] }
                }
                for i in 0..<length {
                    for c in 0..<4 { base[i * step + c] = UInt8((sum[c] + window / 2) / window) }
                    let add = min(i + r + 1, length - 1), drop = max(i - r, 0)
                    for c in 0..<4 { sum[c] = sum[c] + line[add * 4 + c] - line[drop * 4 + c] }
                }
            }
        }
    }

    /// Several transformers in order; the key joins theirs with `-`.
    public struct Pipeline: ImageTransforming {
        /// The members, applied first to last.
        public var transformers: [any ImageTransforming]
        /// Creates the pipeline.
        public init(_ transformers: [any ImageTransforming]) { self.transformers = transformers }
        /// The members' keys joined by `-`.
        public var key: String { transformers.map(\.key).joined(separator: "-") }
        /// The most of its members' effects (``PixelEffect/none`` when empty).
        public func pixelEffect(on info: ImageInfo) -> PixelEffect {
            transformers.map { $0.pixelEffect(on: info) }.max() ?? .none
        }
        /// Applies each member in turn. Each converts the pixel format only if it must, so a
        /// pipeline of crops, flips and quarter turns keeps straight alpha straight.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            try transformers.reduce(buffer) { try $1.transform($0) }
        }
    }
}
