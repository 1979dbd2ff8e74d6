// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

/// imgproxy v4's options/parser/presets_test.go and config_test.go, handlers/path_test.go and
/// security/signature_test.go, one `@Test` per Go test function; then the rules of
/// options/parser/parse.go, apply.go and url.go that no Go test covers, one `@Test` per rule.
///
@Suite("imgproxy parity: presets, configuration, request paths, signatures, argument rules")
struct ImgproxyParserPathTests {
    /// Presets read and checked as the service reads them at start.
    struct Presets {
        let presets: [String: [String]]
    }

    func parser(_ definitions: String...) throws(ServiceURLError) -> Presets {
        let presets = try ProcessingOptions.presets(parsing: definitions)
        try ProcessingOptions.validate(presets: presets)
        return Presets(presets: presets)
    }

    /// A file holding `contents`, removed by the caller.
    func temporaryFile(_ contents: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("imago-presets-\(UUID().uuidString).txt")
        try Data(contents.utf8).write(to: url)
        return url
    }

    static let pair = URLSigner.KeyPair(key: Array("test-key".utf8), salt: Array("test-salt".utf8))
    static let pair2 = URLSigner.KeyPair(key: Array("test-key2".utf8), salt: Array("test-salt2".utf8))
    static let source = "http://x.test/a.png"
    static let encoded = Base64URL.encode(Array(source.utf8))

    // MARK: options/parser/presets_test.go

    @Test("options/parser/presets_test.go TestParsePreset")
    func parsePreset() throws {
        #expect(try parser("test=resize:fit:100:200/sharpen:2").presets == ["test": ["resize:fit:100:200", "sharpen:2"]])
    }

    @Test("options/parser/presets_test.go TestParsePresetInvalidString")
    func parsePresetInvalidString() {
        #expect(throws: ServiceURLError.self) { try parser("resize:fit:100:200/sharpen:2") }
    }

    @Test("options/parser/presets_test.go TestParsePresetEmptyName")
    func parsePresetEmptyName() {
        #expect(throws: ServiceURLError.self) { try parser("=resize:fit:100:200/sharpen:2") }
    }

    @Test("options/parser/presets_test.go TestParsePresetEmptyValue")
    func parsePresetEmptyValue() {
        #expect(throws: ServiceURLError.self) { try parser("test=") }
    }

    @Test("options/parser/presets_test.go TestParsePresetInvalidValue")
    func parsePresetInvalidValue() {
        // `blur` has no argument separator: it would start the source URL.
        #expect(throws: ServiceURLError.self) { try parser("test=resize:fit:100:200/sharpen:2/blur") }
    }

    @Test("options/parser/presets_test.go TestParsePresetEmptyString")
    func parsePresetEmptyString() throws {
        #expect(try parser("   ").presets.isEmpty)
    }

    @Test("options/parser/presets_test.go TestParsePresetComment")
    func parsePresetComment() throws {
        #expect(try parser("#  test=resize:fit:100:200/sharpen:2").presets.isEmpty)
    }

    @Test("options/parser/presets_test.go TestValidatePresets")
    func validatePresets() throws {
        #expect(try !parser("test=resize:fit:100:200/sharpen:2").presets.isEmpty)
    }

    @Test("options/parser/presets_test.go TestValidatePresetsInvalid")
    func validatePresetsInvalid() {
        // Every preset is applied once when the parser is made: a bad one fails at startup, not at use.
        #expect(throws: ServiceURLError.self) { try parser("test=resize:fit:-1:-2/sharpen:2") }
    }

    // MARK: options/parser/config_test.go

