// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// A width and height in pixels.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size. Negative values are kept as given; APIs that take a size reject them.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `width × height`, or `nil` when the product overflows `Int`.
    public var pixelCount: Int? {
        let (p, o) = width.multipliedReportingOverflow(by: height)
        return o ? nil : p
    }

    /// `WIDTHxHEIGHT`.
    public var description: String { "\(width)x\(height)" }
}
