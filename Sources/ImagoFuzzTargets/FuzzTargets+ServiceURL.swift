// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore
import ImagoServiceURL

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension FuzzTargets {
    /// The presets the `url` target's paths may name, one of them naming itself (skipped, as
    /// imgproxy skips it) and one naming another.
    static let presetTable: [String: [String]] =
        (try? ProcessingOptions.presets(parsing: [
            "default=q:80", "thumb=rs:fill:120:120/g:sm", "small=w:200/pr:thumb", "loop=pr:loop/q:70", "webp=f:webp/q:75"
        ])) ?? [:]

    /// A signer with imgproxy's documented example key and salt (`secret` and `hello` in hex).
    static let signer: URLSigner? = try? URLSigner(keyList: "736563726574", saltList: "68656C6C6F")

    /// Builders writing paths back, one with base64url sources and no signature, one with plain
    /// sources, signed.
    static let builders: [ServiceURLBuilder] = {
        guard let base = URL(string: "https://img.example.com") else { return [] }
        return [ServiceURLBuilder(base: base), ServiceURLBuilder(base: base, signer: signer, sourceEncoding: .plain)]
    }()

    /// A request path read as the service reads it: its shape (`ServicePath`, with and without
    /// "only presets"), `/info`'s options, then the processing options (without presets, and
    /// with ``presetTable`` and the security options allowed) and the extension's format; each
    /// result is written back as a path by ``builders`` and that path read again.
    public static func url(_ data: Data) {
        let path = text(data)
        _ = ServicePath.redenormalize(path)
        _ = PercentEncoding.decode(path)
        for onlyPresets in [false, true] {
            guard let parsed = try? ServicePath(parsing: path, onlyPresets: onlyPresets) else { continue }
            let segments = parsed.isInfo ? ((try? InfoOptions(parsing: parsed.options))?.sharedSegments ?? []) : parsed.options
            let format = parsed.extensionName.flatMap { ImageFormat(serviceExtension: $0) }
            let parsings = [
                try? ProcessingOptions(parsing: segments),
                try? ProcessingOptions(parsing: segments, presets: presetTable, allowSecurityOptions: true)
            ]
            for options in parsings.compactMap({ $0 }) {
                _ = try? ProcessingOptions(parsing: options.canonicalSegments, allowSecurityOptions: true)
                for builder in builders {
                    let written = builder.path(for: parsed.source, options: options, format: format, info: parsed.isInfo)
                    _ = try? ServicePath(parsing: written)
                }
            }
        }
        otherSyntax(path)
    }

    /// `path` read with imgproxy's other URL syntax settings: `,` and a two-character separator
    /// between arguments, and a file name after a base64url source.
    static func otherSyntax(_ path: String) {
        for separator in [",", "::"] {
            guard let parsed = try? ServicePath(parsing: path, argumentSeparator: separator, base64URLIncludesFilename: true) else { continue }
            let segments =
                parsed.isInfo
                ? ((try? InfoOptions(parsing: parsed.options, argumentSeparator: separator))?.sharedSegments ?? []) : parsed.options
            _ = try? ProcessingOptions(parsing: segments, allowSecurityOptions: true, argumentSeparator: separator)
        }
    }

    /// Preset definitions, one a line, as `IMAGO_PRESETS` gives them: read, validated as the
    /// service validates them at start, and each of the first eight applied by name.
    public static func presets(_ data: Data) {
        let lines = text(data).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let table = try? ProcessingOptions.presets(parsing: lines) else { return }
        _ = try? ProcessingOptions.validate(presets: table)
        for name in table.keys.sorted().prefix(8) {
            _ = try? ProcessingOptions(parsing: ["pr:\(name)"], presets: table, allowSecurityOptions: true)
        }
    }

    /// A path's signature checked as the service checks it (``signer`` over the path's signed
    /// part), the text signed and checked as a signature itself; and, when the text has two
    /// lines, those lines read as comma-separated hex key and salt lists, as the environment
    /// gives them.
    public static func signature(_ data: Data) {
        let path = text(data)
        if let signer = Self.signer {
            _ = signer.signature(for: path)
            _ = signer.verify(path, for: "/rs:fit:300:300/plain/http://example.com/a.jpg")
            if let parsed = try? ServicePath(parsing: path) {
                _ = signer.verify(parsed.signature, for: parsed.signedPath)
            }
        }
        let lines = path.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count >= 2 else { return }
        let size = 1 + Int(data.first ?? 0) % 32
        guard let own = try? URLSigner(keyList: String(lines[0]), saltList: String(lines[1]), signatureSize: size) else { return }
        let rest = lines.count > 2 ? String(lines[2]) : "/"
        _ = own.verify(own.signature(for: rest), for: rest)
    }

    /// `/info`'s option segments (the text split at `/`): read, written back in canonical form,
    /// and the segments it shares with processing read as processing options.
    public static func infoOptions(_ data: Data) {
        let segments = text(data).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let options = try? InfoOptions(parsing: segments) else { return }
        _ = options.canonical
        _ = options.needsPixels
        _ = try? ProcessingOptions(parsing: options.sharedSegments, allowSecurityOptions: true)
    }

    /// Cookies: the first line read as a `Cookie` field (as a jar keeps names and as every cookie
    /// is sent), written again and read back, which must give the same cookies; the lines after
    /// it kept as one download's `Set-Cookie` fields and asked for at a few URLs, whose `Cookie`
    /// value must read as one cookie a part.
    public static func cookies(_ data: Data) {
        let lines = text(data).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let field = lines.first, let from = URL(string: "http://www.example.com/a/b.jpg") else { return }
        for unique in [false, true] {
            let pairs = CookieSyntax.read([field], uniqueNames: unique)
            let again = CookieSyntax.read([pairs.map(\.written).joined(separator: "; ")], uniqueNames: unique)
            precondition(again.map(\.name) == pairs.map(\.name) && again.map(\.value) == pairs.map(\.value), "a Cookie field changed when written again")
        }
        var jar = RedirectCookies()
        jar.store(Array(lines.dropFirst()), from: from)
        for target in ["http://www.example.com/a/c.jpg", "https://cdn.example.com/", "http://example.com/a", "http://127.0.0.1/"] {
            guard let url = URL(string: target), let header = jar.header(for: url) else { continue }
            let sent = CookieSyntax.read([header], uniqueNames: false)
            precondition(sent.count == header.split(separator: ";").count && sent.count <= RedirectCookies.maxCookies, "a jar sent what is not a cookie")
        }
    }
}
