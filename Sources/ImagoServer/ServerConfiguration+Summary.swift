// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCore

extension ServerConfiguration {
    /// Every variable with its current value, for `--help` and the start-up log (keys, salts and
    /// the secret masked).
    public var summary: [(String, String)] {
        [
            ("IMAGO_BIND", bind), ("IMAGO_KEY", keys == nil ? "(none)" : "(set)"), ("IMAGO_SALT", salts == nil ? "(none)" : "(set)"),
            ("IMAGO_SIGNATURE_SIZE", "\(signatureSize)"), ("IMAGO_SECRET", secret == nil ? "(none)" : "(set)"),
            ("IMAGO_PURGE_SECRET", purgeSecret == nil ? "(none)" : "(set)"),
            ("IMAGO_CACHE_DIR", cacheDirectory ?? "(default)"), ("IMAGO_CACHE_SIZE", "\(cacheSize)"),
            ("IMAGO_SOURCE_TTL", "\(sourceTTL)"), ("IMAGO_SOURCE_TTL_MIN", "\(sourceTTLMin)"), ("IMAGO_SOURCE_TTL_MAX", "\(sourceTTLMax)"),
            ("IMAGO_LOCAL_ROOT", localRoot ?? "(none)"),
            ("IMAGO_FALLBACK_IMAGE_DATA", fallbackImageData == nil ? "(none)" : "(set)"), ("IMAGO_FALLBACK_IMAGE_PATH", "(read at start)"),
            ("IMAGO_FALLBACK_IMAGE_URL", fallbackImageURL ?? "(none)"), ("IMAGO_FALLBACK_IMAGE_HTTP_CODE", "\(fallbackImageHTTPCode)"),
            ("IMAGO_FALLBACK_IMAGE_TTL", fallbackImageTTL.map(String.init) ?? "(IMAGO_TTL)"), ("IMAGO_BASE_URL", baseURL ?? "(none)"),
            ("IMAGO_URL_REPLACEMENTS", urlReplacements.isEmpty ? "(none)" : urlReplacements.map { "\($0.pattern)=\($0.replacement)" }.joined(separator: ";")),
            ("IMAGO_ONLY_PRESETS", "\(onlyPresets)"),
            ("IMAGO_ALLOWED_PROCESSING_OPTIONS", allowedProcessingOptions.isEmpty ? "(any)" : allowedProcessingOptions.sorted().joined(separator: ",")), ("IMAGO_ALLOWED_SOURCES", allowedSources.isEmpty ? "(any)" : allowedSources.joined(separator: ",")),
            ("IMAGO_ALLOW_LOOPBACK_SOURCES", "\(allowLoopbackSources)"), ("IMAGO_ALLOW_PRIVATE_SOURCES", "\(allowPrivateSources)"),
            ("IMAGO_ALLOW_LINK_LOCAL_SOURCES", "\(allowLinkLocalSources)"), ("IMAGO_MAX_SRC_RESOLUTION", "\(maxSourceResolution)"),
            ("IMAGO_MAX_SRC_FILE_SIZE", "\(maxSourceFileSize)"), ("IMAGO_MAX_REDIRECTS", "\(maxRedirects)"),
            ("IMAGO_DOWNLOAD_TIMEOUT", "\(downloadTimeout)"), ("IMAGO_REQUEST_TIMEOUT", "\(requestTimeout)"),
            ("IMAGO_READ_REQUEST_TIMEOUT", "\(readRequestTimeout)"),
            ("IMAGO_KEEP_ALIVE_TIMEOUT", keepAliveTimeout == .zero ? "(off)" : "\(keepAliveTimeout)"), ("IMAGO_MAX_CLIENTS", "\(maxClients)"),
            ("IMAGO_MAX_RESULT_DIMENSION", maxResultDimension.map(String.init) ?? "(none)"),
            ("IMAGO_ALLOW_SECURITY_OPTIONS", "\(allowSecurityOptions)"), ("IMAGO_QUALITY", "\(quality)"),
            ("IMAGO_FORMAT_QUALITY", formatQuality.isEmpty ? "(none)" : formatQuality.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: ",")),
            ("IMAGO_AUTO_WEBP", "\(autoWebP)"), ("IMAGO_AUTO_AVIF", "\(autoAVIF)"), ("IMAGO_AUTO_JXL", "\(autoJXL)"),
            ("IMAGO_ENFORCE_WEBP", "\(enforceWebP)"), ("IMAGO_ENFORCE_AVIF", "\(enforceAVIF)"), ("IMAGO_ENFORCE_JXL", "\(enforceJXL)"),
            ("IMAGO_PREFERRED_FORMATS", preferredFormats.map(\.rawValue).joined(separator: ",")), ("IMAGO_KEEP_SOURCE_FORMAT", "\(keepSourceFormat)"),
            ("IMAGO_MAX_ANIMATION_FRAMES", "\(maxAnimationFrames)"),
            ("IMAGO_MAX_ANIMATION_FRAME_PIXELS", "\(maxAnimationPixels)"),
            ("IMAGO_TTL", "\(ttl)"), ("IMAGO_STRIP_METADATA", "\(stripMetadata)"), ("IMAGO_KEEP_COPYRIGHT", "\(keepCopyright)"),
            ("IMAGO_STRIP_COLOR_PROFILE", "\(stripColorProfile)"), ("IMAGO_AUTO_ROTATE", "\(autoRotate)"),
            ("IMAGO_RETURN_ATTACHMENT", "\(returnAttachment)"), ("IMAGO_PRESETS", presets.isEmpty ? "(none)" : presets.keys.sorted().joined(separator: ",")),
            ("IMAGO_PRESETS_PATH", presetsPath ?? "(none)"),
            ("IMAGO_WORKERS", "\(workers)"), ("IMAGO_WORKER_AFFINITY", workerAffinity.rawValue),
            ("IMAGO_QUEUE_SIZE", queueSize == 0 ? "(no limit)" : "\(queueSize)"),
            ("IMAGO_GRACEFUL_STOP_TIMEOUT", "\(gracefulStopTimeout)"),
            ("IMAGO_MALLOC_ARENAS", mallocArenas == 0 ? "(glibc default)" : "\(mallocArenas)"),
            ("IMAGO_MALLOC_MMAP_THRESHOLD", mallocMmapThreshold == 0 ? "(glibc default)" : "\(mallocMmapThreshold)"),
            ("IMAGO_FREE_MEMORY_INTERVAL", freeMemoryInterval == .zero ? "(off)" : "\(freeMemoryInterval)"),
            ("IMAGO_METRICS_BIND", metricsBind ?? "(beside the images)"), ("IMAGO_LOG_FORMAT", logFormat), ("IMAGO_PLAYGROUND", "\(playground)"),
            ("IMAGO_SERVER_TIMING", "\(serverTiming)"),
            ("IMAGO_OTEL_ENABLE", "\(otelEnabled)"), ("IMAGO_OTEL_ENDPOINT", otelEndpoint), ("IMAGO_OTEL_PROTOCOL", otelProtocol),
            ("IMAGO_OTEL_SERVICE_NAME", otelServiceName)
        ]
    }
}

