// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ServerConfiguration {
    /// Where sources come from, what they may be, and how long they are kept.
    static let sourceSettings: [Setting<ServerConfiguration>] =
        sourceBasics
        + imageSettings(
            "IMAGO_FALLBACK_IMAGE", imgproxy: "IMGPROXY_FALLBACK_IMAGE", data: \.sources.fallbackImageData, url: \.sources.fallbackImageURL,
            meaning: "base64 image answered when a source cannot be fetched or is not an image") + fallbackAndVideo

    private static let sourceBasics: [Setting<ServerConfiguration>] = [
        .text(
            "IMAGO_CACHE_DIR", \.cache.cacheDirectory, none: "(default)", documentedDefault: "$XDG_CACHE_HOME/imago",
            "where source bytes are cached ($XDG_CACHE_HOME/imago by default), namespace 'sources'"),
        .int("IMAGO_CACHE_SIZE", \.cache.cacheSize, 0...Int.max, "bytes of sources kept on disk; 0 disables the source cache"),
        .int(
            "IMAGO_RESULT_CACHE_SIZE", \.cache.resultCacheSize, 0...Int.max,
            "bytes of encoded results kept on disk (namespace 'results'); 0 disables the result cache"),
        .int("IMAGO_DECODE_CACHE_SIZE", \.cache.decodeCacheSize, 0...Int.max, "bytes of decoded pixels of hot sources kept in memory; 0 disables it"),
        .seconds("IMAGO_SOURCE_TTL", \.cache.sourceTTL, zero: true, "seconds a cached source is fresh when its origin sends no Cache-Control or Expires"),
        .seconds("IMAGO_SOURCE_TTL_MIN", \.cache.sourceTTLMin, zero: true, "the shortest lifetime an origin's Cache-Control may give a cached source"),
        .seconds("IMAGO_SOURCE_TTL_MAX", \.cache.sourceTTLMax, zero: true, "the longest lifetime of a cached source; then it is revalidated"),
        .text(
            "IMAGO_LOCAL_ROOT", \.sources.localRoot, imgproxy: "IMGPROXY_LOCAL_FILESYSTEM_ROOT",
            "folder local:///path sources are read from; none: local sources refused"),
        Setting(
            "IMAGO_ALLOWED_SOURCES", imgproxy: ["IMGPROXY_ALLOWED_SOURCES"],
            meaning: "comma-separated URL prefixes, * matching within a host or path segment"
        ) { env, c throws(ConfigurationError) in
            c.security.allowedSources = env.list("IMAGO_ALLOWED_SOURCES") ?? c.security.allowedSources
        } show: {
            $0.security.allowedSources.isEmpty ? "any" : $0.security.allowedSources.joined(separator: ",")
        },
        .bool(
            "IMAGO_ALLOW_LOOPBACK_SOURCES", \.security.allowLoopbackSources, imgproxy: "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES",
            "let sources resolve to 127.0.0.0/8 and ::1"),
        .bool(
            "IMAGO_ALLOW_PRIVATE_SOURCES", \.security.allowPrivateSources, imgproxy: "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES",
            "let sources resolve to RFC 1918, 100.64/10 and fc00::/7 addresses"),
        .bool(
            "IMAGO_ALLOW_LINK_LOCAL_SOURCES", \.security.allowLinkLocalSources, imgproxy: "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES",
            "let sources resolve to 169.254/16 and fe80::/10 (cloud metadata)"),
        .int(
            "IMAGO_MAX_SRC_FILE_SIZE", \.security.maxSourceFileSize, 1...Int.max, imgproxy: "IMGPROXY_MAX_SRC_FILE_SIZE",
            "bytes of a source (Content-Length and streamed length)"),
        .int("IMAGO_MAX_REDIRECTS", \.security.maxRedirects, 0...100, imgproxy: "IMGPROXY_MAX_REDIRECTS", "redirects followed per source"),
        .seconds("IMAGO_DOWNLOAD_TIMEOUT", \.sources.downloadTimeout, imgproxy: "IMGPROXY_DOWNLOAD_TIMEOUT", "seconds for a source download"),
        Setting("IMAGO_USER_AGENT", imgproxy: ["IMGPROXY_USER_AGENT"], meaning: "User-Agent sources are asked with") {
            env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_USER_AGENT"] else { return }
            // imgproxy's %current_version is its own version: here, this one's.
            let agent = v.replacingOccurrences(of: "%current_version", with: ServiceHeaders.release)
            guard !agent.isEmpty, agent.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
                throw ConfigurationError(variable: "IMAGO_USER_AGENT", reason: "'\(v)' is not a header value (printable ASCII)")
            }
            c.sources.userAgent = agent
        } show: {
            $0.sources.userAgent
        },
        .text("IMAGO_BASE_URL", \.sources.baseURL, imgproxy: "IMGPROXY_BASE_URL", "prefix for sources that do not start with it"),
        .bool(
            "IMAGO_COOKIE_PASSTHROUGH", \.sources.cookiePassthrough, imgproxy: "IMGPROXY_COOKIE_PASSTHROUGH",
            "send the client's cookies to a source on the host they belong to; such answers are not cached"),
        Setting(
            "IMAGO_COOKIE_BASE_URL", imgproxy: ["IMGPROXY_COOKIE_BASE_URL"],
            meaning: "URL whose host and path the client's cookies belong to (default: the host the client asked)"
        ) { env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_COOKIE_BASE_URL"], !v.isEmpty else { return }
            guard let url = URL(string: v), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false
            else {
                throw ConfigurationError(variable: "IMAGO_COOKIE_BASE_URL", reason: "'\(v)' is not an http or https URL with a host")
            }
            c.sources.cookieBaseURL = v
        } show: {
            $0.sources.cookieBaseURL ?? "none"
        },
        .bool(
            "IMAGO_COOKIE_PASSTHROUGH_ALL", \.sources.cookiePassthroughAll, imgproxy: "IMGPROXY_COOKIE_PASSTHROUGH_ALL",
            "with IMAGO_COOKIE_PASSTHROUGH, send the client's cookies to every source"),
        .bool(
            "IMAGO_COOKIE_ANSWERS_PRIVATE", \.sources.cookieAnswersPrivate,
            "answers made with a client's cookies are Cache-Control: private (imgproxy: public), kept by no shared cache"),
        Setting(
            "IMAGO_URL_REPLACEMENTS", imgproxy: ["IMGPROXY_URL_REPLACEMENTS"],
            meaning: "pattern=replacement;... applied to sources (* within a segment, ${1} in the replacement)"
        ) { env, c throws(ConfigurationError) in
            guard let v = env["IMAGO_URL_REPLACEMENTS"] else { return }
            c.sources.urlReplacements = []
            for entry in v.split(separator: ";") {
                let parts = entry.split(separator: "=", maxSplits: 1).map { PathName.trimmed($0) }
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw ConfigurationError(variable: "IMAGO_URL_REPLACEMENTS", reason: "'\(entry)' is not pattern=replacement")
                }
                c.sources.urlReplacements.append((parts[0], parts[1]))
            }
        } show: { c in
            c.sources.urlReplacements.isEmpty ? "none" : c.sources.urlReplacements.map { "\($0.pattern)=\($0.replacement)" }.joined(separator: ";")
        }
    ]

    private static let fallbackAndVideo: [Setting<ServerConfiguration>] = [
        Setting("IMAGO_FALLBACK_IMAGE_HTTP_CODE", imgproxy: ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE"], meaning: "status of fallback answers (0: the failure's)") {
            env, c throws(ConfigurationError) in
            guard let code = try env.int("IMAGO_FALLBACK_IMAGE_HTTP_CODE", in: 0...599) else { return }
            // A status that carries the image: 0 (the failure's), or 200-599 but 204 and 304.
            guard code == 0 || (code >= 200 && code != 204 && code != 304) else {
                throw ConfigurationError(variable: "IMAGO_FALLBACK_IMAGE_HTTP_CODE", reason: "'\(code)' is not 0 or a status with a body")
            }
            c.sources.fallbackImageHTTPCode = code
        } show: {
            "\($0.sources.fallbackImageHTTPCode)"
        },
        Setting("IMAGO_FALLBACK_IMAGE_TTL", imgproxy: ["IMGPROXY_FALLBACK_IMAGE_TTL"], meaning: "Cache-Control max-age of fallback answers") {
            env, c throws(ConfigurationError) in
            // 0: unset, as imgproxy reads it (the answer gets IMAGO_TTL).
            c.sources.fallbackImageTTL = try env.int("IMAGO_FALLBACK_IMAGE_TTL", in: 0...Int.max).flatMap { $0 > 0 ? $0 : nil } ?? c.sources.fallbackImageTTL
        } show: {
            $0.sources.fallbackImageTTL.map(String.init) ?? "IMAGO_TTL"
        },
        .bool(
            "IMAGO_ENABLE_VIDEO_THUMBNAILS", \.sources.enableVideoThumbnails, imgproxy: "IMGPROXY_ENABLE_VIDEO_THUMBNAILS",
            "answer a video source (MP4, MOV, WebM, Matroska) with a frame of it, processed as an image"),
        .number(
            "IMAGO_VIDEO_THUMBNAIL_SECOND", \.sources.videoThumbnailSecond, imgproxy: "IMGPROXY_VIDEO_THUMBNAIL_SECOND",
            "the video frame's time in seconds unless the URL's vts says"),
        .bool(
            "IMAGO_VIDEO_THUMBNAIL_KEYFRAMES", \.sources.videoThumbnailKeyframes, imgproxy: "IMGPROXY_VIDEO_THUMBNAIL_KEYFRAMES",
            "the last keyframe at or before that time instead of the exact frame, unless vtk says")
    ]
}
