// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoServiceURL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ServerConfiguration {
    /// What a URL may ask, and the limits it meets.
    static let requestSettings: [Setting<ServerConfiguration>] = [
        .number("IMAGO_MAX_SRC_RESOLUTION", \.security.maxSourceResolution, imgproxy: "IMGPROXY_MAX_SRC_RESOLUTION", "megapixels of a source"),
        .int(
            "IMAGO_MAX_ANIMATION_FRAMES", \.security.maxAnimationFrames, 1...100_000, imgproxy: "IMGPROXY_MAX_ANIMATION_FRAMES", "frames of an animated source"),
        .number("IMAGO_MAX_ANIMATION_FRAME_PIXELS", \.security.maxAnimationPixels, "megapixels summed over an animation's frames"),
        Setting(
            "IMAGO_MAX_ANIMATION_FRAME_RESOLUTION", imgproxy: ["IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION"],
            meaning: "megapixels of one frame of an animation, instead of IMAGO_MAX_SRC_RESOLUTION"
        ) { env, c throws(ConfigurationError) in
            if env["IMAGO_MAX_ANIMATION_FRAME_RESOLUTION"] == "0" {
                c.security.maxAnimationFrameResolution = nil
            } else {
                c.security.maxAnimationFrameResolution = try env.double("IMAGO_MAX_ANIMATION_FRAME_RESOLUTION") ?? c.security.maxAnimationFrameResolution
            }
        } show: {
            $0.security.maxAnimationFrameResolution.map(EnvironmentReader.text) ?? "none"
        },
        .int(
            "IMAGO_MAX_RESULT_DIMENSION", \.security.maxResultDimension, 1...Int.max, imgproxy: "IMGPROXY_MAX_RESULT_DIMENSION",
            "pixels on a result's longer side"),
        .bool("IMAGO_ALLOW_SECURITY_OPTIONS", \.urls.allowSecurityOptions, imgproxy: "IMGPROXY_ALLOW_SECURITY_OPTIONS", "let URLs override the source limits"),
        Setting(
            "IMAGO_ALLOWED_PROCESSING_OPTIONS", imgproxy: ["IMGPROXY_ALLOWED_PROCESSING_OPTIONS"],
            meaning: "option names a URL may use (presets are not checked)"
        ) { env, c throws(ConfigurationError) in
            c.urls.allowedProcessingOptions = env.list("IMAGO_ALLOWED_PROCESSING_OPTIONS").map(Set.init) ?? c.urls.allowedProcessingOptions
        } show: {
            $0.urls.allowedProcessingOptions.isEmpty ? "any" : $0.urls.allowedProcessingOptions.sorted().joined(separator: ",")
        },
        .bool(
            "IMAGO_ONLY_PRESETS", \.urls.onlyPresets, imgproxy: "IMGPROXY_ONLY_PRESETS",
            "the path's first segment names presets, and no other options are read"),
        .text(
            "IMAGO_ARGUMENTS_SEPARATOR", \.urls.argumentsSeparator, imgproxy: "IMGPROXY_ARGUMENTS_SEPARATOR",
            "what separates an option's name and arguments, in URLs and presets"),
        .text("IMAGO_PRESETS_SEPARATOR", \.urls.presetsSeparator, imgproxy: "IMGPROXY_PRESETS_SEPARATOR", "what separates the presets in IMAGO_PRESETS"),
        .bool(
            "IMAGO_BASE64_URL_INCLUDES_FILENAME", \.urls.base64URLIncludesFilename, imgproxy: "IMGPROXY_BASE64_URL_INCLUDES_FILENAME",
            "a segment after a base64url source is a file name, dropped"),
        // After IMAGO_ALLOW_SECURITY_OPTIONS and the separators, which the presets are read and
        // checked with.
        Setting(
            "IMAGO_PRESETS", imgproxy: ["IMGPROXY_PRESETS"], meaning: "name=opt/opt,... ('default' applies to every URL); checked at start"
        ) { env, c throws(ConfigurationError) in
            try c.readPresets(env)
        } show: {
            $0.urls.presets.isEmpty ? "none" : $0.urls.presets.keys.sorted().joined(separator: ",")
        },
        .text("IMAGO_PRESETS_PATH", \.urls.presetsPath, imgproxy: "IMGPROXY_PRESETS_PATH", "a file of presets, one name=opt/opt per line"),
        .bool(
            "IMAGO_ENABLE_CLIENT_HINTS", \.urls.enableClientHints, imgproxy: "IMGPROXY_ENABLE_CLIENT_HINTS",
            "default dpr and width from Sec-CH-DPR/DPR and Sec-CH-Width/Width/Viewport-Width")
    ]

    /// imgproxy's preset rules: `name=options` entries, blank ones and `#` comments skipped; a
    /// file of one per line in `IMAGO_PRESETS_PATH`; every preset applied once here, so a bad one
    /// stops the start instead of failing each request that uses it.
    private mutating func readPresets(_ env: EnvironmentReader) throws(ConfigurationError) {
        var definitions: [String] = []
        if let path = env["IMAGO_PRESETS_PATH"] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(variable: "IMAGO_PRESETS_PATH", reason: "'\(path)' cannot be read")
            }
            definitions += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        }
        if let v = env["IMAGO_PRESETS"] { definitions += v.split(separator: urls.presetsSeparator).map(String.init) }
        guard !definitions.isEmpty else { return }
        let variable = env["IMAGO_PRESETS"] != nil ? "IMAGO_PRESETS" : "IMAGO_PRESETS_PATH"
        do {
            let separator = urls.argumentsSeparator
            urls.presets.merge(try ProcessingOptions.presets(parsing: definitions, argumentSeparator: separator)) { $1 }
            try ProcessingOptions.validate(presets: urls.presets, allowSecurityOptions: urls.allowSecurityOptions, argumentSeparator: separator)
        } catch {
            throw ConfigurationError(variable: variable, reason: "\(error)")
        }
    }

    /// What results are written in, and how.
    static let outputSettings: [Setting<ServerConfiguration>] = [
        .int("IMAGO_QUALITY", \.output.quality, 1...100, imgproxy: "IMGPROXY_QUALITY", "lossy quality, 1-100"),
        // Before IMAGO_FORMAT_QUALITY, whose defaults `visual` clears.
        Setting(
            "IMAGO_QUALITY_MAPPING",
            meaning: "none (imgproxy's: the number to every encoder) or visual (the number is JPEG's; WebP and AVIF at equal SSIMULACRA2)"
        ) { env, c throws(ConfigurationError) in
            guard let text = env["IMAGO_QUALITY_MAPPING"] else { return }
            guard let value = OutputSettings.QualityMapping(rawValue: text.lowercased()) else {
                throw ConfigurationError(variable: "IMAGO_QUALITY_MAPPING", reason: "'\(text)' is not none or visual")
            }
            c.output.qualityMapping = value
            // The numbers mean JPEG's quality: imgproxy's per-format defaults would undo that.
            if value == .visual { c.output.formatQuality = [:] }
        } show: {
            $0.output.qualityMapping.rawValue
        },
        Setting("IMAGO_FORMAT_QUALITY", imgproxy: ["IMGPROXY_FORMAT_QUALITY"], meaning: "quality per format, e.g. webp=79,avif=63") {
            env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_FORMAT_QUALITY"] else { return }
            for pair in v.split(separator: ",") {
                let parts = pair.split(separator: "=").map { PathName.trimmed($0) }
                guard parts.count == 2, let format = ImageFormat(serviceExtension: parts[0]), let q = Int(parts[1]), (1...100).contains(q) else {
                    throw ConfigurationError(variable: "IMAGO_FORMAT_QUALITY", reason: "'\(pair)' is not format=quality (1-100)")
                }
                c.output.formatQuality[format] = q
            }
        } show: { c in
            c.output.formatQuality.isEmpty ? "none" : c.output.formatQuality.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: ",")
        },
        .bool("IMAGO_AUTO_WEBP", \.output.autoWebP, imgproxy: "IMGPROXY_AUTO_WEBP", "answer WebP to clients whose Accept names image/webp"),
        .bool("IMAGO_AUTO_AVIF", \.output.autoAVIF, imgproxy: "IMGPROXY_AUTO_AVIF", "answer AVIF to clients whose Accept names image/avif"),
        .bool("IMAGO_AUTO_JXL", \.output.autoJXL, imgproxy: "IMGPROXY_AUTO_JXL", "answer JPEG XL to clients whose Accept names image/jxl (stills)"),
        .bool("IMAGO_ENFORCE_WEBP", \.output.enforceWebP, imgproxy: "IMGPROXY_ENFORCE_WEBP", "as IMAGO_AUTO_WEBP, even over a format the URL names"),
        .bool("IMAGO_ENFORCE_AVIF", \.output.enforceAVIF, imgproxy: "IMGPROXY_ENFORCE_AVIF", "as IMAGO_AUTO_AVIF, even over a format the URL names"),
        .bool("IMAGO_ENFORCE_JXL", \.output.enforceJXL, imgproxy: "IMGPROXY_ENFORCE_JXL", "as IMAGO_AUTO_JXL, even over a format the URL names"),
        .int("IMAGO_WEBP_EFFORT", \.output.webpEffort, 0...6, imgproxy: "IMGPROXY_WEBP_EFFORT", "libwebp method (0-6) of WebP results"),
        .int("IMAGO_AVIF_SPEED", \.output.avifSpeed, 2...10, imgproxy: "IMGPROXY_AVIF_SPEED", "libavif speed (2-10) of AVIF made while the client waits"),
        .bool("IMAGO_AVIF_LATER", \.output.avifLater, "negotiated AVIF not made yet is made in the background; the client gets a fast answer at once"),
        .choice(
            "IMAGO_AVIF_LATER_FIRST", \.output.avifLaterFirst,
            "the fast answer: avif (speed 9, quality raised to score as the later AVIF) or next (the next format the client takes)"),
        .int("IMAGO_AVIF_LATER_SPEED", \.output.avifLaterSpeed, 2...10, "libavif speed (2-10) of AVIF made in the background"),
        .int(
            "IMAGO_AVIF_LATER_TTL", \.output.avifLaterTTL, 0...Int.max,
            "max-age of a provisional answer: a fast one while its AVIF is made, or the efficient policy's first"),
        .choice(
            "IMAGO_FORMAT_POLICY", \.output.formatPolicy,
            "imgproxy (every answer as imgproxy makes it) or efficient (a cheap JPEG first, the smallest format the client takes once asked again)"),
        .bool("IMAGO_JPEG_PROGRESSIVE", \.output.jpegProgressive, imgproxy: "IMGPROXY_JPEG_PROGRESSIVE", "JPEG results are progressive"),
        .choice("IMAGO_JPEG_QUANTIZATION", \.output.jpegQuantization, "JPEG quantisation tables: standard (Annex K) or robidoux (smaller at equal score)"),
        .int("IMAGO_EFFICIENT_AVIF_SPEED", \.output.efficientAVIFSpeed, 2...10, "libavif speed (2-10) of the AVIF the efficient policy makes for hot results"),
        .int("IMAGO_EFFICIENT_WEBP_EFFORT", \.output.efficientWebPEffort, 0...6, "libwebp method (0-6) of the WebP the efficient policy makes for hot results"),
        .int(
            "IMAGO_EFFICIENT_HOT_ASKS", \.output.efficientHotAsks, 2...Int.max,
            "requests after which the efficient policy makes a result's smallest answer at the slowest effort"),
        Setting(
            "IMAGO_PREFERRED_FORMATS", imgproxy: ["IMGPROXY_PREFERRED_FORMATS"],
            meaning: "formats a result is written in when the URL names none and the source's is not among them"
        ) { env, c throws(ConfigurationError) in
            guard let formats = try env.formats("IMAGO_PREFERRED_FORMATS") else { return }
            guard !formats.isEmpty else { throw ConfigurationError(variable: "IMAGO_PREFERRED_FORMATS", reason: "name one format at least") }
            c.output.preferredFormats = formats
        } show: {
            $0.output.preferredFormats.map(\.rawValue).joined(separator: ",")
        },
        .bool("IMAGO_KEEP_SOURCE_FORMAT", \.output.keepSourceFormat, "without a format in the URL, keep the source's whenever it can be written"),
        Setting(
            "IMAGO_SKIP_PROCESSING_FORMATS", imgproxy: ["IMGPROXY_SKIP_PROCESSING_FORMATS"],
            meaning: "source formats sent as they are when no other format is asked, as skp: in every URL"
        ) { env, c throws(ConfigurationError) in
            c.output.skipProcessingFormats = try env.formats("IMAGO_SKIP_PROCESSING_FORMATS").map(Set.init) ?? c.output.skipProcessingFormats
        } show: {
            $0.output.skipProcessingFormats.isEmpty ? "none" : $0.output.skipProcessingFormats.map(\.rawValue).sorted().joined(separator: ",")
        },
        .bool(
            "IMAGO_ALWAYS_RASTERIZE_SVG", \.output.alwaysRasterizeSVG, imgproxy: "IMGPROXY_ALWAYS_RASTERIZE_SVG",
            "draw SVG sources with no format asked into a raster format, instead of sending SVG"),
        .bool(
            "IMAGO_SANITIZE_SVG", \.output.sanitizeSVG, imgproxy: "IMGPROXY_SANITIZE_SVG",
            "remove scripts, event attributes and unsafe links from SVG sent as SVG"),
        .bool(
            "IMAGO_ENFORCE_THUMBNAIL", \.output.enforceThumbnail, imgproxy: "IMGPROXY_ENFORCE_THUMBNAIL",
            "process HEIF/AVIF sources from the thumbnail they store, when they have one"),
        .int("IMAGO_TTL", \.http.ttl, 0...Int.max, imgproxy: "IMGPROXY_TTL", "Cache-Control max-age of results, seconds"),
        .bool(
            "IMAGO_CACHE_CONTROL_PASSTHROUGH", \.http.cacheControlPassthrough, imgproxy: "IMGPROXY_CACHE_CONTROL_PASSTHROUGH",
            "answers take the origin's Cache-Control (or Expires) instead of IMAGO_TTL"),
        .bool("IMAGO_STRIP_METADATA", \.output.stripMetadata, imgproxy: "IMGPROXY_STRIP_METADATA", "drop EXIF from results"),
        .bool("IMAGO_KEEP_COPYRIGHT", \.output.keepCopyright, imgproxy: "IMGPROXY_KEEP_COPYRIGHT", "keep EXIF Copyright and Artist when stripping"),
        .bool("IMAGO_STRIP_COLOR_PROFILE", \.output.stripColorProfile, imgproxy: "IMGPROXY_STRIP_COLOR_PROFILE", "convert to sRGB and drop ICC profiles"),
        .bool("IMAGO_AUTO_ROTATE", \.output.autoRotate, imgproxy: "IMGPROXY_AUTO_ROTATE", "apply EXIF orientation"),
        .bool("IMAGO_RETURN_ATTACHMENT", \.http.returnAttachment, imgproxy: "IMGPROXY_RETURN_ATTACHMENT", "Content-Disposition: attachment"),
        .bool(
            "IMAGO_SET_CANONICAL_HEADER", \.http.setCanonicalHeader, imgproxy: "IMGPROXY_SET_CANONICAL_HEADER",
            "image answers from http(s) sources carry Link: <source>; rel=\"canonical\""),
        .bool(
            "IMAGO_ENABLE_DEBUG_HEADERS", \.http.enableDebugHeaders, imgproxy: "IMGPROXY_ENABLE_DEBUG_HEADERS",
            "image answers carry X-Origin-Width/-Height/-Content-Length and X-Result-Width/-Height"),
        .text(
            "IMAGO_COLOR_PROFILES_DIR", \.output.colorProfilesDirectory, imgproxy: "IMGPROXY_COLOR_PROFILES_DIR",
            "where color_profile finds the ICC profiles it names by file"),
        .bool(
            "IMAGO_USE_LINEAR_COLORSPACE", \.output.useLinearColorspace, imgproxy: "IMGPROXY_USE_LINEAR_COLORSPACE",
            "resize in linear light (fine patterns keep their brightness; slower)"),
        .bool(
            "IMAGO_PRESERVE_HDR", \.output.preserveHDR, imgproxy: "IMGPROXY_PRESERVE_HDR",
            "an Ultra HDR JPEG answered as JPEG keeps its gain map, brought to the result's geometry, unless preserve_hdr says")
    ]

    /// The watermark and the faces: what is drawn over results and what crops look for.
    static let drawingSettings: [Setting<ServerConfiguration>] =
        imageSettings(
            "IMAGO_WATERMARK", imgproxy: "IMGPROXY_WATERMARK", data: \.drawing.watermarkImageData, url: \.drawing.watermarkImageURL,
            meaning: "base64 image the watermark option draws over results") + drawingRest

    private static let drawingRest: [Setting<ServerConfiguration>] = [
        Setting("IMAGO_WATERMARK_OPACITY", imgproxy: ["IMGPROXY_WATERMARK_OPACITY"], meaning: "multiplies each URL's watermark opacity, above 0 to 1") {
            env, c throws(ConfigurationError) in
            guard let opacity = try env.double("IMAGO_WATERMARK_OPACITY") else { return }
            guard opacity <= 1 else {
                throw ConfigurationError(variable: "IMAGO_WATERMARK_OPACITY", reason: "'\(opacity)' is not above 0 and at most 1")
            }
            c.drawing.watermarkOpacity = opacity
        } show: {
            EnvironmentReader.text($0.drawing.watermarkOpacity)
        },
        .bool(
            "IMAGO_SMART_CROP_FACE_DETECTION", \.drawing.smartCropFaceDetection, imgproxy: "IMGPROXY_SMART_CROP_FACE_DETECTION",
            "smart gravity (g:sm) keeps the faces it finds (OpenCV); libvips's attention score decides where there are none"),
        .bool(
            "IMAGO_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP", \.drawing.objectDetectionFallbackToSmartCrop,
            imgproxy: "IMGPROXY_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP",
            "g:obj with no object of its classes found crops by smart gravity; false: from the centre"),
        .text("IMAGO_FACE_DETECTION_CASCADE", \.drawing.faceDetectionCascade, "the OpenCV cascade (XML) faces are found with"),
        .seconds("IMAGO_FACE_DETECTION_TIME_LIMIT", \.drawing.faceDetectionTimeLimit, "seconds of CPU time a face search takes before it keeps what it found")
    ]

    /// imgproxy's three settings of one image: `PREFIX_DATA` (base64; it reads the others),
    /// `PREFIX_PATH` (a file, read at start, which wins) and `PREFIX_URL` (fetched like a source).
    static func imageSettings(
        _ prefix: String, imgproxy: String, data: SettingPath<ServerConfiguration, Data?>, url: SettingPath<ServerConfiguration, String?>,
        meaning: String
    ) -> [Setting<ServerConfiguration>] {
        [
            Setting(prefix + "_DATA", imgproxy: [imgproxy + "_DATA"], meaning: meaning) { env, c throws(ConfigurationError) in
                c[keyPath: data] = try env.imageData(prefix + "_DATA", path: prefix + "_PATH") ?? c[keyPath: data]
            } show: {
                $0[keyPath: data] == nil ? "none" : "(set)"
            },
            .member(prefix + "_PATH", of: prefix + "_DATA", imgproxy: imgproxy + "_PATH", "file of that image, read at start") { _ in "none" },
            Setting(prefix + "_URL", imgproxy: [imgproxy + "_URL"], meaning: "URL of that image, fetched like a source") {
                env, c throws(ConfigurationError) in
                c[keyPath: url] = try env.httpURL(prefix + "_URL") ?? c[keyPath: url]
            } show: {
                $0[keyPath: url] ?? "none"
            }
        ]
    }
}
