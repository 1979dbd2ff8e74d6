// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

public import ImagoCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Builds service URLs, signed when a signer is given: the same code the service checks them
/// with, for Swift apps and front-end build steps.
///
/// ```swift
/// let builder = ServiceURLBuilder(base: URL(string: "https://img.example.com")!,
///                                 signer: try URLSigner(keyList: key, saltList: salt))
/// var options = ProcessingOptions()
/// options.resizingType = .fill
/// options.width = 300
/// options.height = 300
/// let url = builder.url(for: URL(string: "https://cdn.example.com/a.jpg")!, options: options, format: .webp)
/// // https://img.example.com/<signature>/resizing_type:fill/width:300/height:300/aHR0cHM6...YS5qcGc.webp
/// ```
public struct ServiceURLBuilder: Sendable {
    /// How the source URL is written.
    public enum SourceEncoding: Sendable, Hashable {
        /// URL-safe Base64, split into 16-character segments (the default).
        case base64
        /// `plain/` followed by the percent-encoded URL.
        case plain
    }

    /// The service's base URL, without a trailing slash.
    public var base: URL
    /// Signs each path; `nil` writes `_` in place of a signature (a service without a key).
    public var signer: URLSigner?
    /// How sources are written. Default ``SourceEncoding/base64``.
    public var sourceEncoding: SourceEncoding
    /// What separates an option's name and arguments: the service's `IMAGO_ARGUMENTS_SEPARATOR`
    /// (imgproxy's `IMGPROXY_ARGUMENTS_SEPARATOR`). Default `:`. An argument holding it (a file
    /// name with a `,`, say) cannot be written for such a service.
    public var argumentSeparator: String

    /// Creates a builder; `sourceEncoding` defaults to base64, `argumentSeparator` to `:`.
    public init(base: URL, signer: URLSigner? = nil, sourceEncoding: SourceEncoding = .base64, argumentSeparator: String = ":") {
        self.base = base
        self.signer = signer
        self.sourceEncoding = sourceEncoding
        self.argumentSeparator = argumentSeparator.isEmpty ? ":" : argumentSeparator
    }

    /// The path (from `/`, signature included) for `source` with `options`, the output format
    /// given by `format` (as the extension) when set.
    public func path(for source: String, options: ProcessingOptions, format: ImageFormat? = nil, info: Bool = false) -> String {
        var opts = options
        if format != nil { opts.format = nil }
        let separator = argumentSeparator.isEmpty ? ":" : argumentSeparator
        let segments = opts.canonicalSegments.map {
            separator == ":" ? $0 : $0.split(separator: ":", omittingEmptySubsequences: false).joined(separator: separator)
        }
        var signed = "/" + segments.map { $0 + "/" }.joined()
        switch sourceEncoding {
        case .plain:
            signed += "plain/" + PercentEncoding.encodeSource(source)
            if let format { signed += "@" + format.preferredFileExtension }
        case .base64:
            let encoded = Base64URL.encode(Array(source.utf8))
            var pieces: [Substring] = []
            var rest = Substring(encoded)
            while !rest.isEmpty {
                pieces.append(rest.prefix(16))
                rest = rest.dropFirst(16)
            }
            signed += pieces.joined(separator: "/")
            if let format { signed += "." + format.preferredFileExtension }
        }
        let signature = signer?.signature(for: signed) ?? "_"
        return (info ? "/info/" : "/") + signature + signed
    }

    /// The full URL for `source`; see ``path(for:options:format:info:)``.
    public func url(for source: URL, options: ProcessingOptions, format: ImageFormat? = nil, info: Bool = false) -> URL {
        let text = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        return URL(string: text + path(for: source.absoluteString, options: options, format: format, info: info)) ?? base
    }
}
