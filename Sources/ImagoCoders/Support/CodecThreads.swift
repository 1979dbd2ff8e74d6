// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How many threads one image's decode or encode may run at once, the caller's included: the
/// one home of that decision for every codec that can use more than one (libavif's and libjxl's
/// threads, libheif's tiles, libimagequant's OpenMP team, a PDF page's bands, colour conversion
/// in bands).
///
/// ``DecodeOptions/maxThreads`` and ``EncodeOptions/maxThreads`` set the limit; without one it
/// is ``defaultLimit``. `1` keeps the work on the calling thread, as background work that must
/// keep to its lane asks.
package enum CodecThreads {
    /// The limit when the caller sets none: the cores, up to 4. Past 4, a library's threads
    /// mostly wait on each other for one image, and a server runs images side by side anyway.
    package static let defaultLimit = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Images under this many pixels run on the calling thread alone where starting threads
    /// costs more than they save (libjxl's runner, libimagequant's team).
    package static let smallImagePixels = 1_000_000

    /// The threads for work asked with `maxThreads` (`nil`: ``defaultLimit``), at least 1.
    package static func limit(_ maxThreads: Int?) -> Int {
        max(1, maxThreads ?? defaultLimit)
    }

    /// The threads for an image of `pixels`: 1 under ``smallImagePixels``, otherwise
    /// ``limit(_:)``.
    package static func limit(_ maxThreads: Int?, pixels: Int) -> Int {
        pixels < smallImagePixels ? 1 : limit(maxThreads)
    }
}
