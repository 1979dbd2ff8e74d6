// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore

/// How close two decodes are, as the conformance tests measure it.
public enum PixelMetrics {
    /// Peak signal-to-noise ratio over RGB of two same-size buffers, in dB (infinity when
    /// identical, 0 when the sizes differ).
    public static func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        psnr(a.converted(to: .rgb8).bytes, b.converted(to: .rgb8).bytes)
    }

    /// PSNR over premultiplied RGBA, so colour under transparent pixels does not count.
    public static func psnrPremultiplied(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        psnr(a.converted(to: .argb32Premultiplied).bytes, b.converted(to: .argb32Premultiplied).bytes)
    }

    private static func psnr(_ x: [UInt8], _ y: [UInt8]) -> Double {
        guard x.count == y.count, !x.isEmpty else { return 0 }
        // Integer squares over buffer pointers: quick in debug builds too.
        var sum: UInt64 = 0
        x.withUnsafeBufferPointer { x in
            y.withUnsafeBufferPointer { y in
                for i in 0..<x.count {
                    let d = Int32(x[i]) - Int32(y[i])
                    sum &+= UInt64(d * d)
                }
            }
        }
        let mse = Double(sum) / Double(x.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
