// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

extension PixelBuffer {
    /// The buffer as tight straight `rgba8`, shrunk (aspect kept, at least 1 pixel a side) to fit
    /// `maxSide` × `maxSide` when larger: what the placeholder hashes and the colour summaries
    /// read, so their cost does not grow with the image.
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` for an empty buffer.
    func placeholderSample(maxSide: Int) throws -> PixelBuffer {
        guard width > 0, height > 0 else { throw ImageCodingError.invalidArgument("an empty image has no placeholder") }
        guard width > maxSide || height > maxSide else { return converted(to: .rgba8) }
        let scale = Double(maxSide) / Double(Swift.max(width, height))
        let size = PixelSize(
            width: Swift.max(1, Swift.min(maxSide, Int((Double(width) * scale).rounded()))),
            height: Swift.max(1, Swift.min(maxSide, Int((Double(height) * scale).rounded()))))
        return try Resampler.resize(self, to: size).converted(to: .rgba8)
    }
}