    @Test("handlers/path_test.go TestRedenormalizePathHTTPProtocol")
    func redenormalizePathHTTPProtocol() {
        let cases: [(name: String, input: String, expected: String)] = [
            ("HTTP", "plain/http:/example.com/image.jpg", "plain/http://example.com/image.jpg"),
            ("HTTPS", "plain/https:/example.com/image.jpg", "plain/https://example.com/image.jpg"),
            ("Local", "plain/local:/image.jpg", "plain/local:///image.jpg"),
            ("WithOptions", "/rs:fill:300:200/plain/http:/example.com/image.jpg", "rs:fill:300:200/plain/http://example.com/image.jpg"),
            ("NormalizedPath", "/plain/http://example.com/image.jpg", "plain/http://example.com/image.jpg"),
            ("ProtocolMissing", "/rs:fill:300:200/plain/example.com/image.jpg", "rs:fill:300:200/plain/example.com/image.jpg"),
            ("EmptyString", "", ""),
            ("SingleSlash", "/", ""),
            ("NoPlainPrefix", "/http:/example.com/image.jpg", "http:/example.com/image.jpg"),
            ("NoProtocol", "/plain/example.com/image.jpg", "plain/example.com/image.jpg"),
            ("EndsWithProtocol", "/plain/http:", "plain/http:"),
            ("OnlyProtocol", "/plain/http:/test", "plain/http://test")
        ]
        for c in cases {
            #expect(ServicePath.redenormalize(c.input) == c.expected, "\(c.name)")
        }
    }

    // MARK: security/signature_test.go (keys test-key/test-salt and test-key2/test-salt2, as raw bytes)

    @Test("security/signature_test.go TestVerifySignature")
    func verifySignature() throws {
        #expect(try URLSigner(keys: [Self.pair]).verify("oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", for: "asd"))
    }

    @Test("security/signature_test.go TestVerifySignatureTruncated")
    func verifySignatureTruncated() throws {
        #expect(try URLSigner(keys: [Self.pair], signatureSize: 8).verify("oWaL7QoW5Ts", for: "asd"))
    }

    @Test("security/signature_test.go TestVerifySignatureInvalid")
    func verifySignatureInvalid() throws {
        #expect(try !URLSigner(keys: [Self.pair]).verify("oWaL7QoW5Ts", for: "asd"))
    }

    @Test("security/signature_test.go TestVerifySignatureMultiplePairs")
    func verifySignatureMultiplePairs() throws {
        let signer = try URLSigner(keys: [Self.pair, Self.pair2])
        #expect(signer.verify("jYz1UZ7j1BCdSzH3pZhaYf0iuz0vusoOTdqJsUT6WXI", for: "asd"))
        #expect(signer.verify("oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", for: "asd"))
        #expect(!signer.verify("dtLwhdnPPis", for: "asd"))
    }

    @Test("options/parser/parse.go parseBool (no Go test): Go's ParseBool spellings; any other text is false, not an error")
    func booleanSpellings() {
        for yes in ["1", "t", "T", "TRUE", "true", "True"] {
            #expect(options("el:\(yes)")?.enlarge == true, "\(yes)")
        }
        for no in ["0", "f", "F", "FALSE", "false", "False", "", "yes", "on", "2", "tRuE", "tRUE"] {
            #expect(options("el:1/el:\(no)")?.enlarge == false, "\(no)")
            #expect(options("raw:\(no)")?.raw == false, "\(no)")
        }
        #expect(options("sm:")?.stripMetadata == false)
        #expect(options("ar:x")?.autoRotate == false)
    }

    @Test("options/parser/parse.go ensureMaxArgs (no Go test): arguments past an option's last one are an error")
    func extraArguments() {
        expectInvalid([
            "w:100:200", "h:1:2", "q:50:60", "rt:fit:fill", "el:1:1", "dpr:1:2", "f:png:jpg", "bl:1:2", "rot:90:90", "exp:1:2",
            "z:1:1:1", "fl:1:1:1", "pd:1:2:3:4:5", "t:1:fff:1:1:x", "ex:1:ce:0:0:x", "s:1:1:1:1:ce:0:0:x",
            "rs:fit:1:1:1:1:ce:0:0:x", "g:no:1:2:3", "g:sm:1:1", "g:sm:", "g:fp:0.5", "g:fp:0.5:0.5:0.5", "c:1:1:no:1:1:1",
            "bg:1:2", "bg:1:2:3:4", "cb:a:b", "fn:YQ:1:x"
        ])
        for segment in [
            "rs:fit:1:1:1:1:ce:0:0", "s:1:1:1:1:ce:0:0", "ex:1:ce:0:0", "t:1:fff:1:1", "pd:1:2:3:4", "g:no:1:2", "g:fp:0.5:0.5",
            "c:1:1:no:1:1", "fl:1:1", "z:1:1", "fn:YQ:1", "bg:1:2:3", "g:no:"
        ] {
            _ = options(segment)
        }
    }

