// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoLoading

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where sources come from: the web (with its timeout), a local folder, object stores, the
/// fallback image answered when a source cannot be fetched, and frames of videos.
/// ``ServerConfiguration/sources``; the source loaders take it.
public struct SourceSettings: Sendable {
    /// `IMAGO_FALLBACK_IMAGE_DATA` (base64) or `IMAGO_FALLBACK_IMAGE_PATH` (a file, read at
    /// start): the image answered, processed with the request's options, when a source cannot
    /// be fetched. Default none.
    public var fallbackImageData: Data?
    /// `IMAGO_FALLBACK_IMAGE_URL`: a fallback image fetched (and cached) like a source. Default none.
    public var fallbackImageURL: String?
    /// `IMAGO_FALLBACK_IMAGE_HTTP_CODE`: the status of an answer made from the fallback image;
    /// 0 keeps the failure's. Default 200 (imgproxy's).
    public var fallbackImageHTTPCode = 200
    /// `IMAGO_FALLBACK_IMAGE_TTL`: `Cache-Control: max-age` of such answers. Default
    /// ``HTTPSettings/ttl``'s.
    public var fallbackImageTTL: Int?
    /// `IMAGO_BASE_URL`: put before every source that does not start with it, so URLs may name
    /// sources relative to it (imgproxy's). Default none.
    public var baseURL: String?
    /// `IMAGO_URL_REPLACEMENTS`: `pattern=replacement;…` applied to sources, in order, before
    /// ``baseURL``; `*` in a pattern matches within a path segment and `${1}`… in the
    /// replacement brings it back (imgproxy's). Default none.
    public var urlReplacements: [(pattern: String, replacement: String)] = []
    /// `IMAGO_ENABLE_VIDEO_THUMBNAILS`: a video source (MP4, MOV, WebM, Matroska) is answered with
    /// a frame of it, processed as an image (FFmpeg, loaded on first use). Default `false`, as
    /// imgproxy Pro's.
    public var enableVideoThumbnails = false
    /// `IMAGO_VIDEO_THUMBNAIL_SECOND`: the frame's time unless `vts` says. Default 1.
    public var videoThumbnailSecond: Double = 1
    /// `IMAGO_VIDEO_THUMBNAIL_KEYFRAMES`: the last keyframe at or before it, unless `vtk` says.
    /// Default `false`.
    public var videoThumbnailKeyframes = false
    /// Whether a fallback image is configured.
    package var hasFallbackImage: Bool { fallbackImageData != nil || fallbackImageURL != nil }
    /// `IMAGO_LOCAL_ROOT`: the folder `local:///path` sources are read from. Default: none
    /// (local sources refused).
    public var localRoot: String?
    /// `IMAGO_USE_S3` and the `IMAGO_S3_*` settings: `s3://BUCKET/KEY` sources, signed with
    /// the AWS credentials of the environment (`AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`,
    /// or the profile's files). Default `nil`: s3 sources refused (404), as imgproxy does.
    public var s3: S3Settings?
    /// `IMAGO_USE_GCS` with `IMAGO_GCS_ENDPOINT`, `IMAGO_GCS_HMAC_ACCESS_ID` and
    /// `IMAGO_GCS_HMAC_SECRET`: `gs://BUCKET/KEY` sources through Google Cloud Storage's
    /// S3-compatible XML API, signed with an HMAC key. Default `nil`: refused (404).
    public var gcs: S3Settings?
    /// `IMAGO_USE_ABS` with `IMAGO_ABS_NAME`, `IMAGO_ABS_KEY` and `IMAGO_ABS_ENDPOINT`:
    /// `abs://CONTAINER/BLOB` sources from Azure Blob Storage. Default `nil`: refused (404).
    public var abs: AzureBlobSettings?
    /// `IMAGO_USE_SWIFT` and the `IMAGO_SWIFT_*` settings: `swift://CONTAINER/OBJECT` sources
    /// from OpenStack Swift (tempauth, Keystone v2 or v3). Default `nil`: refused (404).
    public var swift: SwiftStorageSettings?
    /// `IMAGO_SWIFT_CONNECT_TIMEOUT_SECONDS`: bounds a connection to Swift and its sign-in.
    /// Default 10 s, imgproxy's.
    public var swiftConnectTimeout: Duration = .seconds(10)
    /// An Azure storage account: its name, its base64 key (`nil`: unsigned requests, for public
    /// containers) and the Blob endpoint (`nil`: `https://NAME.blob.core.windows.net`).
    public struct AzureBlobSettings: Sendable, Hashable {
        /// `IMAGO_ABS_NAME`.
        public var account: String
        /// `IMAGO_ABS_KEY`.
        public var key: String?
        /// `IMAGO_ABS_ENDPOINT`.
        public var endpoint: URL?

        /// Settings from their parts; `key` and `endpoint` default to `nil`.
        public init(account: String, key: String? = nil, endpoint: URL? = nil) {
            self.account = account
            self.key = key
            self.endpoint = endpoint
        }
    }
    /// `IMAGO_DOWNLOAD_TIMEOUT`: seconds for a source download. Default 5.
    public var downloadTimeout: Duration = .seconds(5)
    /// `IMAGO_USER_AGENT`: the `User-Agent` sources are asked with (imgproxy's
    /// `IMGPROXY_USER_AGENT`). Default `imago-server/0.1`.
    public var userAgent = "imago-server/" + ServiceHeaders.release
    /// `IMAGO_COOKIE_PASSTHROUGH`: send a client's cookies to its source when they belong to the
    /// source's host (imgproxy's `IMGPROXY_COOKIE_PASSTHROUGH`). Such a request's source and
    /// results are fetched and made for it alone, never cached. Default `false`.
    public var cookiePassthrough = false
    /// `IMAGO_COOKIE_BASE_URL`: the URL whose host (and path) a client's cookies belong to;
    /// `nil`: the host the client asked, path `/`. Default `nil`.
    public var cookieBaseURL: String?
    /// `IMAGO_COOKIE_PASSTHROUGH_ALL`: with ``cookiePassthrough``, send a client's cookies to
    /// every `http(s)` source. Default `false`.
    public var cookiePassthroughAll = false
    /// `IMAGO_COOKIE_ANSWERS_PRIVATE`: an answer made from a source fetched with a client's
    /// cookies says `Cache-Control: private` (the origin's `Cache-Control` is not passed on), so
    /// that no shared cache keeps one client's image for another. imgproxy says `public`.
    /// Default `true`.
    public var cookieAnswersPrivate = true

    /// The defaults.
    public init() {}
}
