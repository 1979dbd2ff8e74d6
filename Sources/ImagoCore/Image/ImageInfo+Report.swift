// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ImageInfo {
    /// The header facts as `imago info --json` prints them and the service's `/info` answers:
    /// exactly these keys, encoded with sorted keys.
    public struct Report: Encodable, Sendable, Hashable {
        public var format: String
        public var mimeType: String
        public var width: Int
        public var height: Int
        public var orientation: Int
        public var frameCount: Int
        public var pageCount: Int
        public var loopCount: Int
        public var durations: [Double]
        public var hasAlpha: Bool
        public var bitDepth: Int
        public var hasICCProfile: Bool
        public var progressive: Bool

        /// The report of `info`.
        public init(_ info: ImageInfo) {
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
