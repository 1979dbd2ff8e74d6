// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// Which sources may be fetched and how big they may be: imgproxy's security settings.
/// ``ServerConfiguration/security``; the source loaders, the decoders' limits and the render
/// plan take it.
public struct SecuritySettings: Sendable {
    /// `IMAGO_MAX_ANIMATION_FRAME_RESOLUTION`: megapixels of one frame of an animation kept
    /// animated; when set, it stands for `IMAGO_MAX_SRC_RESOLUTION` for animations (imgproxy's).
    /// Default none.
    public var maxAnimationFrameResolution: Double?
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
    /// `IMAGO_MAX_RESULT_DIMENSION`: pixels on a result's longer side. Default: no limit.
    public var maxResultDimension: Int?
    /// `IMAGO_MAX_ANIMATION_FRAMES`: frames of an animated source. Default 500.
    public var maxAnimationFrames: Int = 500
    /// `IMAGO_MAX_ANIMATION_FRAME_PIXELS`: megapixels summed over an animation's frames. Default 500.
    public var maxAnimationPixels: Double = 500

    /// The defaults.
    public init() {}
}
