// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore
public import ImagoLoading
import ImagoServiceURL
public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Everything the service can be told, each with its environment variable (imgproxy's names
/// with `IMAGO_` for `IMGPROXY_`) and its default. ``init(environment:)`` reads them through the
/// settings' descriptors (`Settings/Settings+*.swift`), which also list them for `--help`, the
/// start-up log and the documentation.
///
/// What concerns the whole process (glibc's malloc, the workers' CPUs, returning freed memory,
/// the open-file limit) is not here: the `imago-server` executable reads those settings
/// (`IMAGO_MALLOC_ARENAS`, `IMAGO_MALLOC_MMAP_THRESHOLD`, `IMAGO_WORKER_AFFINITY`,
/// `IMAGO_FREE_MEMORY_INTERVAL`) and applies them itself. A process that embeds the service
/// decides those for itself: it may cap glibc's arenas (`GLIBC_TUNABLES=glibc.malloc.arena_max=2`
/// before it starts), pin the workers through `ImageService`'s `laneHooks`, and call
/// `ImageService.removeExpiredResults()` and `malloc_trim` when idle.
public struct ServerConfiguration: Sendable {
    /// `IMAGO_BIND`: `host:port` to listen on. Default `127.0.0.1:8080`.
    public var bind: String = "127.0.0.1:8080"
    /// `IMAGO_KEY`: hex keys, comma-separated. Without one, any signature segment is accepted.
    public var keys: String?
    /// `IMAGO_SALT`: hex salts, one per key.
    public var salts: String?
    /// `IMAGO_SIGNATURE_SIZE`: bytes of the HMAC kept, 1–32. Default 32.
    public var signatureSize: Int = 32
    /// `IMAGO_SECRET`: when set, requests need `Authorization: Bearer <secret>`.
    public var secret: String?
    /// `IMAGO_PURGE_SECRET`: when set, `POST /purge?url=…` with `Authorization: Bearer <it>`
    /// forgets a cached source (``ImageService/purge(source:)``). Default none: no purge route.
    public var purgeSecret: String?
    /// `IMAGO_CACHE_DIR`: where source bytes are cached. Default: the user's cache folder
    /// (`$XDG_CACHE_HOME/imago`), namespace `sources`.
    public var cacheDirectory: String?
    /// `IMAGO_CACHE_SIZE`: bytes of sources kept on disk; past it the least recently used go
    /// until half remains. Default 1 GiB; 0 disables the source cache.
    public var cacheSize: Int = 1 << 30
    /// `IMAGO_RESULT_CACHE_SIZE`: bytes of encoded results kept on disk (namespace `results`
    /// beside the sources), so a URL asked for again is read, not rendered again. A result is
    /// keyed by its source's bytes (their digest), the options and the output, never the
    /// signature, and is as fresh as its source; it is answered with the same `ETag` and 304s,
    /// and purged with its source. Default 1 GiB; 0 disables it.
    public var resultCacheSize: Int = 1 << 30
    /// `IMAGO_DECODE_CACHE_SIZE`: bytes of decoded pixels kept in memory, so a new size of a
    /// hot source costs a resize, not a decode. Default 16 MiB (enough for the small decodes
    /// of the hottest sources; on a realistic trace more bought 1% of CPU for 40 MB of memory,
    /// docs/benchmarks.md); 0 disables it.
    public var decodeCacheSize: Int = 16 << 20
    /// Whether a conversion that leaves the pixels alone flows from decoder to encoder in rows
    /// (see ``ImageService``). Tests turn it off to compare with the whole-image path.
    var streamsConversions = true
    /// `IMAGO_SOURCE_TTL`: seconds a cached source is fresh when its origin sends no
    /// `Cache-Control` lifetime or `Expires`. Default 3600. Past its lifetime a source is
    /// revalidated (`If-None-Match`, `If-Modified-Since`) before use and kept on 304; `no-store`
    /// sources are not kept, `no-cache` ones are revalidated every time.
    public var sourceTTL: Duration = .seconds(3600)
    /// `IMAGO_SOURCE_TTL_MIN`: the shortest lifetime an origin's headers may give (not
    /// `no-cache`). Default 0.
    public var sourceTTLMin: Duration = .zero
    /// `IMAGO_SOURCE_TTL_MAX`: the longest lifetime any source gets. Default 30 days.
    public var sourceTTLMax: Duration = .seconds(30 * 86_400)
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
    /// ``ttl``'s.
    public var fallbackImageTTL: Int?
    /// `IMAGO_BASE_URL`: put before every source that does not start with it, so URLs may name
    /// sources relative to it (imgproxy's). Default none.
    public var baseURL: String?
    /// `IMAGO_URL_REPLACEMENTS`: `pattern=replacement;…` applied to sources, in order, before
    /// ``baseURL``; `*` in a pattern matches within a path segment and `${1}`… in the
    /// replacement brings it back (imgproxy's). Default none.
    public var urlReplacements: [(pattern: String, replacement: String)] = []
    /// `IMAGO_ONLY_PRESETS`: the path's first segment is a list of preset names and nothing else
    /// is read as options (imgproxy's). Default `false`.
    public var onlyPresets = false
    /// `IMAGO_ALLOWED_PROCESSING_OPTIONS`: the option names (as written) a URL may use; options
    /// inside presets are not checked. Default: any.
    public var allowedProcessingOptions: Set<String> = []

    /// `IMAGO_ENABLE_CLIENT_HINTS`: take `Sec-CH-DPR`/`DPR` as the default `dpr` and
    /// `Sec-CH-Width`/`Width` (else `Viewport-Width`) as the default width, before presets and
    /// the URL's options; answers then carry `Accept-CH` and vary by them. Default `false`.
    public var enableClientHints = false
    /// `IMAGO_MAX_ANIMATION_FRAME_RESOLUTION`: megapixels of one frame of an animation kept
    /// animated; when set, it stands for `IMAGO_MAX_SRC_RESOLUTION` for animations (imgproxy's).
    /// Default none.
    public var maxAnimationFrameResolution: Double?

    /// `IMAGO_WATERMARK_DATA` (base64) or `IMAGO_WATERMARK_PATH` (a file, read at start): the
    /// image the `watermark` option draws over results. Checked at start. Default none.
    public var watermarkImageData: Data?
    /// `IMAGO_WATERMARK_URL`: a watermark fetched (and cached, and revalidated) like a source,
    /// through the same policy. Default none.
    public var watermarkImageURL: String?
    /// `IMAGO_WATERMARK_OPACITY`: multiplies every request's watermark opacity; above 0, at
    /// most 1. Default 1.
    public var watermarkOpacity: Double = 1

    /// `IMAGO_ALLOW_ORIGIN`: sent as `Access-Control-Allow-Origin` (with
    /// `Access-Control-Allow-Methods: GET, OPTIONS`) on every answer. Default none.
    public var allowOrigin: String?
    /// `IMAGO_HEAD_AS_GET`: a `HEAD` of an image URL is answered with the headers its `GET`
    /// would have (content type, length, `ETag`, caching), its render shared with `GET`s and a
    /// stored result sent without one. Default `true`. `false` answers every `HEAD` as imgproxy
    /// does: a bare `200 text/plain`, no secret asked, nothing fetched or rendered.
    public var headAsGet = true
    /// `IMAGO_ENABLE_VIDEO_THUMBNAILS`: a video source (MP4, MOV, WebM, Matroska) is answered with
    /// a frame of it, processed as an image (FFmpeg, loaded on first use). Default `false`, as
    /// imgproxy Pro's.
    public var enableVideoThumbnails = false
    /// `IMAGO_VIDEO_THUMBNAIL_SECOND`: the frame's time unless `vts` says. Default 1.
    public var videoThumbnailSecond: Double = 1
    /// `IMAGO_VIDEO_THUMBNAIL_KEYFRAMES`: the last keyframe at or before it, unless `vtk` says.
    /// Default `false`.
    public var videoThumbnailKeyframes = false

    /// `IMAGO_COLOR_PROFILES_DIR`: where `color_profile` finds the profiles it names by file.
    /// Default `/usr/share/color/icc`, as imgproxy Pro's.
    public var colorProfilesDirectory = "/usr/share/color/icc"
    /// `IMAGO_PRESERVE_HDR`: an Ultra HDR JPEG answered as JPEG keeps its gain map, brought to
    /// the result's geometry (crop, resize, turns, padding), unless `preserve_hdr` says. Default
    /// `true`; imgproxy's is `false` (its setting keeps high bit depths, which Imago's 8-bit
    /// pipeline does not have).
    public var preserveHDR = true
    /// `IMAGO_SMART_CROP_FACE_DETECTION`: smart gravity (`g:sm`) looks for faces first
    /// (OpenCV, loaded on first use) and keeps them; entropy decides where there are none.
    /// Default `true`; imgproxy Pro's is `false`.
    public var smartCropFaceDetection = true
    /// `IMAGO_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP`: `g:obj` with no object of its classes
    /// found crops by smart gravity; `false`: from the centre. Default `true`, as imgproxy Pro's.
    public var objectDetectionFallbackToSmartCrop = true
    /// `IMAGO_FACE_DETECTION_CASCADE`: the OpenCV cascade faces are found with. Default Debian's
    /// `opencv-data` frontal-face cascade.
    public var faceDetectionCascade = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    /// `IMAGO_FACE_DETECTION_TIME_LIMIT` (seconds of CPU time): a face search stops after this
    /// much with what it found, the smallest faces missed first. Default 1.
    public var faceDetectionTimeLimit: Duration = .seconds(1)

    /// Whether a watermark image is configured.
    public var hasWatermark: Bool { watermarkImageData != nil || watermarkImageURL != nil }

    /// Whether a fallback image is configured.
    public var hasFallbackImage: Bool { fallbackImageData != nil || fallbackImageURL != nil }

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

    /// `IMAGO_RESULT_STORAGE`: results (under `PREFIX/results`) and downloaded `http(s)` sources
    /// (under `PREFIX/sources`) shared by every instance, in an S3 bucket or a Swift container
    /// (`s3://BUCKET/PREFIX`, `swift://CONTAINER/PREFIX`), behind the local caches. Default
    /// `nil`: each instance keeps its own.
    public var resultStorage: ResultStorage?

    /// Where shared results live: the store and the prefix of their names.
    public struct ResultStorage: Sendable, Hashable {
        /// The bucket or container, with the store's settings.
        public var store: ObjectStoreResults.Store
        /// What the results' names start with.
        public var prefix: String

        /// A location from its parts.
        public init(store: ObjectStoreResults.Store, prefix: String) {
            self.store = store
            self.prefix = prefix
        }
    }

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
    /// `IMAGO_ALLOWED_SOURCES`: comma-separated URL prefixes, `*` matching any run of characters
    /// within one host or path segment; checked on every redirect too. Default: any.
    public var allowedSources: [String] = []
    /// `IMAGO_ALLOW_LOOPBACK_SOURCES`. Default `false`.
    public var allowLoopbackSources = false
    /// `IMAGO_ALLOW_PRIVATE_SOURCES`: RFC 1918, carrier-grade NAT, unique-local. Default `false`.
    public var allowPrivateSources = false
    /// `IMAGO_ALLOW_LINK_LOCAL_SOURCES`: 169.254/16 (cloud metadata), fe80::/10. Default `false`.
    public var allowLinkLocalSources = false
    /// `IMAGO_MAX_SRC_RESOLUTION`: megapixels of a source. Default 50.
    public var maxSourceResolution: Double = 50
    /// `IMAGO_MAX_SRC_FILE_SIZE`: bytes of a source, checked against `Content-Length` and the
    /// streamed length. Default 64 MiB.
    public var maxSourceFileSize: Int = 64 << 20
    /// `IMAGO_MAX_REDIRECTS`. Default 10.
    public var maxRedirects: Int = 10
    /// `IMAGO_DOWNLOAD_TIMEOUT`: seconds for a source download. Default 5.
    public var downloadTimeout: Duration = .seconds(5)
    /// `IMAGO_REQUEST_TIMEOUT`: seconds for a whole request, queueing included. Default 10.
    public var requestTimeout: Duration = .seconds(10)
    /// `IMAGO_READ_REQUEST_TIMEOUT`: seconds from a connection's opening (or the end of its last
    /// answer) to the end of a request's head; a client slower than that is disconnected.
    /// Default 10 (imgproxy's).
    public var readRequestTimeout: Duration = .seconds(10)
    /// `IMAGO_KEEP_ALIVE_TIMEOUT`: seconds an idle keep-alive connection is kept for its next
    /// request; 0 closes each connection after its answer. Default 10 (imgproxy's).
    public var keepAliveTimeout: Duration = .seconds(10)
    /// `IMAGO_MAX_CLIENTS`: connections open at once. Default 2048 (imgproxy's), and never more
    /// than three quarters of the process's open-file limit, so that sources, the cache and the
    /// logs always have descriptors; when the table is nearly full, new connections close the
    /// ones that have waited longest for a request (see ``ConnectionLimits``).
    public var maxClients: Int = 2048
    /// `IMAGO_MAX_RESULT_DIMENSION`: pixels on a result's longer side. Default: no limit.
    public var maxResultDimension: Int?
    /// `IMAGO_ALLOW_SECURITY_OPTIONS`: let URLs override the source limits. Default `false`.
    public var allowSecurityOptions = false
    /// `IMAGO_QUALITY`: lossy quality, 1–100. Default 80.
    public var quality: Int = 80
    /// `IMAGO_FORMAT_QUALITY`: per format, `webp=79,avif=63`, over ``quality``; what the setting
    /// names replaces these defaults, the rest stay. Default imgproxy's: WebP 79, AVIF 63,
    /// JPEG XL 77, which give about the visual quality of a JPEG at ``quality`` 80.
    public var formatQuality: [ImageFormat: Int] = [.webp: 79, .avif: 63, .jxl: 77]
    /// `IMAGO_QUALITY_MAPPING`: `none` or `visual` (see ``QualityMapping``). Default `none`,
    /// imgproxy's.
    public var qualityMapping = QualityMapping.none
    /// `IMAGO_AUTO_WEBP`: answer with WebP when the client's `Accept` takes it and the URL names
    /// no format. Default `false`.
    public var autoWebP = false
    /// `IMAGO_AUTO_AVIF`: the same for AVIF, preferred over WebP. Default `false`.
    public var autoAVIF = false
    /// `IMAGO_WEBP_EFFORT`: libwebp's method, 0 (fastest) to 6 (smallest), for lossy and
    /// lossless WebP results. Default 4 (imgproxy's and libwebp's).
    public var webpEffort = 4
    /// `IMAGO_AVIF_SPEED`: libavif's speed, 2 (slowest, smallest) to 10, for AVIF made while the
    /// client waits: a URL that names AVIF, or negotiated AVIF with ``avifLater`` off. Default 8
    /// (imgproxy's).
    public var avifSpeed = 8
    /// `IMAGO_AVIF_LATER`: AVIF negotiated by `Accept` (``autoAVIF``, ``enforceAVIF``) and not
    /// made yet is made in the background, at ``avifLaterSpeed`` and low priority, while the
    /// client gets a fast answer at once (see ``avifLaterFirst``), with a `max-age` of
    /// ``avifLaterTTL`` and `stale-while-revalidate`; once the AVIF is in the result cache it is
    /// the answer. The background encodes are bounded (one fewer than the workers, at least one);
    /// past that, a request gets the fast answer and asks again later. Default `true`; `false`
    /// makes AVIF while the client waits, as imgproxy does.
    public var avifLater = true
    /// What a client that takes AVIF gets while ``avifLater`` makes its AVIF.
    public enum AVIFLaterFirst: String, Sendable, CaseIterable {
        /// An AVIF at ``ServerConfiguration/fastAVIFSpeed`` (libavif's speed 9), its quality
        /// raised by as much as that speed needs over ``ServerConfiguration/avifLaterSpeed`` for
        /// the same SSIMULACRA2 score (``QualityMapping/avifSpeedOffset(_:)``: 4 over speed 6).
        /// At equal score such an AVIF is 0.74x a WebP's bytes for less CPU than the WebP
        /// (docs/benchmarks.md).
        case avif
        /// The next format the client accepts (WebP, else the fallback): AVIF only once made.
        case next
    }
    /// `IMAGO_AVIF_LATER_FIRST`: `avif` or `next` (see ``AVIFLaterFirst``). Default `avif`.
    public var avifLaterFirst = AVIFLaterFirst.avif
    /// libavif's speed of the fast AVIF answered while the smaller one is made: 9.
    public static let fastAVIFSpeed = 9
    /// `IMAGO_AVIF_LATER_SPEED`: libavif's speed for AVIF made in the background. Default 6,
    /// where AVIF is clearly smaller than WebP at equal visual quality (docs/benchmarks.md).
    public var avifLaterSpeed = 6
    /// `IMAGO_AVIF_LATER_TTL`: seconds a fast answer given while its AVIF is being made may be
    /// cached (`max-age`; `stale-while-revalidate` allows the usual ``ttl`` after). Default 60.
    public var avifLaterTTL = 60
    /// `IMAGO_AUTO_JXL`: the same for JPEG XL (stills), preferred over AVIF. Default `false`.
    public var autoJXL = false
    /// `IMAGO_ENFORCE_WEBP`, `IMAGO_ENFORCE_AVIF`, `IMAGO_ENFORCE_JXL`: as `AUTO`, and even over
    /// a format the URL names (imgproxy's). Default `false`.
    public var enforceWebP = false, enforceAVIF = false, enforceJXL = false
    /// `IMAGO_PREFERRED_FORMATS`: what a result is written in when the URL names no format and
    /// the source's own format is not among them: the first that holds what the result needs
    /// (animation, transparency). Default `jpeg,png,gif` (imgproxy's).
    public var preferredFormats: [ImageFormat] = [.jpeg, .png, .gif]
    /// `IMAGO_KEEP_SOURCE_FORMAT`: without a format in the URL, keep the source's format whenever
    /// it can be written (and animated), instead of ``preferredFormats``. Default `false`.
    public var keepSourceFormat = false
    /// `IMAGO_ENFORCE_THUMBNAIL`: a HEIF or AVIF source that stores a thumbnail beside the image
    /// is processed from the thumbnail, as if it were the source (imgproxy's; the URL's
    /// `enforce_thumbnail` overrides it). Default `false`.
    public var enforceThumbnail = false
    /// `IMAGO_SKIP_PROCESSING_FORMATS`: source formats sent as they are when the URL asks for no
    /// other format, as if every URL said `skp:` with them (imgproxy's). Default none.
    public var skipProcessingFormats: Set<ImageFormat> = []
    /// `IMAGO_ALWAYS_RASTERIZE_SVG`: an SVG source with no format asked is drawn and written in
    /// a raster format, as any other source; `false` (imgproxy's default) sends it as SVG,
    /// unprocessed (sanitised, see ``sanitizeSVG``). Default `false`.
    public var alwaysRasterizeSVG = false
    /// `IMAGO_SANITIZE_SVG`: SVG sent as SVG (no format asked, `f:svg`, `skp:svg`) is sanitised
    /// first (`SVGSanitizer`: no scripts, event attributes or unsafe links). Default `true`.
    public var sanitizeSVG = true

    /// Whether answers may depend on `Accept` (any `AUTO` or `ENFORCE` format on).
    public var negotiatesByAccept: Bool { autoWebP || autoAVIF || autoJXL || enforceWebP || enforceAVIF || enforceJXL }
    /// `IMAGO_MAX_ANIMATION_FRAMES`: frames of an animated source. Default 500.
    public var maxAnimationFrames: Int = 500
    /// `IMAGO_MAX_ANIMATION_FRAME_PIXELS`: megapixels summed over an animation's frames. Default 500.
    public var maxAnimationPixels: Double = 500
    /// `IMAGO_TTL`: `Cache-Control: max-age` of results, seconds. Default one year.
    public var ttl: Int = 31_536_000
    /// `IMAGO_STRIP_METADATA`. Default `true`.
    public var stripMetadata = true
    /// `IMAGO_KEEP_COPYRIGHT`: keep EXIF `Copyright` and `Artist` when stripping metadata. Default `true`.
    public var keepCopyright = true
    /// `IMAGO_STRIP_COLOR_PROFILE`: convert to sRGB and drop the profile. Default `true`.
    public var stripColorProfile = true
    /// `IMAGO_AUTO_ROTATE`: apply the EXIF orientation. Default `true`.
    public var autoRotate = true
    /// `IMAGO_RETURN_ATTACHMENT`. Default `false`.
    public var returnAttachment = false
    /// `IMAGO_PRESETS`: `name=opt/opt,name2=opt`. A preset named `default` applies to every URL;
    /// a preset already in use further up is skipped (imgproxy's rule). Every preset is applied
    /// once at start: a bad one stops the start.
    public var presets: [String: [String]] = [:]
    /// `IMAGO_PRESETS_PATH`: a file of presets, one `name=options` per line (blank lines and
    /// `#` comments skipped), read at start with ``presets``. Default none.
    public var presetsPath: String?
    /// `IMAGO_WORKERS`: decodes, transforms and encodes at once. Default: the cores.
    public var workers: Int = WorkQueue.defaultConcurrency
    /// `IMAGO_QUEUE_SIZE`: requests that may wait beyond the workers; past
    /// `IMAGO_WORKERS + IMAGO_QUEUE_SIZE` requests in progress the answer is 429 with
    /// `Retry-After`. Default 0: no limit (as imgproxy's).
    public var queueSize: Int = 0
    /// `IMAGO_GRACEFUL_STOP_TIMEOUT`: seconds to finish in-flight requests on SIGTERM. Default 20.
    public var gracefulStopTimeout: Duration = .seconds(20)
    /// `IMAGO_METRICS_BIND`: `host:port` where `/metrics` is served on its own (as imgproxy's
    /// `IMGPROXY_PROMETHEUS_BIND`); the main address then has no `/metrics`. Default none:
    /// `/metrics` beside the images.
    public var metricsBind: String?
    /// `IMAGO_LOG_LEVEL`: the level of the access log and the warnings (imgproxy's `warn` and
    /// `fatal` read as `warning` and `critical`). Default `info`.
    public var logLevel: Logger.Level = .info
    /// `IMAGO_LOG_FORMAT`: `text` (swift-log's lines) or `json` (one object per line, see
    /// ``JSONLogHandler``); imgproxy's `pretty` and `structured` read as `text`, `gcp` as `json`.
    /// Default `text`.
    public var logFormat = "text"
    /// `IMAGO_PLAYGROUND`: serve the playground page at `/`, to try options on a source and
    /// see the URL, the result and its size. Default `false`.
    public var playground = false
    /// `IMAGO_SERVER_TIMING`: send a `Server-Timing` header with each stage's duration (disk,
    /// download, queue, decode, transform, encode). Default `false`: it tells clients about the
    /// service's inside.
    public var serverTiming = false
    /// `IMAGO_OTEL_ENABLE`: export spans of every request's stages over OTLP (the `imago-server`
    /// executable sets the exporter up; an app embedding the service bootstraps its own tracer).
    /// Default `false`.
    public var otelEnabled = false
    /// `IMAGO_OTEL_ENDPOINT`: the OTLP/HTTP collector's base URL. Default `http://127.0.0.1:4318`.
    public var otelEndpoint = "http://127.0.0.1:4318"
    /// `IMAGO_OTEL_PROTOCOL`: `http/protobuf` (default) or `http/json`.
    public var otelProtocol = "http/protobuf"
    /// `IMAGO_OTEL_SERVICE_NAME`: the `service.name` spans carry. Default `imago-server`.
    public var otelServiceName = "imago-server"

    /// The defaults.
    public init() {}

    /// What reading the environment found worth saying: imgproxy settings without an
    /// equivalent, unknown `IMAGO_` settings (see ``migrate(_:)``). The executable logs them.
    public var warnings: [String] = []

    /// The connection limits for a process allowed `openFiles` descriptors (`nil`: unknown):
    /// ``maxClients``, held to three quarters of `openFiles`.
    public func connectionLimits(openFiles: Int?) -> ConnectionLimits {
        var cap = maxClients
        if let openFiles, openFiles > 0 { cap = min(cap, max(16, openFiles - max(64, openFiles / 4))) }
        return ConnectionLimits(readRequestTimeout: readRequestTimeout, keepAliveTimeout: keepAliveTimeout, maxConnections: cap)
    }

    /// The host and port of ``bind``.
    ///
    /// - Throws: ``ConfigurationError`` when it is not `host:port`.
    public func bindAddress() throws(ConfigurationError) -> (host: String, port: Int) {
        try Self.hostAndPort(bind, variable: "IMAGO_BIND")
    }

    /// The host and port of `text` (`host:port`, `[v6]:port`, `:port` for every address).
    ///
    /// - Throws: ``ConfigurationError`` for `variable` when it is not `host:port`.
    static func hostAndPort(_ text: String, variable: String) throws(ConfigurationError) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ConfigurationError(variable: variable, reason: "'\(text)' is not host:port")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}