extension ServerConfiguration {
    /// What each variable means, in ``summary``'s order: for `imago-server --help`.
    public static let meanings: [String: String] = [
        "IMAGO_BIND": "host:port to listen on",
        "IMAGO_KEY": "hex signing keys, comma-separated; none: URLs are not signed",
        "IMAGO_SALT": "hex salts, one per key",
        "IMAGO_SIGNATURE_SIZE": "bytes of the HMAC-SHA256 kept in signatures, 1-32",
        "IMAGO_SECRET": "require Authorization: Bearer <secret>",
        "IMAGO_PURGE_SECRET": "enables POST /purge?url=... with Authorization: Bearer <secret>",
        "IMAGO_CACHE_DIR": "where source bytes are cached ($XDG_CACHE_HOME/imago by default), namespace 'sources'",
        "IMAGO_CACHE_SIZE": "bytes of sources kept on disk; 0 disables the source cache",
        "IMAGO_SOURCE_TTL": "seconds a cached source is fresh when its origin sends no Cache-Control or Expires",
        "IMAGO_SOURCE_TTL_MIN": "the shortest lifetime an origin's Cache-Control may give a cached source",
        "IMAGO_SOURCE_TTL_MAX": "the longest lifetime of a cached source; then it is revalidated",
        "IMAGO_FALLBACK_IMAGE_DATA": "base64 image answered when a source cannot be fetched",
        "IMAGO_FALLBACK_IMAGE_PATH": "file of that image, read at start",
        "IMAGO_FALLBACK_IMAGE_URL": "URL of that image, fetched like a source",
        "IMAGO_FALLBACK_IMAGE_HTTP_CODE": "status of fallback answers (0: the failure's)",
        "IMAGO_FALLBACK_IMAGE_TTL": "Cache-Control max-age of fallback answers",
        "IMAGO_BASE_URL": "prefix for sources that do not start with it",
        "IMAGO_URL_REPLACEMENTS": "pattern=replacement;... applied to sources (* within a segment, ${1} in the replacement)",
        "IMAGO_ONLY_PRESETS": "the path's first segment names presets, and no other options are read",
        "IMAGO_ALLOWED_PROCESSING_OPTIONS": "option names a URL may use (presets are not checked)",
        "IMAGO_LOCAL_ROOT": "folder local:///path sources are read from; none: local sources refused",
        "IMAGO_ALLOWED_SOURCES": "comma-separated URL prefixes, * matching within a host or path segment",
        "IMAGO_ALLOW_LOOPBACK_SOURCES": "let sources resolve to 127.0.0.0/8 and ::1",
        "IMAGO_ALLOW_PRIVATE_SOURCES": "let sources resolve to RFC 1918, 100.64/10 and fc00::/7 addresses",
        "IMAGO_ALLOW_LINK_LOCAL_SOURCES": "let sources resolve to 169.254/16 and fe80::/10 (cloud metadata)",
        "IMAGO_MAX_SRC_RESOLUTION": "megapixels of a source",
        "IMAGO_MAX_SRC_FILE_SIZE": "bytes of a source (Content-Length and streamed length)",
        "IMAGO_MAX_REDIRECTS": "redirects followed per source",
        "IMAGO_DOWNLOAD_TIMEOUT": "seconds for a source download",
        "IMAGO_REQUEST_TIMEOUT": "seconds for a whole request (503 past it)",
        "IMAGO_READ_REQUEST_TIMEOUT": "seconds for a request's head to arrive, from the connection's opening or last answer",
        "IMAGO_KEEP_ALIVE_TIMEOUT": "seconds an idle keep-alive connection waits for its next request; 0: no keep-alive",
        "IMAGO_MAX_CLIENTS": "connections open at once (at most 3/4 of the open-file limit)",
        "IMAGO_MAX_RESULT_DIMENSION": "pixels on a result's longer side",
        "IMAGO_ALLOW_SECURITY_OPTIONS": "let URLs override the source limits",
        "IMAGO_QUALITY": "lossy quality, 1-100",
        "IMAGO_FORMAT_QUALITY": "quality per format, e.g. webp=79,avif=63",
        "IMAGO_AUTO_WEBP": "answer WebP to clients whose Accept names image/webp",
        "IMAGO_AUTO_JXL": "answer JPEG XL to clients whose Accept names image/jxl (stills)",
        "IMAGO_ENFORCE_WEBP": "as IMAGO_AUTO_WEBP, even over a format the URL names",
        "IMAGO_ENFORCE_AVIF": "as IMAGO_AUTO_AVIF, even over a format the URL names",
        "IMAGO_ENFORCE_JXL": "as IMAGO_AUTO_JXL, even over a format the URL names",
        "IMAGO_PREFERRED_FORMATS": "formats a result is written in when the URL names none and the source's is not among them",
        "IMAGO_KEEP_SOURCE_FORMAT": "without a format in the URL, keep the source's whenever it can be written",
        "IMAGO_AUTO_AVIF": "answer AVIF to clients whose Accept names image/avif",
        "IMAGO_MAX_ANIMATION_FRAMES": "frames of an animated source",
        "IMAGO_MAX_ANIMATION_FRAME_PIXELS": "megapixels summed over an animation's frames",
        "IMAGO_TTL": "Cache-Control max-age of results, seconds",
        "IMAGO_STRIP_METADATA": "drop EXIF from results",
        "IMAGO_KEEP_COPYRIGHT": "keep EXIF Copyright and Artist when stripping",
        "IMAGO_STRIP_COLOR_PROFILE": "convert to sRGB and drop ICC profiles",
        "IMAGO_AUTO_ROTATE": "apply EXIF orientation",
        "IMAGO_RETURN_ATTACHMENT": "Content-Disposition: attachment",
        "IMAGO_PRESETS": "name=opt/opt,... ('default' applies to every URL); checked at start",
        "IMAGO_PRESETS_PATH": "a file of presets, one name=opt/opt per line",
        "IMAGO_WORKERS": "decodes, transforms and encodes at once",
        "IMAGO_WORKER_AFFINITY": "auto: a CPU per worker when they match the CPUs allowed; pinned: always; none: never",
        "IMAGO_QUEUE_SIZE": "requests waiting beyond the workers before 429 (0: no limit)",
        "IMAGO_GRACEFUL_STOP_TIMEOUT": "seconds to finish in-flight requests on SIGTERM/SIGINT",
        "IMAGO_MALLOC_ARENAS": "glibc malloc arenas (M_ARENA_MAX); 0: glibc's default",
        "IMAGO_MALLOC_MMAP_THRESHOLD": "bytes from which allocations are mapped apart and unmapped when freed; 0: glibc's default",
        "IMAGO_FREE_MEMORY_INTERVAL": "seconds between malloc_trim calls (also when idle); 0: never",
        "IMAGO_METRICS_BIND": "host:port serving /metrics on its own, instead of beside the images",
        "IMAGO_LOG_FORMAT": "text or json (one object per line)",
        "IMAGO_PLAYGROUND": "serve the playground page at /",
        "IMAGO_SERVER_TIMING": "send Server-Timing with each stage's duration",
        "IMAGO_OTEL_ENABLE": "export spans of each request's stages over OTLP/HTTP",
        "IMAGO_OTEL_ENDPOINT": "the OTLP/HTTP collector's base URL",
        "IMAGO_OTEL_PROTOCOL": "http/protobuf or http/json",
        "IMAGO_OTEL_SERVICE_NAME": "the service.name spans carry"
    ]
}