    @Test("options/parser/apply.go (no Go test): an empty or missing argument leaves that part as it was")
    func emptyArguments() {
        let flip = options("fl::1")
        #expect(flip?.flipHorizontal == false && flip?.flipVertical == true)
        #expect(options("fl:1:1/fl:0")?.flipVertical == true)
        #expect(options("pd:")?.padding == nil)
        #expect(options("t::ff0000")?.trim == nil)
        #expect(options("c:100")?.crop == .init(width: 100, height: 0))
        #expect(options("ex:1:so/ex:1")?.extendGravity == .init(.south))
        // A gravity without offsets keeps the offsets set before it (only sm clears them).
        #expect(options("g:no:10:20/g:so")?.gravity == .init(.south, x: 10, y: 20))
        #expect(options("cb:1/cb:")?.cacheBuster == nil)
        #expect(options("fn:").map { ($0.filename ?? "").isEmpty } == true)
        // And where imgproxy reads the empty text as a value, and refuses it.
        expectInvalid(["c::300", "c:1:1:", "ex:1:", "z:2:", "skp:", "skp:png:", "fq::50", "fq:png:"])
        #expect(throws: ServiceURLError.unknownPreset("")) { try parsedOptions("pr:", presets: ["a": ["w:1"]]) }
    }

    @Test("vips/color RGBFromHex, applyBackgroundOption (no Go test): 3 or 6 hex digits, or three numbers 0-255")
    func colours() {
        #expect(options("bg:fff")?.background == RGBA8(r: 255, g: 255, b: 255))
        #expect(options("bg:FFDDEE")?.background == RGBA8(r: 255, g: 0xDD, b: 0xEE))
        #expect(options("t:10:ABC")?.trim?.color == RGBA8(r: 0xAA, g: 0xBB, b: 0xCC))
        expectInvalid(["bg:ff000080", "t:10:ff000080", "bg:ffff", "bg:+1:2:3", "bg:1:2:256", "bg:1:2:3:4", "bg:fff:1", "bg:0x1:2:3"])
    }

    @Test("options/parser/apply.go (no Go test): imgproxy's ranges, and Imago's own caps (listed in the README)")
    func ranges() {
        // Imago refuses sizes over 100000, a dpr over 8 and sigmas over 100 before any work;
        // imgproxy takes them and fails or runs long later.
        expectInvalid(["w:200000", "mh:100001", "dpr:9", "bl:150", "sh:150"])
        #expect(options("w:100000")?.width == 100_000 && options("dpr:8")?.dpr == 8 && options("bl:100")?.blur == 100)
        #expect(options("t:-5")?.trim?.threshold == -5)
        let limits = options("msr:0/msfs:-1/mrd:-1/maf:1", security: true)
        #expect(limits?.maxSourceResolution == 0 && limits?.maxSourceFileSize == -1 && limits?.maxResultDimension == -1)
        expectInvalid(["maf:0", "mafr:-1", "msr:-1"], security: true)
    }

    @Test("imagetype GetTypeByName (no Go test): imgproxy's twelve format names; Imago also takes its other formats' names, in any case")
    func formatNames() {
        let names: [String: ImageFormat] = [
            "jpeg": .jpeg, "jpg": .jpeg, "jxl": .jxl, "png": .png, "webp": .webp, "gif": .gif, "ico": .ico, "svg": .svg,
            "heic": .heic, "avif": .avif, "bmp": .bmp, "tiff": .tiff
        ]
        for (name, format) in names {
            #expect(options("f:\(name)")?.format == format, "\(name)")
            #expect(options("skp:\(name)")?.skipProcessing == [format], "\(name)")
            #expect(parsed("/plain/\(Self.source)@\(name)")?.options.format == format, "\(name)")
        }
        for (name, format) in [("JPG", ImageFormat.jpeg), ("tif", .tiff), ("jp2", .jp2), ("apng", .apng)] {
            #expect(options("f:\(name)")?.format == format, "\(name)")
        }
        for name in ["exe", "jpe g", "svgz2", ""] {
            #expect(throws: ServiceURLError.self, "\(name)") { try parsedOptions("f:\(name)") }
        }
    }

