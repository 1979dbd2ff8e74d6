// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCoders
import ImagoCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The profile `color_profile` names (imgproxy Pro's option): `srgb` and `display-p3` built in,
/// any other name a file in `IMAGO_COLOR_PROFILES_DIR` (`NAME`, `NAME.icc` or `NAME.icm`), read
/// once per process on the workers and kept. The result's pixels are converted from sRGB into
/// it and it is embedded.
struct ServiceColorProfile: Sendable {
    let name: String
    let directory: String

    /// The formats whose encoders here embed a profile; for the others the option is ignored,
    /// as imgproxy Pro does.
    static let formats: Set<ImageFormat> = [.jpeg, .png, .webp, .avif, .heic, .jxl, .tiff]

    /// The largest profile file read: 4 MiB.
    static let largestFile = 4 << 20

    /// Profiles read from files, by path.
    static let files = Mutex<[String: Data]>([:])

    /// The profile's bytes: built in, or read from its file (blocking: call on the workers).
    ///
    /// - Throws: `ImageCodingError.invalidArgument(_:)` when no such file is readable or it is
    ///   not an RGB profile.
    func profile() throws -> Data {
        if let built = ColorProfiles.named(name) { return built }
        if name.lowercased() == "cmyk" {
            throw ImageCodingError.invalidArgument("a CMYK result is not written here: color_profile takes RGB profiles")
        }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        for path in [base + name, base + name + ".icc", base + name + ".icm"] {
            if let kept = Self.files.withLock({ $0[path] }) { return kept }
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                (attributes[.type] as? FileAttributeType) == .typeRegular,
                let size = attributes[.size] as? Int, size > 0, size <= Self.largestFile,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            guard ColorProfiles.isRGB(data) else {
                throw ImageCodingError.invalidArgument("the colour profile '\(name)' is not an RGB profile")
            }
            Self.files.withLock { $0[path] = data }
            return data
        }
        throw ImageCodingError.invalidArgument("no colour profile '\(name)' in \(directory)")
    }

    /// `image`'s frames converted into the profile, which its metadata then carries: from the
    /// profile they were decoded with (kept, not converted to sRGB, so a wide-gamut source
    /// loses nothing on its way to a wide-gamut result), else from sRGB.
    func apply(to image: Image) throws -> Image {
        let icc = try profile()
        var out = image
        let source = image.metadata.iccProfile
        let frames = try image.frames.map { f in
            ImageFrame(buffer: try ColorProfiles.convert(f.buffer, from: source, to: icc), duration: f.duration)
        }
        out = try Image(
            frames: frames, loopCount: image.loopCount, orientation: image.orientation, scale: image.scale, format: image.format,
            metadata: image.metadata, hasAlpha: image.hasAlpha)
        out.metadata.iccProfile = icc
        return out
    }
}
