// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

extension ServerConfiguration {
    /// imgproxy's settings that have an equivalent here, by imgproxy's name: the Imago setting
    /// they set, with the same meaning and value. An `IMAGO_` setting given too wins.
    public static let imgproxyEquivalents: [String: String] = [
        "IMGPROXY_BIND": "IMAGO_BIND", "IMGPROXY_KEY": "IMAGO_KEY", "IMGPROXY_SALT": "IMAGO_SALT",
        "IMGPROXY_SIGNATURE_SIZE": "IMAGO_SIGNATURE_SIZE", "IMGPROXY_SECRET": "IMAGO_SECRET",
        "IMGPROXY_ALLOWED_SOURCES": "IMAGO_ALLOWED_SOURCES",
        "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "IMAGO_ALLOW_LOOPBACK_SOURCES",
        "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "IMAGO_ALLOW_PRIVATE_SOURCES",
        "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "IMAGO_ALLOW_LINK_LOCAL_SOURCES",
        "IMGPROXY_ALLOW_SECURITY_OPTIONS": "IMAGO_ALLOW_SECURITY_OPTIONS",
        "IMGPROXY_LOCAL_FILESYSTEM_ROOT": "IMAGO_LOCAL_ROOT",
        "IMGPROXY_USE_S3": "IMAGO_USE_S3", "IMGPROXY_S3_REGION": "IMAGO_S3_REGION", "IMGPROXY_S3_ENDPOINT": "IMAGO_S3_ENDPOINT",
        "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "IMAGO_S3_ENDPOINT_USE_PATH_STYLE",
        "IMGPROXY_USE_ABS": "IMAGO_USE_ABS", "IMGPROXY_ABS_NAME": "IMAGO_ABS_NAME", "IMGPROXY_ABS_KEY": "IMAGO_ABS_KEY",
        "IMGPROXY_ABS_ENDPOINT": "IMAGO_ABS_ENDPOINT", "IMGPROXY_GCS_ENDPOINT": "IMAGO_GCS_ENDPOINT",
        "IMGPROXY_USE_SWIFT": "IMAGO_USE_SWIFT", "IMGPROXY_SWIFT_AUTH_URL": "IMAGO_SWIFT_AUTH_URL",
        "IMGPROXY_SWIFT_USERNAME": "IMAGO_SWIFT_USERNAME", "IMGPROXY_SWIFT_API_KEY": "IMAGO_SWIFT_API_KEY",
        "IMGPROXY_SWIFT_AUTH_VERSION": "IMAGO_SWIFT_AUTH_VERSION", "IMGPROXY_SWIFT_DOMAIN": "IMAGO_SWIFT_DOMAIN",
        "IMGPROXY_SWIFT_TENANT": "IMAGO_SWIFT_TENANT", "IMGPROXY_SWIFT_CONNECT_TIMEOUT_SECONDS": "IMAGO_SWIFT_CONNECT_TIMEOUT_SECONDS",
        "IMGPROXY_MAX_SRC_RESOLUTION": "IMAGO_MAX_SRC_RESOLUTION", "IMGPROXY_MAX_SRC_FILE_SIZE": "IMAGO_MAX_SRC_FILE_SIZE",
        "IMGPROXY_MAX_ANIMATION_FRAMES": "IMAGO_MAX_ANIMATION_FRAMES", "IMGPROXY_MAX_REDIRECTS": "IMAGO_MAX_REDIRECTS",
        "IMGPROXY_MAX_RESULT_DIMENSION": "IMAGO_MAX_RESULT_DIMENSION",
        "IMGPROXY_DOWNLOAD_TIMEOUT": "IMAGO_DOWNLOAD_TIMEOUT", "IMGPROXY_TIMEOUT": "IMAGO_REQUEST_TIMEOUT",
        "IMGPROXY_READ_REQUEST_TIMEOUT": "IMAGO_READ_REQUEST_TIMEOUT", "IMGPROXY_KEEP_ALIVE_TIMEOUT": "IMAGO_KEEP_ALIVE_TIMEOUT",
        "IMGPROXY_MAX_CLIENTS": "IMAGO_MAX_CLIENTS", "IMGPROXY_WORKERS": "IMAGO_WORKERS",
        "IMGPROXY_REQUESTS_QUEUE_SIZE": "IMAGO_QUEUE_SIZE", "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "IMAGO_GRACEFUL_STOP_TIMEOUT",
        "IMGPROXY_FREE_MEMORY_INTERVAL": "IMAGO_FREE_MEMORY_INTERVAL",
        "IMGPROXY_QUALITY": "IMAGO_QUALITY", "IMGPROXY_FORMAT_QUALITY": "IMAGO_FORMAT_QUALITY",
        "IMGPROXY_AVIF_SPEED": "IMAGO_AVIF_SPEED", "IMGPROXY_WEBP_EFFORT": "IMAGO_WEBP_EFFORT",
        "IMGPROXY_AUTO_WEBP": "IMAGO_AUTO_WEBP", "IMGPROXY_AUTO_AVIF": "IMAGO_AUTO_AVIF", "IMGPROXY_AUTO_JXL": "IMAGO_AUTO_JXL",
        "IMGPROXY_ENFORCE_WEBP": "IMAGO_ENFORCE_WEBP", "IMGPROXY_ENFORCE_AVIF": "IMAGO_ENFORCE_AVIF", "IMGPROXY_ENFORCE_JXL": "IMAGO_ENFORCE_JXL",
        "IMGPROXY_PREFERRED_FORMATS": "IMAGO_PREFERRED_FORMATS", "IMGPROXY_ALWAYS_RASTERIZE_SVG": "IMAGO_ALWAYS_RASTERIZE_SVG",
        "IMGPROXY_SANITIZE_SVG": "IMAGO_SANITIZE_SVG", "IMGPROXY_ALLOW_ORIGIN": "IMAGO_ALLOW_ORIGIN",
        "IMGPROXY_SKIP_PROCESSING_FORMATS": "IMAGO_SKIP_PROCESSING_FORMATS",
        "IMGPROXY_ENFORCE_THUMBNAIL": "IMAGO_ENFORCE_THUMBNAIL",
        "IMGPROXY_STRIP_METADATA": "IMAGO_STRIP_METADATA", "IMGPROXY_KEEP_COPYRIGHT": "IMAGO_KEEP_COPYRIGHT",
        "IMGPROXY_STRIP_COLOR_PROFILE": "IMAGO_STRIP_COLOR_PROFILE", "IMGPROXY_AUTO_ROTATE": "IMAGO_AUTO_ROTATE",
        "IMGPROXY_RETURN_ATTACHMENT": "IMAGO_RETURN_ATTACHMENT", "IMGPROXY_TTL": "IMAGO_TTL",
        "IMGPROXY_PRESETS": "IMAGO_PRESETS", "IMGPROXY_PRESETS_PATH": "IMAGO_PRESETS_PATH", "IMGPROXY_ONLY_PRESETS": "IMAGO_ONLY_PRESETS",
        "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "IMAGO_ALLOWED_PROCESSING_OPTIONS", "IMGPROXY_ENABLE_CLIENT_HINTS": "IMAGO_ENABLE_CLIENT_HINTS",
        "IMGPROXY_ENABLE_VIDEO_THUMBNAILS": "IMAGO_ENABLE_VIDEO_THUMBNAILS", "IMGPROXY_VIDEO_THUMBNAIL_SECOND": "IMAGO_VIDEO_THUMBNAIL_SECOND",
        "IMGPROXY_VIDEO_THUMBNAIL_KEYFRAMES": "IMAGO_VIDEO_THUMBNAIL_KEYFRAMES",
        "IMGPROXY_SMART_CROP_FACE_DETECTION": "IMAGO_SMART_CROP_FACE_DETECTION", "IMGPROXY_PRESERVE_HDR": "IMAGO_PRESERVE_HDR",
        "IMGPROXY_COLOR_PROFILES_DIR": "IMAGO_COLOR_PROFILES_DIR",
        "IMGPROXY_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP": "IMAGO_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP",
        "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "IMAGO_MAX_ANIMATION_FRAME_RESOLUTION", "IMGPROXY_BASE_URL": "IMAGO_BASE_URL",
        "IMGPROXY_URL_REPLACEMENTS": "IMAGO_URL_REPLACEMENTS", "IMGPROXY_FALLBACK_IMAGE_DATA": "IMAGO_FALLBACK_IMAGE_DATA",
        "IMGPROXY_FALLBACK_IMAGE_PATH": "IMAGO_FALLBACK_IMAGE_PATH", "IMGPROXY_FALLBACK_IMAGE_URL": "IMAGO_FALLBACK_IMAGE_URL",
        "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "IMAGO_FALLBACK_IMAGE_HTTP_CODE", "IMGPROXY_FALLBACK_IMAGE_TTL": "IMAGO_FALLBACK_IMAGE_TTL",
        "IMGPROXY_WATERMARK_DATA": "IMAGO_WATERMARK_DATA", "IMGPROXY_WATERMARK_PATH": "IMAGO_WATERMARK_PATH",
        "IMGPROXY_WATERMARK_URL": "IMAGO_WATERMARK_URL", "IMGPROXY_WATERMARK_OPACITY": "IMAGO_WATERMARK_OPACITY",
        "IMGPROXY_LOG_LEVEL": "IMAGO_LOG_LEVEL", "IMGPROXY_LOG_FORMAT": "IMAGO_LOG_FORMAT",
        "IMGPROXY_PROMETHEUS_BIND": "IMAGO_METRICS_BIND",
        "IMGPROXY_OPEN_TELEMETRY_ENABLE": "IMAGO_OTEL_ENABLE"
    ]

