// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// How an image URL is read: its signature, the presets, the options it may use and the client
/// hints that fill in defaults. ``ServerConfiguration/urls``; the URL parser takes it.
public struct URLSettings: Sendable {
    /// `IMAGO_KEY`: hex keys, comma-separated. Without one, any signature segment is accepted.
    public var keys: String?
    /// `IMAGO_SALT`: hex salts, one per key.
    public var salts: String?
    /// `IMAGO_SIGNATURE_SIZE`: bytes of the HMAC kept, 1–32. Default 32.
    public var signatureSize: Int = 32
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
    /// `IMAGO_ALLOW_SECURITY_OPTIONS`: let URLs override the source limits. Default `false`.
    public var allowSecurityOptions = false
    /// `IMAGO_PRESETS`: `name=opt/opt,name2=opt`. A preset named `default` applies to every URL;
    /// a preset already in use further up is skipped (imgproxy's rule). Every preset is applied
    /// once at start: a bad one stops the start.
    public var presets: [String: [String]] = [:]
    /// `IMAGO_ARGUMENTS_SEPARATOR`: what separates an option's name and arguments, in URLs and
    /// presets (imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`; `rs,fill,300` with `,`). Default `:`.
    public var argumentsSeparator = ":"
    /// `IMAGO_PRESETS_SEPARATOR`: what separates the presets in `IMAGO_PRESETS`. Default `,`.
    public var presetsSeparator = ","
    /// `IMAGO_BASE64_URL_INCLUDES_FILENAME`: a base64url source followed by a segment reads that
    /// segment as a file name for people and search engines, and drops it (imgproxy's). Default
    /// `false`.
    public var base64URLIncludesFilename = false
    /// `IMAGO_PRESETS_PATH`: a file of presets, one `name=options` per line (blank lines and
    /// `#` comments skipped), read at start with ``presets``. Default none.
    public var presetsPath: String?

    /// The defaults.
    public init() {}
}
