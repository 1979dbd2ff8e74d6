// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import HTTPTypes
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's parser tests (imgproxy v4) that depend on a setting of the service, not on the URL
/// alone: `options/parser/processing_options_test.go` (base URL, URL replacements, presets,
/// format negotiation, client hints, expiry, only presets, allowed options), `options/parser/config_test.go`,
/// `handlers/path_test.go` `TestParsePath` and `security/signature_test.go` `TestVerifySignatureTrusted`.
/// The URL-only tests are in `ImagoServiceURLTests` (`ImgproxyParserTests`).
///
/// imgproxy's tests give the parser the path after the signature; here `/_` goes before it (no
/// key: any signature segment is accepted). Settings are given under imgproxy's names through
/// ``ServerConfiguration/init(environment:)``, which maps them to Imago's. The parse results
/// (options, source, format) come from ``parse(_:_:headers:)``, which takes the same steps as
/// `ImageService.handle`; what only the service decides (allowed options, expiry, the source it
/// fetches, the signature) comes from the service itself (``serviceError(_:_:allowing:)``), with
/// nothing reaching the network. imgproxy's parse errors are 404 in Imago's service, as in imgproxy's.
///
/// Where Imago differs on purpose, its behaviour is asserted and imgproxy's said beside it:
/// imgproxy's `UsedPresets` list has no counterpart (what the presets set is asserted instead);
/// presets are parsed and applied once at start, so the config tests use whole definitions;
/// `IMGPROXY_TRUSTED_SIGNATURES` stops the start.
@Suite("imgproxy's parser tests that need the service's settings")
struct ImgproxyParserServiceTests {
    /// imgproxy's test sources.
    static let plainSource = "http://images.dev/lorem/ipsum.jpg"
    static let querySource = "http://images.dev/lorem/ipsum.jpg?param=value"
    /// imgproxy's two test replacements (`^test://([^/]*)/` → `test2://images.dev/${1}/dolor/`,
    /// `^test2://` → `http://`), in the `*` form `IMGPROXY_URL_REPLACEMENTS` takes.
    static let replacements = "test://*/=test2://images.dev/${1}/dolor/;test2://=http://"
    /// imgproxy's format-negotiation paths: no format named, and PNG named.
    static let bare = "/plain/http://images.dev/lorem/ipsum.jpg"
    static let asPNG = "/plain/http://images.dev/lorem/ipsum.jpg@png"
    /// An `Accept` taking every negotiated format.
    static let modern = "image/avif,image/jxl,image/webp"
    /// Hex key and salt (`secret`, `hello`).
    static let key = "736563726574", salt = "68656c6c6f"

    /// `text` as base64url without padding (Go's `base64.RawURLEncoding`).
    static func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// `path` (imgproxy's, after the signature) parsed by `ImageService.parseRequest`, what
    /// `ImageService.handle` reads it with: the path's shape (with `IMAGO_ONLY_PRESETS`), the
    /// allowed options, the client hints (with `IMAGO_ENABLE_CLIENT_HINTS`) as the starting
    /// options, the default preset and the URL's options, the extension's format, the expiry; and
    /// the source as it is fetched (the replacements, then the base URL).
    static func parse(
        _ path: String, _ c: ServerConfiguration, headers: HTTPFields = [:]
    ) throws -> (options: ProcessingOptions, source: String) {
        // The service's own reading, in its order (no keys: any signature segment).
        let (parsed, options) = try ImageService.parseRequest(path: "/_" + path, headers: headers, urls: c.urls, signer: nil)
        return (options, c.sources.resolveSource(parsed.source))
    }

    /// The error `ImageService` answers `requestPath` (a whole request path) with under `c` (`nil`:
    /// an answer), with `allowing` the only allowed source and a resolver that knows no host: a URL
    /// that gets past the path, the signature and the options to a source starting with `allowing`
    /// fails at the host lookup, 404 `source_unreachable`; another source is `source_not_allowed`.
    /// Nothing connects anywhere.
    static func serviceError(
        _ requestPath: String, _ c: ServerConfiguration = ServerConfiguration(), allowing: String = "http://images.dev/"
    ) async throws -> ServiceError? {
        var configuration = c
        configuration.security.allowedSources = [allowing]
        configuration.cache.cacheSize = 0
        let service = try ImageService(configuration: configuration, logger: ServiceHarness.silent, resolver: TableResolver([:]))
        var refusal: ServiceError?
        do {
            _ = try await service.handle(method: .get, path: requestPath, headers: [:])
        } catch let error as ServiceError {
            refusal = error
        } catch {
            await service.shutdown()
            throw error
        }
        await service.shutdown()
        return refusal
    }