    /// Words in an imgproxy setting's name that make it a security setting: one of them without
    /// an equivalent here stops the start, since running without it would be less safe than the
    /// operator asked.
    static let securityWords = ["KEY", "SALT", "SECRET", "ALLOWED", "DENIED", "TRUSTED", "SIGNATURE", "PASSWORD", "TOKEN", "CERT"]

    /// Settings read outside ``ServerConfiguration`` (by the `imago-server` executable).
    static let executableNames: Set<String> = ["IMAGO_LOG_LEVEL"]

    /// Every `IMAGO_` setting this version knows.
    public static var knownNames: Set<String> { Set(meanings.keys).union(executableNames) }

    /// Reads an environment as the service is configured from it: `IMGPROXY_` settings with an
    /// equivalent become their `IMAGO_` setting (which wins when both are set); others are named
    /// in a warning, or stop the start when they concern security. An unknown `IMAGO_` setting
    /// is named in a warning, or stops the start when it is a letter or two away from a known
    /// one (a misspelling would otherwise run with the default).
    ///
    /// - Returns: the environment to read, and the warnings to log.
    /// - Throws: ``ConfigurationError`` naming the variable.
    public static func migrate(_ environment: [String: String]) throws(ConfigurationError) -> (environment: [String: String], warnings: [String]) {
        var out = environment
        var warnings: [String] = []
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            if name.hasPrefix("IMGPROXY_") || name == "PORT" {
                if name == "PORT" {
                    if environment["IMAGO_BIND"] == nil, environment["IMGPROXY_BIND"] == nil { out["IMAGO_BIND"] = ":" + value }
                    continue
                }
                if let imago = imgproxyEquivalents[name] {
                    if let own = environment[imago] {
                        if own != value { warnings.append("\(name) is ignored: \(imago) is set too, and wins") }
                    } else {
                        out[imago] = value
                    }
                    continue
                }
                let words = name.dropFirst("IMGPROXY_".count).split(separator: "_").map(String.init)
                if words.contains(where: securityWords.contains) {
                    throw ConfigurationError(
                        variable: name,
                        reason: "this imgproxy security setting has no equivalent in Imago; remove it to run without it")
                }
                warnings.append("\(name) has no equivalent in Imago and is ignored")
            } else if name.hasPrefix("IMAGO_"), !knownNames.contains(name) {
                if let near = knownNames.filter({ Self.distance(name, $0) <= 2 }).min() {
                    throw ConfigurationError(variable: name, reason: "not a setting; did you mean \(near)?")
                }
                warnings.append("\(name) is not a setting of this version and is ignored")
            }
        }
        if out["IMAGO_MAX_CLIENTS"] == "0", environment["IMAGO_MAX_CLIENTS"] == nil {
            out["IMAGO_MAX_CLIENTS"] = nil
            warnings.append("IMGPROXY_MAX_CLIENTS=0 (no limit) is not followed: IMAGO_MAX_CLIENTS keeps its cap")
        }
        // imgproxy's level names.
        if let level = out["IMAGO_LOG_LEVEL"], environment["IMAGO_LOG_LEVEL"] == nil {
            out["IMAGO_LOG_LEVEL"] = ["warn": "warning", "fatal": "critical"][level.lowercased()] ?? level
        }
        // imgproxy's "0: no limit", where Imago's settings take a positive number.
        if out["IMAGO_MAX_RESULT_DIMENSION"] == "0", environment["IMAGO_MAX_RESULT_DIMENSION"] == nil { out["IMAGO_MAX_RESULT_DIMENSION"] = nil }
        if out["IMAGO_MAX_SRC_FILE_SIZE"] == "0", environment["IMAGO_MAX_SRC_FILE_SIZE"] == nil {
            out["IMAGO_MAX_SRC_FILE_SIZE"] = nil
            warnings.append("IMGPROXY_MAX_SRC_FILE_SIZE=0 (no limit) is not followed: IMAGO_MAX_SRC_FILE_SIZE keeps its limit")
        }
        return (out, warnings)
    }

    /// The Damerau-Levenshtein distance: insertions, deletions, substitutions and swaps of
    /// neighbours, one each.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }
}
