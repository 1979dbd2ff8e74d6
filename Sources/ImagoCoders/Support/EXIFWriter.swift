// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds the smallest EXIF block that records an orientation.
enum EXIFWriter {
    /// A big-endian TIFF header with one IFD0 entry: Orientation (0x0112, SHORT, 1).
    static func minimal(orientation: ImageOrientation) -> Data {
        var d = Data([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8])  // MM, 42, IFD0 at 8
        d.append(contentsOf: [0x00, 0x01])  // one entry
        d.append(contentsOf: [0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1])
        d.append(contentsOf: [0x00, UInt8(orientation.rawValue), 0, 0])
        d.append(contentsOf: [0, 0, 0, 0])  // no next IFD
        return d
    }
}
