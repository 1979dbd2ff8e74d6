// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

package import ArgumentParser
import ImagoCore
package import ImagoProcessing

/// `--resize WxH` and `--mode`, shared by `imago convert` and `imago fetch`.
package struct ResizeArguments: ParsableArguments {
    /// The size asked for.
    @Option(help: "Resize to WxH (see --mode).")
    package var resize: String?

    /// How the size is fitted.
    @Option(
        help:
            "How --resize fits: fill (stretch), fit (inside, keep aspect), cover (fill and crop the centre), smart (fill and crop around the faces, else the most detail)."
    )
    package var mode: String = "fill"

    package init() {}

    /// The resize transformer asked for, or `nil` without `--resize`.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for a size that is not two
    ///   positive integers or an unknown mode.
    package func transformer() throws -> (any ImageTransforming)? {
        guard let resize else { return nil }
        let wh = resize.lowercased().split(separator: "x").map { Int(PathName.trimmed($0)) }
        guard wh.count == 2, let w = wh[0], let h = wh[1], w > 0, h > 0 else {
            throw ImageCodingError.invalidArgument("--resize '\(resize)' is not WxH")
        }
        if mode == "smart" { return ImageTransformers.SmartFill(size: PixelSize(width: w, height: h)) }
        let modes: [String: ImageTransformers.ContentMode] = ["fill": .fill, "fit": .aspectFit, "cover": .aspectFill]
        guard let m = modes[mode] else { throw ImageCodingError.invalidArgument("--mode '\(mode)' is not fill, fit, cover or smart") }
        return ImageTransformers.Resize(size: PixelSize(width: w, height: h), mode: m)
    }
}