    @Test("options/parser/url.go DecodeURL, ParsePath (no Go test): padding, extensions, raw, expires 0, the basic URL format")
    func sourcesAndExtensions() {
        let split = String(Self.encoded.prefix(8)) + "=" + String(Self.encoded.dropFirst(8))
        #expect(throws: ServiceURLError.self) { try imgproxyParse("/\(split)") }
        #expect(parsed("/\(Self.encoded)==.png")?.source == Self.source)
        let noExtension = parsed("/\(Self.encoded).")
        #expect(noExtension?.source == Self.source && noExtension?.options.format == nil)
        let plainNoExtension = parsed("/plain/\(Self.source)@")
        #expect(plainNoExtension?.source == Self.source && plainNoExtension?.options.format == nil)
        #expect(throws: ServiceURLError.self) { try imgproxyParse("/plain/http://x.test/a@2x.png@webp") }
        #expect(throws: ServiceURLError.self) { try imgproxyParse("/\(Self.encoded).png.jpg") }
        let raw = parsed("/raw:1/plain/\(Self.source)@webp")
        #expect(raw?.options.raw == true && raw?.options.format == nil)
        #expect(parsed("/f:png/plain/\(Self.source)@webp")?.options.format == .webp)
        // 0 or less never expires.
        #expect(parsed("/exp:0/plain/\(Self.source)")?.options.expires == nil)
        #expect(parsed("/exp:-1/plain/\(Self.source)")?.options.expires == nil)
        #expect(throws: ServiceURLError.self) { try imgproxyParse("/fill/300/300/no/0/\(Self.encoded)") }
    }

    @Test("options/parser/parse.go parseGravity (no Go test): sm takes no offsets, fp exactly two fractions, re only for watermarks")
    func gravities() {
        expectInvalid([
            "g:sm:1:1", "g:fp", "g:fp:0.5", "g:fp:1.5:0", "g:re", "ex:1:sm", "exar:1:sm", "exar:1:re", "wm:0.5:sm", "wm:0.5:fp",
            "c:1:1:re", "g:up"
        ])
        #expect(options("wm:0.5:re")?.watermark?.position == .replicate)
        #expect(options("exar:1:fp:0.25:0.75")?.extendAspectRatioGravity == .init(.focusPoint, x: 0.25, y: 0.75))
    }

    @Test("options/parser/apply.go applyWatermarkOption (no Go test): opacity 0-1 required, empty parts kept, scale above 0, seven arguments")
    func watermarkArguments() {
        #expect(options("wm:0.5")?.watermark == .init(opacity: 0.5))
        #expect(options("watermark:1:no::5")?.watermark == .init(opacity: 1, position: .north, x: 0, y: 5))
        // A later watermark keeps the parts it leaves empty; Pro's sixth and seventh are ignored.
        #expect(options("wm:1:soea:3:4:0.2/wm:0.5")?.watermark == .init(opacity: 0.5, position: .southEast, x: 3, y: 4, scale: 0.2))
        #expect(options("wm:1:re:::0.5:x:y")?.watermark == .init(opacity: 1, position: .replicate, scale: 0.5))
        expectInvalid(["wm", "wm:", "wm:1.5", "wm:-0.1", "wm:x", "wm:1:ce:a", "wm:1:ce:0:0:0", "wm:1:ce:0:0:-1", "wm:1:ce:2:3:4:5:6:7"])
        // Opacity 0 draws nothing, and is not part of the canonical form.
        #expect(options("wm:0:soea")?.canonicalPath == "")
        #expect(options("wm:0.5:soea:10")?.canonicalPath == "watermark:0.5:soea:10:0:0")
    }

    // MARK: Helpers

    /// The options of `segments`, or `nil` after recording why they were refused.
    func options(_ segments: String, security: Bool = false) -> ProcessingOptions? {
        do {
            return try parsedOptions(segments, security: security)
        } catch {
            Issue.record("\(segments): \(error)")
            return nil
        }
    }

    /// ``imgproxyParse(_:presets:)``, or `nil` after recording why the path was refused.
    func parsed(_ path: String) -> (options: ProcessingOptions, source: String)? {
        do {
            return try imgproxyParse(path)
        } catch {
            Issue.record("\(path): \(error)")
            return nil
        }
    }

    /// Each of `segments` is refused.
    func expectInvalid(_ segments: [String], security: Bool = false) {
        for segment in segments {
            #expect(throws: ServiceURLError.self, "\(segment)") { try parsedOptions(segment, security: security) }
        }
    }
}