    /// Expects the service to take `path` (after the signature) to `source`: see
    /// ``serviceError(_:_:allowing:)``.
    static func expectFetches(_ path: String, _ c: ServerConfiguration, _ source: String) async throws {
        let error = try await serviceError("/_" + path, c, allowing: source)
        #expect(error?.code == "source_unreachable", "\(path): \(String(describing: error))")
    }

    /// The format answered for a 10×10 JPEG source of `path` under imgproxy's settings in
    /// `environment` to a client sending `accept`, and whether answers vary by `Accept`.
    static func negotiated(
        _ path: String, accept: String, _ environment: [String: String]
    ) throws -> (format: ImageFormat, varies: Bool) {
        let c = try ServerConfiguration(environment: environment)
        let plan = try RenderPlan(
            info: ImageInfo(format: .jpeg, width: 10, height: 10), options: try parse(path, c).options, accept: accept,
            settings: c.renderSettings, coders: .shared)
        return (plan.format, plan.variesByAccept)
    }

    /// `Sec-CH-Width` and `Sec-CH-DPR`, as given.
    static func hints(width: String? = nil, dpr: String? = nil) -> HTTPFields {
        var fields = HTTPFields()
        if let width { fields[.known("Sec-CH-Width")] = width }
        if let dpr { fields[.known("Sec-CH-DPR")] = dpr }
        return fields
    }

    /// A presets file holding `text`, in a directory of its own (remove the directory after).
    static func presetsFile(_ text: String) throws -> URL {
        let file = try TestFiles.temporaryDirectory("imago-presets").appendingPathComponent("presets.txt")
        try Data(text.utf8).write(to: file)
        return file
    }

    static func isMalformed(_ error: ServiceURLError?) -> Bool {
        if case .malformedPath? = error { return true }
        return false
    }

    static func isInvalidSource(_ error: ServiceURLError?) -> Bool {
        if case .invalidSource? = error { return true }
        return false
    }

    // MARK: Base URL and URL replacements

