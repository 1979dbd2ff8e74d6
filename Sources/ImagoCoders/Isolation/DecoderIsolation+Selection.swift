// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

extension DecoderIsolation {
    /// Which sources leave the process, as `IMAGO_ISOLATED_FORMATS` names them for
    /// `imago-server`, `imago` and `imago-fetch`: a comma-separated list of format names
    /// (`pdf`, `svg`, `tiff`, `heic`, `jpg`, …: any file extension Imago knows), `video` for
    /// FFmpeg's containers, or `none`.
    public struct Selection: Sendable, Hashable, CustomStringConvertible {
        /// The environment variable that names the selection: `IMAGO_ISOLATED_FORMATS`.
        public static let environmentVariable = "IMAGO_ISOLATED_FORMATS"

        /// The image formats decoded out of process.
        public var formats: Set<ImageFormat>
        /// Whether video frames are read out of process too.
        public var video: Bool

        /// The default: ``DecoderIsolation/defaultFormats`` and video.
        public static let `default` = Selection(formats: DecoderIsolation.defaultFormats, video: true)

        /// The default of the `imago` and `imago-fetch` commands: ``default`` without PNG. In
        /// process, a PNG's rows stream from the file through the resampler or into the encoder,
        /// so a thumbnail or conversion of a large PNG never holds its bitmap; a worker decodes it
        /// whole, and the host copies it. (libpng is also among the most fuzzed of the codecs.)
        /// WebP stays isolated: libwebp decodes a thumbnail scaled, in the worker too.
        public static let commandLineDefault = Selection(formats: DecoderIsolation.defaultFormats.subtracting([.png]), video: true)

        /// Nothing out of process.
        public static let none = Selection(formats: [], video: false)

        /// Creates a selection of `formats`, and of video when `video` is true.
        public init(formats: Set<ImageFormat>, video: Bool) {
            self.formats = formats
            self.video = video
        }

        /// Reads a list such as `pdf,svg,tiff,video`; `none` (or an empty list) selects nothing.
        /// Names are case-insensitive and may have spaces around them.
        ///
        /// - Throws: `ImageCodingError.invalidArgument` naming the first entry that is neither a
        ///   format, `video` nor `none`.
        public init(parsing list: String) throws(ImageCodingError) {
            try self.init(parsing: list, named: nil)
        }

        /// The selection read from `environment`'s ``environmentVariable``; `fallback` (default
        /// ``default``) when it is not set.
        ///
        /// - Throws: as ``init(parsing:)``, the variable's name in the message.
        public init(environment: [String: String], fallback: Selection = .default) throws(ImageCodingError) {
            guard let list = environment[Self.environmentVariable] else {
                self = fallback
                return
            }
            try self.init(parsing: list, named: Self.environmentVariable)
        }

        private init(parsing list: String, named variable: String?) throws(ImageCodingError) {
            var formats: Set<ImageFormat> = []
            var video = false
            for part in list.lowercased().split(separator: ",") {
                let name = PathName.trimmed(part)
                switch name {
                case "", "none": continue
                case "video": video = true
                default:
                    guard let format = ImageFormat(fileExtension: name) else {
                        throw .invalidArgument("\(variable.map { "\($0): " } ?? "")'\(name)' is not an image format, video or none")
                    }
                    formats.insert(format)
                }
            }
            self.init(formats: formats, video: video)
        }

        /// Whether nothing is selected.
        public var isEmpty: Bool { formats.isEmpty && !video }

        /// The list as ``init(parsing:)`` reads it, sorted: `avif,heic,…,video`, or `none`.
        public var description: String {
            let names = formats.map(\.rawValue).sorted() + (video ? ["video"] : [])
            return names.isEmpty ? "none" : names.joined(separator: ",")
        }
    }
}
