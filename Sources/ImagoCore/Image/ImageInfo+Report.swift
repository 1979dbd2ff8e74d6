// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ImageInfo {
    /// The header facts as `imago info --json` prints them and the service's `/info` answers:
    /// exactly these keys, encoded with sorted keys.
    package struct Report: Encodable, Sendable, Hashable {
        /// The format's short name (`ImageFormat`'s raw value), such as `jpeg`.
        package var format: String
        /// The format's MIME type, such as `image/jpeg`.
        package var mimeType: String
        /// Stored width in pixels, before orientation.
        package var width: Int
        /// Stored height in pixels, before orientation.
        package var height: Int
        /// The EXIF orientation as a number, 1–8; 1 when absent.
        package var orientation: Int
        /// Frames in the file; 1 for a still.
        package var frameCount: Int
        /// Pages in a document (PDF); 1 for every other format.
        package var pageCount: Int
        /// Total plays: 0 means forever; 1 for a still.
        package var loopCount: Int
        /// Seconds each frame is shown; `[0]` for a still.
        package var durations: [Double]
        /// Whether the image has an alpha channel or transparency.
        package var hasAlpha: Bool
        /// Bits per channel as stored (1–16).
        package var bitDepth: Int
        /// Whether an ICC profile is embedded.
        package var hasICCProfile: Bool
        /// Whether the file is progressive (JPEG) or interlaced (PNG, GIF).
        package var progressive: Bool

        /// The report of `info`.
        package init(_ info: ImageInfo) {
            format = info.format.rawValue
            mimeType = info.format.mimeType
            width = info.width
            height = info.height
            orientation = info.orientation.rawValue
            frameCount = info.frameCount
            pageCount = info.pageCount
            loopCount = info.loopCount
            durations = info.durations
            hasAlpha = info.hasAlpha
            bitDepth = info.bitDepth
            hasICCProfile = info.hasICCProfile
            progressive = info.progressive
        }
    }
}
