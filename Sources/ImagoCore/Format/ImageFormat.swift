// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An image file format, with its MIME type and file extensions.
///
/// Raw values are the short names `imago info --json` prints. `init(sniffing:)` detects a
/// format from the data's first bytes; detection covers formats that no coder decodes yet,
/// so callers can say *what* they cannot decode.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case jpeg, png, apng, gif, webp, tiff, bmp, ico, cur, heic, heif, avif, jp2, jxl, icns, svg, pdf

    /// The IANA (or customary) MIME type.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .apng: "image/apng"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .ico: "image/x-icon"
        case .cur: "image/x-win-bitmap"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .jp2: "image/jp2"
        case .jxl: "image/jxl"
        case .icns: "image/icns"
        case .svg: "image/svg+xml"
        case .pdf: "application/pdf"
        }
    }

    /// File extensions, lower-case without the dot, the preferred one first.
    public var fileExtensions: [String] {
        switch self {
        case .jpeg: ["jpg", "jpeg", "jpe", "jfif"]
        case .png: ["png"]
        case .apng: ["apng", "png"]
        case .gif: ["gif"]
        case .webp: ["webp"]
        case .tiff: ["tiff", "tif"]
        case .bmp: ["bmp", "dib"]
        case .ico: ["ico"]
        case .cur: ["cur"]
        case .heic: ["heic", "heics"]
        case .heif: ["heif", "heifs", "hif"]
        case .avif: ["avif", "avifs"]
        case .jp2: ["jp2", "j2k", "j2c", "jpf", "jpx", "jpc"]
        case .jxl: ["jxl"]
        case .icns: ["icns"]
        case .svg: ["svg", "svgz"]
        case .pdf: ["pdf"]
        }
    }

    /// The preferred file extension.
    public var preferredFileExtension: String { fileExtensions[0] }

    /// The format for a MIME type (case-insensitive, parameters ignored), or `nil`.
    ///
    /// Common aliases are accepted: `image/jpg`, `image/pjpeg`, `image/vnd.microsoft.icon`,
    /// `image/x-png`, `image/vnd.mozilla.apng`, `image/x-icns`.
    public init?(mimeType: String) {
        let base =
            mimeType.split(separator: ";", maxSplits: 1).first.map {
                PathName.trimmed($0).lowercased()
            } ?? ""
        let aliases: [String: ImageFormat] = [
            "image/jpg": .jpeg, "image/pjpeg": .jpeg, "image/x-png": .png, "image/vnd.mozilla.apng": .apng,
            "image/vnd.microsoft.icon": .ico, "image/x-ico": .ico, "image/x-icns": .icns,
            "image/x-ms-bmp": .bmp, "image/x-bmp": .bmp, "image/jpx": .jp2, "image/jpm": .jp2,
            "image/heic-sequence": .heic, "image/heif-sequence": .heif, "image/avif-sequence": .avif
        ]
        if let f = ImageFormat.allCases.first(where: { $0.mimeType == base }) ?? aliases[base] {
            self = f
        } else {
            return nil
        }
    }

    /// The format for a file extension (with or without the dot, any case), or `nil`.
    ///
    /// `png` gives ``png``, never ``apng``: an extension cannot tell them apart.
    public init?(fileExtension: String) {
        var ext = fileExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        if let f = ImageFormat.allCases.first(where: { $0.fileExtensions.contains(ext) }) {
            self = f
        } else {
            return nil
        }
    }

    /// Whether the format can hold an animation.
    public var supportsAnimation: Bool {
        switch self {
        case .gif, .apng, .webp, .avif, .heic, .heif, .jxl: true
        default: false
        }
    }

    /// The longest side a file of this format can have where the format, or the encoder Imago
    /// writes it with, sets one (`nil`: none that matters): WebP 16383, AVIF and HEIC 16384 (as
    /// imgproxy holds them, for libheif's and browsers' sake), GIF 65535, JPEG 65500, an icon's
    /// entry 256. A result larger than this is scaled down to fit, as imgproxy does.
    public var maxEncodedSide: Int? {
        switch self {
        case .webp: 16383
        case .avif, .heic, .heif: 16384
        case .gif: 65535
        case .jpeg: 65500
        case .ico, .cur: 256
        default: nil
        }
    }

    /// Whether the format is drawn from vectors (SVG, PDF) rather than stored as pixels: it is
    /// rendered at whatever size is asked for, so a thumbnail of it may be larger than its
    /// intrinsic size.
    public var isVector: Bool { self == .svg || self == .pdf }
}
