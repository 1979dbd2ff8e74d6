// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore
import ImagoServiceURL

extension ServerConfiguration {
    /// Overrides settings from `IMAGO_*` variables (or flags given under the same names).
    ///
    /// - Throws: ``ConfigurationError``.
    public mutating func apply(_ environment: [String: String]) throws(ConfigurationError) {
        let env = EnvironmentReader(values: environment)
        if let v = env["IMAGO_BIND"] { bind = v }
        keys = env["IMAGO_KEY"] ?? keys
        salts = env["IMAGO_SALT"] ?? salts
        signatureSize = try env.int("IMAGO_SIGNATURE_SIZE", in: 1...32) ?? signatureSize
        secret = env["IMAGO_SECRET"] ?? secret
        purgeSecret = env["IMAGO_PURGE_SECRET"] ?? purgeSecret
        cacheDirectory = env["IMAGO_CACHE_DIR"] ?? cacheDirectory
        cacheSize = try env.int("IMAGO_CACHE_SIZE", in: 0...Int.max) ?? cacheSize
        resultCacheSize = try env.int("IMAGO_RESULT_CACHE_SIZE", in: 0...Int.max) ?? resultCacheSize
        decodeCacheSize = try env.int("IMAGO_DECODE_CACHE_SIZE", in: 0...Int.max) ?? decodeCacheSize
        for (name, keyPath) in [
            ("IMAGO_SOURCE_TTL", \ServerConfiguration.sourceTTL), ("IMAGO_SOURCE_TTL_MIN", \.sourceTTLMin), ("IMAGO_SOURCE_TTL_MAX", \.sourceTTLMax)
        ] {
            if env[name] == "0" {
                self[keyPath: keyPath] = .zero
            } else if let v = try env.seconds(name) {
                self[keyPath: keyPath] = v
            }
        }
        guard sourceTTLMin <= sourceTTLMax else {
            throw ConfigurationError(variable: "IMAGO_SOURCE_TTL_MIN", reason: "it is longer than IMAGO_SOURCE_TTL_MAX")
        }
        localRoot = env["IMAGO_LOCAL_ROOT"] ?? localRoot
        try applySourceSettings(env)
        try applyObjectStorageSettings(env)
        if let root = env["IMAGO_LOCAL_ROOT"] {
            // Checked at start: a root that is not there would refuse every local source.
            let type = (try? FileManager.default.attributesOfItem(atPath: root))?[.type] as? FileAttributeType
            guard type == .typeDirectory else {
                throw ConfigurationError(variable: "IMAGO_LOCAL_ROOT", reason: "'\(root)' is not a folder")
            }
        }
        if let v = env["IMAGO_ALLOWED_SOURCES"] { allowedSources = v.split(separator: ",").map { PathName.trimmed($0) }.filter { !$0.isEmpty } }
        allowLoopbackSources = try env.bool("IMAGO_ALLOW_LOOPBACK_SOURCES") ?? allowLoopbackSources
        allowPrivateSources = try env.bool("IMAGO_ALLOW_PRIVATE_SOURCES") ?? allowPrivateSources
        allowLinkLocalSources = try env.bool("IMAGO_ALLOW_LINK_LOCAL_SOURCES") ?? allowLinkLocalSources
        maxSourceResolution = try env.double("IMAGO_MAX_SRC_RESOLUTION") ?? maxSourceResolution
        maxSourceFileSize = try env.int("IMAGO_MAX_SRC_FILE_SIZE", in: 1...Int.max) ?? maxSourceFileSize
        maxRedirects = try env.int("IMAGO_MAX_REDIRECTS", in: 0...100) ?? maxRedirects
        downloadTimeout = try env.seconds("IMAGO_DOWNLOAD_TIMEOUT") ?? downloadTimeout
        requestTimeout = try env.seconds("IMAGO_REQUEST_TIMEOUT") ?? requestTimeout
        readRequestTimeout = try env.seconds("IMAGO_READ_REQUEST_TIMEOUT") ?? readRequestTimeout
        if env["IMAGO_KEEP_ALIVE_TIMEOUT"] == "0" {
            keepAliveTimeout = .zero
        } else {
            keepAliveTimeout = try env.seconds("IMAGO_KEEP_ALIVE_TIMEOUT") ?? keepAliveTimeout
        }
        maxClients = try env.int("IMAGO_MAX_CLIENTS", in: 1...1_000_000) ?? maxClients
        maxResultDimension = try env.int("IMAGO_MAX_RESULT_DIMENSION", in: 1...Int.max) ?? maxResultDimension
        allowSecurityOptions = try env.bool("IMAGO_ALLOW_SECURITY_OPTIONS") ?? allowSecurityOptions
        quality = try env.int("IMAGO_QUALITY", in: 1...100) ?? quality
        if let mapping = env["IMAGO_QUALITY_MAPPING"] {
            guard let value = QualityMapping(rawValue: mapping.lowercased()) else {
                throw ConfigurationError(variable: "IMAGO_QUALITY_MAPPING", reason: "'\(mapping)' is not none or visual")
            }
            qualityMapping = value
            // The numbers mean JPEG's quality: imgproxy's per-format defaults would undo that.
            if value == .visual { formatQuality = [:] }
        }
        if let v = env["IMAGO_FORMAT_QUALITY"] {
            for pair in v.split(separator: ",") {
                let parts = pair.split(separator: "=").map { PathName.trimmed($0) }
                guard parts.count == 2, let format = ImageFormat(serviceExtension: parts[0]), let q = Int(parts[1]), (1...100).contains(q) else {
                    throw ConfigurationError(variable: "IMAGO_FORMAT_QUALITY", reason: "'\(pair)' is not format=quality (1-100)")
                }
                formatQuality[format] = q
            }
        }
        autoWebP = try env.bool("IMAGO_AUTO_WEBP") ?? autoWebP
        autoAVIF = try env.bool("IMAGO_AUTO_AVIF") ?? autoAVIF
        avifSpeed = try env.int("IMAGO_AVIF_SPEED", in: 2...10) ?? avifSpeed
        webpEffort = try env.int("IMAGO_WEBP_EFFORT", in: 0...6) ?? webpEffort
        avifLater = try env.bool("IMAGO_AVIF_LATER") ?? avifLater
        avifLaterSpeed = try env.int("IMAGO_AVIF_LATER_SPEED", in: 2...10) ?? avifLaterSpeed
        avifLaterTTL = try env.int("IMAGO_AVIF_LATER_TTL", in: 0...Int.max) ?? avifLaterTTL
        if let first = env["IMAGO_AVIF_LATER_FIRST"] {
            guard let value = AVIFLaterFirst(rawValue: first.lowercased()) else {
                throw ConfigurationError(variable: "IMAGO_AVIF_LATER_FIRST", reason: "'\(first)' is not avif or next")
            }
            avifLaterFirst = value
        }
        autoJXL = try env.bool("IMAGO_AUTO_JXL") ?? autoJXL
        enforceWebP = try env.bool("IMAGO_ENFORCE_WEBP") ?? enforceWebP
        enforceAVIF = try env.bool("IMAGO_ENFORCE_AVIF") ?? enforceAVIF
        enforceJXL = try env.bool("IMAGO_ENFORCE_JXL") ?? enforceJXL
        keepSourceFormat = try env.bool("IMAGO_KEEP_SOURCE_FORMAT") ?? keepSourceFormat
        alwaysRasterizeSVG = try env.bool("IMAGO_ALWAYS_RASTERIZE_SVG") ?? alwaysRasterizeSVG
        enforceThumbnail = try env.bool("IMAGO_ENFORCE_THUMBNAIL") ?? enforceThumbnail
        allowOrigin = env["IMAGO_ALLOW_ORIGIN"] ?? allowOrigin
        headAsGet = try env.bool("IMAGO_HEAD_AS_GET") ?? headAsGet
        enableVideoThumbnails = try env.bool("IMAGO_ENABLE_VIDEO_THUMBNAILS") ?? enableVideoThumbnails
        videoThumbnailSecond = try env.double("IMAGO_VIDEO_THUMBNAIL_SECOND") ?? videoThumbnailSecond
        videoThumbnailKeyframes = try env.bool("IMAGO_VIDEO_THUMBNAIL_KEYFRAMES") ?? videoThumbnailKeyframes
        smartCropFaceDetection = try env.bool("IMAGO_SMART_CROP_FACE_DETECTION") ?? smartCropFaceDetection
        preserveHDR = try env.bool("IMAGO_PRESERVE_HDR") ?? preserveHDR
        colorProfilesDirectory = env["IMAGO_COLOR_PROFILES_DIR"] ?? colorProfilesDirectory
        objectDetectionFallbackToSmartCrop = try env.bool("IMAGO_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP") ?? objectDetectionFallbackToSmartCrop
        faceDetectionCascade = env["IMAGO_FACE_DETECTION_CASCADE"] ?? faceDetectionCascade
        faceDetectionTimeLimit = try env.seconds("IMAGO_FACE_DETECTION_TIME_LIMIT") ?? faceDetectionTimeLimit
        sanitizeSVG = try env.bool("IMAGO_SANITIZE_SVG") ?? sanitizeSVG
        if let formats = try env.formats("IMAGO_PREFERRED_FORMATS") {
            guard !formats.isEmpty else { throw ConfigurationError(variable: "IMAGO_PREFERRED_FORMATS", reason: "name one format at least") }
            preferredFormats = formats
        }
        skipProcessingFormats = try env.formats("IMAGO_SKIP_PROCESSING_FORMATS").map(Set.init) ?? skipProcessingFormats
        maxAnimationFrames = try env.int("IMAGO_MAX_ANIMATION_FRAMES", in: 1...100_000) ?? maxAnimationFrames
        maxAnimationPixels = try env.double("IMAGO_MAX_ANIMATION_FRAME_PIXELS") ?? maxAnimationPixels
        ttl = try env.int("IMAGO_TTL", in: 0...Int.max) ?? ttl
        stripMetadata = try env.bool("IMAGO_STRIP_METADATA") ?? stripMetadata
        keepCopyright = try env.bool("IMAGO_KEEP_COPYRIGHT") ?? keepCopyright
        stripColorProfile = try env.bool("IMAGO_STRIP_COLOR_PROFILE") ?? stripColorProfile
        autoRotate = try env.bool("IMAGO_AUTO_ROTATE") ?? autoRotate
        returnAttachment = try env.bool("IMAGO_RETURN_ATTACHMENT") ?? returnAttachment
        // imgproxy's rules: `name=options` entries, blank ones and `#` comments skipped; a file
        // of one per line in IMAGO_PRESETS_PATH; every preset applied once here, so a bad one
        // stops the start instead of failing each request that uses it.
        var definitions: [String] = []
        presetsPath = env["IMAGO_PRESETS_PATH"] ?? presetsPath
        if let path = presetsPath {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(variable: "IMAGO_PRESETS_PATH", reason: "'\(path)' cannot be read")
            }
            definitions += String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        }
        if let v = env["IMAGO_PRESETS"] { definitions += v.split(separator: ",").map(String.init) }
        if !definitions.isEmpty {
            let variable = env["IMAGO_PRESETS"] != nil ? "IMAGO_PRESETS" : "IMAGO_PRESETS_PATH"
            do {
                presets.merge(try ProcessingOptions.presets(parsing: definitions)) { $1 }
                try ProcessingOptions.validate(presets: presets, allowSecurityOptions: allowSecurityOptions)
            } catch {
                throw ConfigurationError(variable: variable, reason: "\(error)")
            }
        }
        workers = try env.int("IMAGO_WORKERS", in: 1...1024) ?? workers
        if let v = env["IMAGO_WORKER_AFFINITY"] {
            guard let affinity = WorkerAffinity(rawValue: PathName.trimmed(v).lowercased()) else {
                throw ConfigurationError(variable: "IMAGO_WORKER_AFFINITY", reason: "'\(v)' is not auto, pinned or none")
            }
            workerAffinity = affinity
        }
        queueSize = try env.int("IMAGO_QUEUE_SIZE", in: 0...1_000_000) ?? queueSize
        gracefulStopTimeout = try env.seconds("IMAGO_GRACEFUL_STOP_TIMEOUT") ?? gracefulStopTimeout
        mallocArenas = try env.int("IMAGO_MALLOC_ARENAS", in: 0...4096) ?? mallocArenas
        mallocMmapThreshold = try env.int("IMAGO_MALLOC_MMAP_THRESHOLD", in: 0...(32 << 20)) ?? mallocMmapThreshold
        if mallocMmapThreshold > 0, mallocMmapThreshold < 4096 {
            throw ConfigurationError(variable: "IMAGO_MALLOC_MMAP_THRESHOLD", reason: "'\(mallocMmapThreshold)' is not 0 or 4096-33554432")
        }
        if env["IMAGO_FREE_MEMORY_INTERVAL"] == "0" {
            freeMemoryInterval = .zero
        } else {
            freeMemoryInterval = try env.seconds("IMAGO_FREE_MEMORY_INTERVAL") ?? freeMemoryInterval
        }
        if let v = env["IMAGO_METRICS_BIND"] {
            metricsBind = v
            _ = try Self.hostAndPort(v, variable: "IMAGO_METRICS_BIND")
        }
        if let v = env["IMAGO_LOG_FORMAT"] {
            switch v.lowercased() {
            case "text", "pretty", "structured": logFormat = "text"
            case "json", "gcp": logFormat = "json"
            default: throw ConfigurationError(variable: "IMAGO_LOG_FORMAT", reason: "'\(v)' is not text or json")
            }
        }
        playground = try env.bool("IMAGO_PLAYGROUND") ?? playground
        serverTiming = try env.bool("IMAGO_SERVER_TIMING") ?? serverTiming
        otelEnabled = try env.bool("IMAGO_OTEL_ENABLE") ?? otelEnabled
        if let endpoint = env["IMAGO_OTEL_ENDPOINT"] {
            guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
                throw ConfigurationError(variable: "IMAGO_OTEL_ENDPOINT", reason: "'\(endpoint)' is not an http or https URL")
            }
            otelEndpoint = endpoint
        }
        if let value = env["IMAGO_OTEL_PROTOCOL"] {
            guard value == "http/protobuf" || value == "http/json" else {
                throw ConfigurationError(variable: "IMAGO_OTEL_PROTOCOL", reason: "'\(value)' is not http/protobuf or http/json")
            }
            otelProtocol = value
        }
        if let name = env["IMAGO_OTEL_SERVICE_NAME"], !name.isEmpty { otelServiceName = name }
    }
}

