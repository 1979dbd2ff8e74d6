// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension ImageTransformers {
    /// Adds a border of `color` around the image: CSS-style padding, or the space an image is
    /// extended into when it is smaller than a box.
    public struct Pad: ImageTransforming {
        public var top: Int, right: Int, bottom: Int, left: Int
        /// The border's colour (straight alpha). Default transparent.
        public var color: RGBA8

        /// Creates the transformer; `color` defaults to transparent.
        public init(top: Int, right: Int, bottom: Int, left: Int, color: RGBA8 = RGBA8(r: 0, g: 0, b: 0, a: 0)) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
            self.color = color
        }

        /// `Pad(t,r,b,l,#rrggbbaa)`.
        public var key: String {
            "Pad(\(top),\(right),\(bottom),\(left),#\(PathName.hex([color.r, color.g, color.b, color.a])))"
        }

        /// - Throws: `.invalidArgument` for a negative side; `.exceedsLimit` when the canvas would
        ///   pass the pixel-buffer ceiling.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard top >= 0, right >= 0, bottom >= 0, left >= 0 else {
                throw ImageCodingError.invalidArgument("padding \(key) has a negative side")
            }
            let src = buffer.converted(to: .argb32Premultiplied)
            guard top | right | bottom | left != 0 else { return src }
            let (w, o1) = src.width.addingReportingOverflow(left + right)
            let (h, o2) = src.height.addingReportingOverflow(top + bottom)
            guard !o1, !o2 else { throw ImageCodingError.exceedsLimit(.bytes, found: Int.max, limit: PixelBuffer.maxByteCount) }
            let fill = PixelFormat.argbPixel(color)
            return try PixelBuffer(uninitializedWidth: w, height: h, format: .argb32Premultiplied) { out in
                let words = out.bindMemory(to: UInt32.self)
                words.initialize(repeating: fill)
                src.withUnsafeBytes { s in
                    for row in 0..<src.height {
                        let from = UnsafeRawBufferPointer(rebasing: s[(row * src.bytesPerRow)...].prefix(src.width * 4))
                        let at = ((row + top) * w + left) * 4
                        UnsafeMutableRawBufferPointer(rebasing: out[at...].prefix(src.width * 4)).copyMemory(from: from)
                    }
                }
            }
        }
    }

    /// Replaces each `size`×`size` block by its average colour.
    public struct Pixelate: ImageTransforming {
        /// The side of each block in pixels, at least 1; 1 leaves the pixels as they are.
        public var size: Int

        /// Creates the transformer for blocks of `size` pixels.
        public init(size: Int) { self.size = size }

        /// `Pixelate(n)`.
        public var key: String { "Pixelate(\(size))" }

        /// - Throws: `.invalidArgument` for a size under 1.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard size >= 1 else { throw ImageCodingError.invalidArgument("pixelate size \(size) is under 1") }
            var out = buffer.converted(to: .argb32Premultiplied)
            guard size > 1 else { return out }
            let w = out.width, h = out.height, n = size
            out.withUnsafeMutableBytes { raw in
                let p = raw.bindMemory(to: UInt8.self)
                for by in stride(from: 0, to: h, by: n) {
                    for bx in stride(from: 0, to: w, by: n) {
                        let ye = min(by + n, h), xe = min(bx + n, w)
                        var sum = [Int](repeating: 0, count: 4)
                        for y in by..<ye { for x in bx..<xe { for c in 0..<4 { sum[c] += Int(p[(y * w + x) * 4 + c]) } } }
                        let count = (ye - by) * (xe - bx)
                        let avg = sum.map { UInt8(($0 + count / 2) / count) }
                        for y in by..<ye { for x in bx..<xe { for c in 0..<4 { p[(y * w + x) * 4 + c] = avg[c] } } }
                    }
                }
            }
            return out
        }
    }

    /// Unsharp masking: adds back the difference between the image and a Gaussian blur of it,
    /// which steepens edges. `sigma` is the blur's standard deviation.
    public struct Sharpen: ImageTransforming {
        /// The blur's standard deviation in pixels, 0–100; 0 leaves the pixels as they are.
        public var sigma: Double
        /// How much of the difference is added. Default 1.
        public var amount: Double

        /// Creates the transformer; `amount` defaults to 1.
        public init(sigma: Double, amount: Double = 1) {
            self.sigma = sigma
            self.amount = amount
        }

        /// `Sharpen(sigma,amount)`.
        public var key: String { "Sharpen(\(sigma),\(amount))" }

        /// - Throws: `.invalidArgument` for a negative or absurd sigma or amount.
        public func transform(_ buffer: PixelBuffer) throws -> PixelBuffer {
            guard sigma.isFinite, sigma >= 0, sigma <= 100, amount.isFinite, amount >= 0, amount <= 10 else {
                throw ImageCodingError.invalidArgument("sharpen \(key) is out of range")
            }
            var out = buffer.converted(to: .argb32Premultiplied)
            guard sigma > 0, amount > 0 else { return out }
            let blurred = try Blur(radius: sigma).transform(out)
            let k = amount
            let alphaIndex = PixelFormat.argbOffsets.a
            out.withUnsafeMutableBytes { raw in
                let p = raw.bindMemory(to: UInt8.self)
                blurred.withUnsafeBytes { b in
                    for i in 0..<p.count {
                        let a = Int(p[i - i % 4 + alphaIndex])
                        if i % 4 == alphaIndex { continue }
                        let v = Double(p[i]) + k * (Double(p[i]) - Double(b[i]))
                        // Premultiplied: a colour channel stays within its alpha.
                        p[i] = UInt8(max(0, min(Double(a), v.rounded())))
                    }
                }
            }
            return out
        }
    }
}

extension PixelFormat {
    /// `color` as one native-endian premultiplied ARGB32 word.
    static func argbPixel(_ color: RGBA8) -> UInt32 {
        let a = UInt32(color.a)
        func pm(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
        return a << 24 | pm(color.r) << 16 | pm(color.g) << 8 | pm(color.b)
    }
}
