// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
public import struct FoundationEssentials.Data
#else
public import struct Foundation.Data
#endif

/// Metadata that travels with an image's pixels.
public struct ImageMetadata: Sendable, Hashable {
    /// The ICC profile that describes the pixels, or `nil` for sRGB.
    ///
    /// Decoders that convert to sRGB (the default) clear this, since the pixels no longer
    /// need it; with colour management off it holds the embedded profile.
    public var iccProfile: Data?
    /// The raw EXIF block (a TIFF structure, without the `Exif\0\0` prefix), when present.
    public var exif: Data?
    /// An HDR gain map stored beside the pixels (an Ultra HDR JPEG's), when it was asked for
    /// and present; see ``GainMap``.
    public var gainMap: GainMap?

    /// Creates metadata; every part defaults to absent.
    public init(iccProfile: Data? = nil, exif: Data? = nil, gainMap: GainMap? = nil) {
        self.iccProfile = iccProfile
        self.exif = exif
        self.gainMap = gainMap
    }
}