/// Typed reads of environment values.
struct EnvironmentReader {
    let values: [String: String]

    subscript(_ name: String) -> String? {
        values[name].map { PathName.trimmed($0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    func bool(_ name: String) throws(ConfigurationError) -> Bool? {
        guard let v = self[name] else { return nil }
        switch v.lowercased() {
        case "1", "t", "true", "yes", "on": return true
        case "0", "f", "false", "no", "off": return false
        default: throw ConfigurationError(variable: name, reason: "'\(v)' is not true or false")
        }
    }

    func int(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let v = self[name] else { return nil }
        guard let n = Int(v), range.contains(n) else { throw ConfigurationError(variable: name, reason: "'\(v)' is not an integer in \(range)") }
        return n
    }

    func double(_ name: String) throws(ConfigurationError) -> Double? {
        guard let v = self[name] else { return nil }
        guard let d = Double(v), d.isFinite, d > 0 else { throw ConfigurationError(variable: name, reason: "'\(v)' is not a positive number") }
        return d
    }

    /// An image given as base64 in `name` or as a file at the path in `path` (which wins, as it
    /// is read later), read and sniffed here, at start.
    func imageData(_ name: String, path: String) throws(ConfigurationError) -> Data? {
        var out: Data?
        if let data = self[name] {
            guard let bytes = Data(base64Encoded: data), ImageFormat(sniffing: bytes) != nil else {
                throw ConfigurationError(variable: name, reason: "not base64 of an image")
            }
            out = bytes
        }
        if let file = self[path] {
            guard let bytes = FileManager.default.contents(atPath: file), ImageFormat(sniffing: bytes) != nil else {
                throw ConfigurationError(variable: path, reason: "'\(file)' is not a readable image")
            }
            out = bytes
        }
        return out
    }

    /// A comma-separated list of format names (`jpeg`, `png`, `webp`, …), in order.
    func formats(_ name: String) throws(ConfigurationError) -> [ImageFormat]? {
        guard let v = self[name] else { return nil }
        var formats: [ImageFormat] = []
        for part in v.split(separator: ",") {
            guard let format = ImageFormat(serviceExtension: PathName.trimmed(part)) else {
                throw ConfigurationError(variable: name, reason: "'\(part)' is not an image format")
            }
            formats.append(format)
        }
        return formats
    }

    /// An `http` or `https` URL.
    func httpURL(_ name: String) throws(ConfigurationError) -> String? {
        guard let url = self[name] else { return nil }
        guard url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            throw ConfigurationError(variable: name, reason: "'\(url)' is not an http or https URL")
        }
        return url
    }

    func seconds(_ name: String) throws(ConfigurationError) -> Duration? {
        guard let d = try double(name) else { return nil }
        guard d <= 1_000_000_000 else { throw ConfigurationError(variable: name, reason: "'\(d)' seconds is too long") }
        return .milliseconds(Int64((d * 1000).rounded()))
    }
}

extension ServerConfiguration {
    /// The fallback image, the base URL, URL replacements, only-presets mode and the allowed
    /// options; the fallback image is read and checked here, at start.
    mutating func applySourceSettings(_ env: EnvironmentReader) throws(ConfigurationError) {
        fallbackImageData = try env.imageData("IMAGO_FALLBACK_IMAGE_DATA", path: "IMAGO_FALLBACK_IMAGE_PATH") ?? fallbackImageData
        fallbackImageURL = try env.httpURL("IMAGO_FALLBACK_IMAGE_URL") ?? fallbackImageURL
        watermarkImageData = try env.imageData("IMAGO_WATERMARK_DATA", path: "IMAGO_WATERMARK_PATH") ?? watermarkImageData
        watermarkImageURL = try env.httpURL("IMAGO_WATERMARK_URL") ?? watermarkImageURL
        if let opacity = try env.double("IMAGO_WATERMARK_OPACITY") {
            guard opacity > 0, opacity <= 1 else {
                throw ConfigurationError(variable: "IMAGO_WATERMARK_OPACITY", reason: "'\(opacity)' is not above 0 and at most 1")
            }
            watermarkOpacity = opacity
        }
        fallbackImageHTTPCode = try env.int("IMAGO_FALLBACK_IMAGE_HTTP_CODE", in: 0...599) ?? fallbackImageHTTPCode
        // A status that carries the image: 0 (the failure's), or 200-599 but 204 and 304.
        if fallbackImageHTTPCode != 0, fallbackImageHTTPCode < 200 || fallbackImageHTTPCode == 204 || fallbackImageHTTPCode == 304 {
            throw ConfigurationError(variable: "IMAGO_FALLBACK_IMAGE_HTTP_CODE", reason: "'\(fallbackImageHTTPCode)' is not 0 or a status with a body")
        }
        // 0: unset, as imgproxy reads it (the answer gets IMAGO_TTL).
        fallbackImageTTL = try env.int("IMAGO_FALLBACK_IMAGE_TTL", in: 0...Int.max).flatMap { $0 > 0 ? $0 : nil } ?? fallbackImageTTL
        baseURL = env["IMAGO_BASE_URL"] ?? baseURL
        if let v = env["IMAGO_URL_REPLACEMENTS"] {
            urlReplacements = []
            for entry in v.split(separator: ";") {
                let parts = entry.split(separator: "=", maxSplits: 1).map { PathName.trimmed($0) }
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw ConfigurationError(variable: "IMAGO_URL_REPLACEMENTS", reason: "'\(entry)' is not pattern=replacement")
                }
                urlReplacements.append((parts[0], parts[1]))
            }
        }
        onlyPresets = try env.bool("IMAGO_ONLY_PRESETS") ?? onlyPresets
        enableClientHints = try env.bool("IMAGO_ENABLE_CLIENT_HINTS") ?? enableClientHints
        if env["IMAGO_MAX_ANIMATION_FRAME_RESOLUTION"] == "0" {
            maxAnimationFrameResolution = nil
        } else {
            maxAnimationFrameResolution = try env.double("IMAGO_MAX_ANIMATION_FRAME_RESOLUTION") ?? maxAnimationFrameResolution
        }
        if let v = env["IMAGO_ALLOWED_PROCESSING_OPTIONS"] {
            allowedProcessingOptions = Set(v.split(separator: ",").map { PathName.trimmed($0) }.filter { !$0.isEmpty })
        }
    }
}