    @Test("options/parser/processing_options_test.go TestParseBase64URLWithBase: a base64 source relative to IMGPROXY_BASE_URL")
    func parseBase64URLWithBase() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_BASE_URL": "http://images.dev/"])
        let path = "/size:100:100/\(Self.base64("lorem/ipsum.jpg?param=value")).png"
        let parsed = try Self.parse(path, c)
        #expect(parsed.source == Self.querySource)
        #expect(parsed.options.format == .png)
        try await Self.expectFetches(path, c, Self.querySource)
    }

    @Test("options/parser/processing_options_test.go TestParseBase64URLWithFilename: the segment after the source is a name, dropped")
    func parseBase64URLWithFilename() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_BASE64_URL_INCLUDES_FILENAME": "true"])
        let path = "/size:100:100/\(Self.base64(Self.querySource)).png/puppy.jpg"
        let parsed = try Self.parse(path, c)
        #expect(parsed.source == Self.querySource && parsed.options.format == .png)
        try await Self.expectFetches(path, c, Self.querySource)
    }

    @Test("options/parser/processing_options_test.go TestParseWithArgumentsSeparator: size,100,100,1 under ','")
    func parseWithArgumentsSeparator() throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_ARGUMENTS_SEPARATOR": ","])
        let parsed = try Self.parse("/size,100,100,1/plain/\(Self.plainSource)", c)
        #expect(parsed.options.width == 100 && parsed.options.height == 100 && parsed.options.enlarge)
        #expect(parsed.source == Self.plainSource)
    }

    @Test("options/parser/processing_options_test.go TestParseBase64URLWithReplacement: IMGPROXY_URL_REPLACEMENTS, in order")
    func parseBase64URLWithReplacement() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_URL_REPLACEMENTS": Self.replacements])
        let path = "/size:100:100/\(Self.base64("test://lorem/ipsum.jpg?param=value")).png"
        let parsed = try Self.parse(path, c)
        #expect(parsed.source == "http://images.dev/lorem/dolor/ipsum.jpg?param=value")
        #expect(parsed.options.format == .png)
        try await Self.expectFetches(path, c, "http://images.dev/lorem/dolor/ipsum.jpg?param=value")
    }

    @Test("options/parser/processing_options_test.go TestParsePlainURLWithBase: a plain source relative to IMGPROXY_BASE_URL")
    func parsePlainURLWithBase() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_BASE_URL": "http://images.dev/"])
        let path = "/size:100:100/plain/lorem/ipsum.jpg@png"
        let parsed = try Self.parse(path, c)
        #expect(parsed.source == Self.plainSource)
        #expect(parsed.options.format == .png)
        try await Self.expectFetches(path, c, Self.plainSource)
    }

    @Test("options/parser/processing_options_test.go TestParsePlainURLWithReplacement: a plain source rewritten by the replacements")
    func parsePlainURLWithReplacement() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_URL_REPLACEMENTS": Self.replacements])
        let path = "/size:100:100/plain/test://lorem/ipsum.jpg@png"
        let parsed = try Self.parse(path, c)
        #expect(parsed.source == "http://images.dev/lorem/dolor/ipsum.jpg")
        #expect(parsed.options.format == .png)
        try await Self.expectFetches(path, c, "http://images.dev/lorem/dolor/ipsum.jpg")
    }

    @Test("options/parser/processing_options_test.go TestParsePlainURLEscapedWithBase: decoded, then put under the base URL")
    func parsePlainURLEscapedWithBase() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_BASE_URL": "http://images.dev/"])
        // Go's url.PathEscape("lorem/ipsum.jpg?param=value").
        let path = "/size:100:100/plain/lorem%2Fipsum.jpg%3Fparam=value@png"
        let parsed = try Self.parse(path, c)
        #expect(parsed.source == Self.querySource)
        #expect(parsed.options.format == .png)
        try await Self.expectFetches(path, c, Self.querySource)
    }

    // MARK: Presets

    @Test("options/parser/processing_options_test.go TestParsePathPreset: preset:test1:test2 applies both, in order")
    func parsePathPreset() throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_PRESETS": "test1=resizing_type:fill,test2=blur:0.2/quality:50"])
        let o = try Self.parse("/preset:test1:test2/plain/\(Self.plainSource)", c).options
        // imgproxy also lists the presets used (keys.UsedPresets, which nothing in its open source
        // reads but its tests); Imago keeps no such list, so what each preset sets is asserted.
        #expect(o.resizingType == .fill)
        #expect(o.blur == 0.2)
        #expect(o.quality == 50)
    }

    @Test("options/parser/processing_options_test.go TestParsePathPresetDefault: the default preset first, the URL's options over it")
    func parsePathPresetDefault() throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_PRESETS": "default=resizing_type:fill/blur:0.2/quality:50"])
        let o = try Self.parse("/quality:70/plain/\(Self.plainSource)", c).options
        #expect(o.resizingType == .fill)
        #expect(o.blur == 0.2)
        #expect(o.quality == 70)
        // Applied with no option in the URL too (imgproxy's UsedPresets == ["default"]).
        #expect(try Self.parse("/plain/\(Self.plainSource)", c).options.quality == 50)
    }

    @Test("options/parser/processing_options_test.go TestParsePathPresetLoopDetection: a preset already applying is skipped")
    func parsePathPresetLoopDetection() throws {
        // Checked at start too: presets naming each other are not an error.
        let c = try ServerConfiguration(environment: ["IMGPROXY_PRESETS": "test1=resizing_type:fill/preset:test2,test2=blur:0.2/preset:test1"])
        let o = try Self.parse("/preset:test1/plain/\(Self.plainSource)", c).options
        // Both applied (imgproxy's UsedPresets == ["test1", "test2"]), each once.
        #expect(o.resizingType == .fill)
        #expect(o.blur == 0.2)
        let other = try Self.parse("/preset:test2/plain/\(Self.plainSource)", c).options
        #expect(other.resizingType == .fill && other.blur == 0.2)
    }

    // MARK: Format negotiation

    /// imgproxy's detection tests: `setting` (`IMGPROXY_AUTO_…`) prefers `format` for a client
    /// taking `mime` (the source's JPEG without an encoder for it here), enforces nothing, and
    /// prefers no other modern format.
    static func expectDetected(_ format: ImageFormat, mime: String, setting: String) throws {
        let preferredFormat: ImageFormat = ImageCoderRegistry.shared.canEncode(format) ? format : .jpeg
        let auto = [setting: "true"]
        let preferred = try negotiated(bare, accept: mime, auto)
        #expect(preferred.format == preferredFormat && preferred.varies, "\(setting)")
        // Not enforced: the format the URL names stands.
        #expect(try negotiated(asPNG, accept: mime, auto).format == .png, "\(setting)")
        #expect(try negotiated(bare, accept: modern, auto).format == preferredFormat, "\(setting)")
    }

    /// imgproxy's enforcement tests: `setting` (`IMGPROXY_ENFORCE_…`) overrides a format the URL
    /// names for a client taking `mime`, prefers it too, and leaves other clients alone.
    static func expectEnforced(_ format: ImageFormat, mime: String, setting: String) throws {
        let available = ImageCoderRegistry.shared.canEncode(format)
        let enforcedFormat: ImageFormat = available ? format : .png
        let enforce = [setting: "true"]
        let enforced = try negotiated(asPNG, accept: mime, enforce)
        #expect(enforced.format == enforcedFormat && enforced.varies, "\(setting)")
        #expect(try negotiated(bare, accept: mime, enforce).format == (available ? format : .jpeg), "\(setting)")
        #expect(try negotiated(asPNG, accept: modern, enforce).format == enforcedFormat, "\(setting)")
        #expect(try negotiated(asPNG, accept: "image/png", enforce).format == .png, "\(setting)")
    }

    @Test("options/parser/processing_options_test.go TestParsePathWebpDetection: IMGPROXY_AUTO_WEBP prefers WebP, enforces nothing")
    func parsePathWebpDetection() throws {
        try Self.expectDetected(.webp, mime: "image/webp", setting: "IMGPROXY_AUTO_WEBP")
        // Read from Accept, as imgproxy's detector does: a client not taking WebP gets the source's format.
        #expect(try Self.negotiated(Self.bare, accept: "image/png", ["IMGPROXY_AUTO_WEBP": "true"]).format == .jpeg)
    }

    @Test("options/parser/processing_options_test.go TestParsePathWebpEnforce: IMGPROXY_ENFORCE_WEBP overrides a format named")
    func parsePathWebpEnforce() throws {
        try Self.expectEnforced(.webp, mime: "image/webp", setting: "IMGPROXY_ENFORCE_WEBP")
    }

    @Test("options/parser/processing_options_test.go TestParsePathAvifDetection: IMGPROXY_AUTO_AVIF prefers AVIF, enforces nothing")
    func parsePathAvifDetection() throws {
        try Self.expectDetected(.avif, mime: "image/avif", setting: "IMGPROXY_AUTO_AVIF")
    }

    @Test("options/parser/processing_options_test.go TestParsePathAvifEnforce: IMGPROXY_ENFORCE_AVIF overrides a format named")
    func parsePathAvifEnforce() throws {
        try Self.expectEnforced(.avif, mime: "image/avif", setting: "IMGPROXY_ENFORCE_AVIF")
    }

    @Test("options/parser/processing_options_test.go TestParsePathJxlDetection: IMGPROXY_AUTO_JXL prefers JPEG XL, enforces nothing")
    func parsePathJxlDetection() throws {
        try Self.expectDetected(.jxl, mime: "image/jxl", setting: "IMGPROXY_AUTO_JXL")
    }

    @Test("options/parser/processing_options_test.go TestParsePathJxlEnforce: IMGPROXY_ENFORCE_JXL overrides a format named")
    func parsePathJxlEnforce() throws {
        try Self.expectEnforced(.jxl, mime: "image/jxl", setting: "IMGPROXY_ENFORCE_JXL")
    }

    // MARK: Output

    @Test("processing/fix_size.go: a result larger than its format holds is scaled down to fit (WebP 16383, AVIF 16384, an icon 256)")
    func fixSize() throws {
        let c = ServerConfiguration()
        for (format, side) in [(ImageFormat.webp, 16383), (.avif, 16384), (.heic, 16384), (.gif, 65535), (.ico, 256)] {
            #expect(RenderPlan.maxResultDimension(options: ProcessingOptions(), settings: c.renderSettings, format: format) == side)
        }
        #expect(RenderPlan.maxResultDimension(options: ProcessingOptions(), settings: c.renderSettings, format: .png) == nil)
        var smaller = ProcessingOptions()
        smaller.maxResultDimension = 1000
        #expect(RenderPlan.maxResultDimension(options: smaller, settings: c.renderSettings, format: .webp) == 1000)
    }

    @Test("processing.go determineOutputFormat: extend_aspect_ratio alone does not make a result transparent; extend and padding do")
    func extendAspectRatioFormat() throws {
        let c = ServerConfiguration()
        func format(_ options: String) throws -> ImageFormat {
            try RenderPlan(
                info: ImageInfo(format: .webp, width: 40, height: 20), options: try Self.parse("/\(options)/plain/\(Self.plainSource)", c).options,
                accept: nil, settings: c.renderSettings, coders: .shared
            ).format
        }
        #expect(try format("rs:fit:400:400/exar:1") == .jpeg)
        #expect(try format("rs:fit:400:400/ex:1") == .png)
        #expect(try format("pd:10") == .png)
    }

    // MARK: Client hints

    @Test("options/parser/processing_options_test.go TestParsePathClientHints: the DPR, and the width in device pixels over it")
    func parsePathClientHints() throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_ENABLE_CLIENT_HINTS": "true"])
        let rows: [(name: String, headers: HTTPFields, width: Int, dpr: Double)] = [
            ("NoClientHints", Self.hints(), 0, 1), ("WidthOnly", Self.hints(width: "100"), 100, 1),
            ("DprOnly", Self.hints(dpr: "2"), 0, 2), ("WidthAndDpr", Self.hints(width: "100", dpr: "2"), 50, 2)
        ]
        for row in rows {
            let o = try Self.parse(Self.asPNG, c, headers: row.headers).options
            #expect(o.width == row.width, "\(row.name)")
            #expect(o.dpr == row.dpr, "\(row.name)")
        }
        // As imgproxy's detector, only with the setting on.
        let off = try Self.parse(Self.asPNG, ServerConfiguration(), headers: Self.hints(width: "100", dpr: "2")).options
        #expect(off.width == 0 && off.dpr == 1)
        // A hint that does not read, or a DPR over 8, is skipped for the next header naming it
        // (clientfeatures/detector.go), not clamped or taken as nothing.
        let skipped: [(HTTPFields, Double, Int)] = [
            ([.known("Sec-CH-DPR"): "abc", .known("DPR"): "2"], 2, 0),
            ([.known("Sec-CH-DPR"): "10", .known("DPR"): "3"], 3, 0), ([.known("DPR"): "10"], 1, 0),
            ([.known("Sec-CH-Width"): "wide", .known("Width"): "300"], 1, 300), ([.known("Sec-CH-Width"): "-5"], 1, 0)
        ]
        for (headers, dpr, width) in skipped {
            let hints = ClientHints(headers)
            #expect((hints.dpr ?? 1) == dpr && (hints.width ?? 0) == width, "\(headers)")
        }
    }

    @Test("options/parser/processing_options_test.go TestParsePathClientHintsRedefine: the URL's width and dpr win over the hints")
    func parsePathClientHintsRedefine() throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_ENABLE_CLIENT_HINTS": "true"])
        let path = "/width:150/dpr:3.0/plain/\(Self.plainSource)@png"
        let o = try Self.parse(path, c, headers: Self.hints(width: "100", dpr: "2")).options
        #expect(o.width == 150)
        #expect(o.dpr == 3)
    }

    // MARK: Expiry

    @Test("options/parser/processing_options_test.go TestParseExpiresExpired: a URL past its exp is refused, 404 expired")
    func parseExpiresExpired() async throws {
        let path = "/exp:1609448400/plain/\(Self.plainSource)"
        // The option parses; the service compares it with the clock.
        #expect(try ProcessingOptions(parsing: ["exp:1609448400"], allowSecurityOptions: false).expires == 1_609_448_400)
        let error = try await Self.serviceError("/_" + path)
        #expect(error?.status.code == 404 && error?.code == "expired", "\(String(describing: error))")
    }

    // MARK: Only presets, allowed options

    @Test("options/parser/processing_options_test.go TestParsePathOnlyPresets: with IMGPROXY_ONLY_PRESETS the first segment names presets")
    func parsePathOnlyPresets() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_ONLY_PRESETS": "true", "IMGPROXY_PRESETS": "test1=blur:0.2,test2=quality:50"])
        let path = "/test1:test2/plain/\(Self.plainSource)@png"
        let parsed = try Self.parse(path, c)
        #expect(parsed.options.blur == 0.2)
        #expect(parsed.options.quality == 50)
        #expect(parsed.options.format == .png)
        #expect(parsed.source == Self.plainSource)
        try await Self.expectFetches(path, c, Self.plainSource)
    }

    @Test("options/parser/processing_options_test.go TestParseBase64URLOnlyPresets: the same with a base64 source")
    func parseBase64URLOnlyPresets() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_ONLY_PRESETS": "true", "IMGPROXY_PRESETS": "test1=blur:0.2,test2=quality:50"])
        let path = "/test1:test2/\(Self.base64(Self.querySource)).png"
        let parsed = try Self.parse(path, c)
        #expect(parsed.options.blur == 0.2)
        #expect(parsed.options.quality == 50)
        #expect(parsed.options.format == .png)
        #expect(parsed.source == Self.querySource)
        try await Self.expectFetches(path, c, Self.querySource)
    }

    @Test("options/parser/processing_options_test.go TestParseAllowedOptions: the URL's options are checked (404), a preset's are not")
    func parseAllowedOptions() async throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "w,h,pr", "IMGPROXY_PRESETS": "test1=blur:0.2"])
        let rows: [(options: String, forbidden: String?)] = [
            ("w:100/h:200", nil), ("w:100/h:200/blur:10", "blur"), ("w:100/h:200/pr:test1", nil), ("w:100/h:200/pr:test1/blur:10", "blur")
        ]
        for row in rows {
            let error = try await Self.serviceError("/_/\(row.options)/\(Self.base64(Self.querySource)).png", c, allowing: Self.querySource)
            if let forbidden = row.forbidden {
                // imgproxy's "Forbidden processing option blur", with its status.
                #expect(error?.status.code == 404 && error?.code == "forbidden_option", "\(row.options): \(String(describing: error))")
                #expect(error?.message == ServiceURLError.forbiddenOption(forbidden).description, "\(row.options)")
            } else {
                // Past the parser, on to the source.
                #expect(error?.code == "source_unreachable", "\(row.options): \(String(describing: error))")
            }
        }
    }

    // MARK: options/parser/config_test.go

    @Test("options/parser/config_test.go TestPresetsPresent: IMGPROXY_PRESETS, comma-separated")
    func presetsPresent() throws {
        // imgproxy's config keeps the entries as text (`preset1`, …) for the parser to read later;
        // Imago parses and applies each at start, so the entries here are whole definitions.
        let c = try ServerConfiguration(environment: [
            "IMGPROXY_PRESETS_SEPARATOR": ",", "IMGPROXY_PRESETS": "preset1=q:10,preset2=q:20,preset3=q:30"
        ])
        #expect(c.urls.presets == ["preset1": ["q:10"], "preset2": ["q:20"], "preset3": ["q:30"]])
        #expect(c.warnings.isEmpty, "\(c.warnings)")
        // Another separator is followed, as imgproxy's `parseStringSliceSep` splits by it.
        let semicolons = try ServerConfiguration(environment: [
            "IMGPROXY_PRESETS_SEPARATOR": ";", "IMGPROXY_PRESETS": "preset1=q:10/w:5;preset2=q:20"
        ])
        #expect(semicolons.urls.presets == ["preset1": ["q:10", "w:5"], "preset2": ["q:20"]])
    }

    @Test("options/parser/config_test.go TestPresetsEmpty: an empty IMGPROXY_PRESETS is no presets")
    func presetsEmpty() throws {
        let c = try ServerConfiguration(environment: ["IMGPROXY_PRESETS_SEPARATOR": ",", "IMGPROXY_PRESETS": ""])
        #expect(c.urls.presets.isEmpty)
    }

    @Test("options/parser/config_test.go TestPresetsFromFile: IMGPROXY_PRESETS_PATH, one preset a line")
    func presetsFromFile() throws {
        let file = try Self.presetsFile("file_preset1=q:10\nfile_preset2=blur:1\n")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let c = try ServerConfiguration(environment: ["IMGPROXY_PRESETS_PATH": file.path, "IMGPROXY_PRESETS": ""])
        #expect(c.urls.presets == ["file_preset1": ["q:10"], "file_preset2": ["blur:1"]])
        #expect(c.urls.presetsPath == file.path)
    }

    @Test("options/parser/config_test.go TestPresetsFileEmpty: an empty presets file is no presets")
    func presetsFileEmpty() throws {
        let file = try Self.presetsFile("")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let c = try ServerConfiguration(environment: ["IMGPROXY_PRESETS_PATH": file.path, "IMGPROXY_PRESETS": ""])
        #expect(c.urls.presets.isEmpty)
    }

    @Test("options/parser/config_test.go TestPresetsFileNotFound: a presets file that is not there stops the start")
    func presetsFileNotFound() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("imago-no-presets-\(UUID().uuidString).txt").path
        let error = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_PRESETS_PATH": missing, "IMGPROXY_PRESETS": ""])
        }
        // Named by Imago's name for the setting, which IMGPROXY_PRESETS_PATH sets.
        #expect(error?.variable == "IMAGO_PRESETS_PATH")
    }

    @Test("options/parser/config_test.go TestPresetsFromBothSources: the variable's presets and the file's")
    func presetsFromBothSources() throws {
        let file = try Self.presetsFile("file_preset1=q:10\nfile_preset2=blur:1\n")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let c = try ServerConfiguration(environment: [
            "IMGPROXY_PRESETS_SEPARATOR": ",", "IMGPROXY_PRESETS": "preset1=q:20,preset2=q:30", "IMGPROXY_PRESETS_PATH": file.path
        ])
        // imgproxy keeps one list, IMGPROXY_PRESETS's entries first; Imago keeps the presets by name.
        #expect(c.urls.presets.keys.sorted() == ["file_preset1", "file_preset2", "preset1", "preset2"])
        #expect(c.urls.presets["preset1"] == ["q:20"] && c.urls.presets["file_preset2"] == ["blur:1"])
    }

    // MARK: handlers/path_test.go, security/signature_test.go

    @Test("handlers/path_test.go TestParsePath: the signature and the path it signs, CDN rewrites undone; no signature or path is 404")
    func parsePath() async throws {
        let signed = "/rs:fill:300:200/plain/http://example.com/image.jpg"
        let longer = "/rs:fill:300:200/plain/https://example.com/path/to/image.jpg"
        // imgproxy's expected path has no leading `/`; Imago's signedPath starts with one (both sign the same bytes).
        let rows: [(name: String, mount: String, request: String, signedPath: String)] = [
            ("BasicPath", "", "/dummy_signature/rs:fill:300:200/plain/http://example.com/image.jpg", signed),
            ("PathWithQueryParams", "", "/dummy_signature/rs:fill:300:200/plain/http://example.com/image.jpg?param1=value1&param2=value2", signed),
            ("PathWithPrefix", "/imgproxy", "/imgproxy/dummy_signature/rs:fill:300:200/plain/http://example.com/image.jpg", signed),
            ("PathWithPlainUrlRedenormalization", "", "/dummy_signature/rs:fill:300:200/plain/https:/example.com/path/to/image.jpg", longer),
            (
                "PathWithOptionsSeparatorUnescapingPLain", "",
                "/dummy_signature/rs%3Afill%3A300%3A200/plain/https://example.com/path/to/image.jpg", longer
            )
        ]
        for row in rows {
            // The mount (Go's req.Pattern) is taken off by the route addRoutes(to:at:) adds, as here;
            // ServiceBehaviourTests' embedding test signs and serves under one.
            let parsed = try ServicePath(parsing: String(row.request.dropFirst(row.mount.count)))
            #expect(parsed.signature == "dummy_signature", "\(row.name)")
            #expect(parsed.signedPath == row.signedPath, "\(row.name)")
            #expect(parsed.options == ["rs:fill:300:200"], "\(row.name)")
            #expect(parsed.source == String(row.signedPath.dropFirst("/rs:fill:300:200/plain/".count)), "\(row.name)")
        }
        // PathWithOptionsSeparatorUnescapingBas64: imgproxy splits without decoding the source; Imago
        // decodes it in the same step, and base64 `abcabc` is not UTF-8 text. What is signed is
        // imgproxy's; the source is refused (404).
        let base64Request = "/dummy_signature/rs%3Afill%3A300%3A200/abc/abc"
        #expect(ServicePath.redenormalize("rs%3Afill%3A300%3A200/abc/abc") == "rs:fill:300:200/abc/abc")
        let undecodable = #expect(throws: ServiceURLError.self) { try ServicePath(parsing: base64Request) }
        #expect(Self.isInvalidSource(undecodable), "\(String(describing: undecodable))")
        let refusal = try await Self.serviceError(base64Request)
        #expect(refusal?.status.code == 404 && refusal?.code == "invalid_url", "\(String(describing: refusal))")
        // NoSignatureSeparator, EmptyPath, OnlySignature.
        for request in ["/invalid_path_without_slash", "/", "/signature_only"] {
            let error = #expect(throws: ServiceURLError.self, "\(request)") { try ServicePath(parsing: request) }
            #expect(Self.isMalformed(error), "\(request): \(String(describing: error))")
            let answer = try await Self.serviceError(request)
            #expect(answer?.status.code == 404 && answer?.code == "invalid_url", "\(request): \(String(describing: answer))")
        }
    }

    @Test("security/signature_test.go TestVerifySignatureTrusted: IMGPROXY_TRUSTED_SIGNATURES stops the start; such a signature is 403")
    func verifySignatureTrusted() async throws {
        // imgproxy accepts the listed signatures for any path; Imago has no such list (the README's
        // "not yet"), and an imgproxy security setting it cannot follow stops the start rather than
        // being ignored (ServerConfiguration.securityWords: TRUSTED).
        let error = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: [
                "IMGPROXY_KEY": Self.key, "IMGPROXY_SALT": Self.salt, "IMGPROXY_TRUSTED_SIGNATURES": "truested"
            ])
        }
        #expect(error?.variable == "IMGPROXY_TRUSTED_SIGNATURES")
        #expect(error?.reason.contains("no equivalent") == true, "\(String(describing: error))")
        // Without it, `truested` is a signature like any other: wrong for the path, 403 (imgproxy's
        // `untrusted` case); the path's own signature passes.
        let c = try ServerConfiguration(environment: ["IMGPROXY_KEY": Self.key, "IMGPROXY_SALT": Self.salt])
        let path = "/plain/\(Self.plainSource)"
        let refused = try await Self.serviceError("/truested" + path, c)
        #expect(refused?.status.code == 403 && refused?.code == "invalid_signature", "\(String(describing: refused))")
        let signer = try URLSigner(keyList: Self.key, saltList: Self.salt)
        let accepted = try await Self.serviceError("/" + signer.signature(for: path) + path, c)
        #expect(accepted?.code == "source_unreachable", "\(String(describing: accepted))")
    }

    @Test("settings imgproxy loads from a file or a secret store stop the start; error trackers' keys are only warned about")
    func settingsLoadersAndReportingKeys() throws {
        // imgproxy reads IMGPROXY_KEY and the rest from these; Imago does not, so it must not
        // start as though no key were set.
        for loader in ["IMGPROXY_ENV_LOCAL_FILE_PATH", "IMGPROXY_ENV_AWS_SSM_PARAMETERS_PATH", "IMGPROXY_ENV_AWS_SECRET_ID", "IMGPROXY_ENV_GCP_SECRET_ID"] {
            let error = #expect(throws: ConfigurationError.self, "\(loader)") { try ServerConfiguration.migrate([loader: "/etc/imgproxy.env"]) }
            #expect(error?.variable == loader)
            #expect(error?.reason.contains("EnvironmentFile=") == true, "\(String(describing: error))")
        }
        // Keys and certificates of error trackers and telemetry are those services' credentials.
        let reporting = [
            "IMGPROXY_NEW_RELIC_KEY", "IMGPROXY_BUGSNAG_KEY", "IMGPROXY_HONEYBADGER_KEY", "IMGPROXY_AIRBRAKE_PROJECT_KEY",
            "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY", "IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT", "IMGPROXY_OPEN_TELEMETRY_SERVER_CERT"
        ]
        let (_, warnings) = try ServerConfiguration.migrate(Dictionary(uniqueKeysWithValues: reporting.map { ($0, "x") }))
        for name in reporting {
            #expect(warnings.contains("\(name) has no equivalent in Imago and is ignored"), "\(name)")
        }
        // The server's own security settings still stop it.
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.migrate(["IMGPROXY_TRUSTED_SIGNATURES": "x"]) }
    }
}
