// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

/// imgproxy's `Parser.ParsePath` (the path after the signature segment) with its default
/// configuration: what `ImageService.handle` does after the signature check (the path's shape,
/// the options, the extension as the format unless `raw`, the expiry).
func imgproxyParse(_ path: String, presets: [String: [String]] = [:]) throws(ServiceURLError) -> (options: ProcessingOptions, source: String) {
    let parsed = try ServicePath(parsing: "/_" + path)
    var options = try ProcessingOptions(parsing: parsed.options, presets: presets)
    if let ext = parsed.extensionName, !options.raw {
        guard let format = ImageFormat(serviceExtension: ext) else {
            throw .invalidArgument(option: "extension", reason: "'\(ext)' is not an image format")
        }
        options.format = format
    }
    if let expires = options.expires, expires < Int64(Date().timeIntervalSince1970) { throw .expired(at: expires) }
    return (options, parsed.source)
}

/// imgproxy v4's options/parser/processing_options_test.go, one `@Test` per Go test function
/// whose options Imago has (the tests of imgproxy's parser settings, client features and
/// watermark wait for those features).
@Suite("imgproxy parity: options/parser/processing_options_test.go")
struct ImgproxyParserTests {
    static let plainSource = "http://images.dev/lorem/ipsum.jpg"
    static let querySource = "http://images.dev/lorem/ipsum.jpg?param=value"

    func base64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    // MARK: Sources and extensions

    @Test("options/parser/processing_options_test.go TestParseBase64URL")
    func parseBase64URL() throws {
        let (o, source) = try imgproxyParse("/size:100:100/\(base64(Self.querySource)).png")
        #expect(source == Self.querySource)
        #expect(o.format == .png)
    }

    @Test("options/parser/processing_options_test.go TestParseBase64URLWithoutExtension")
    func parseBase64URLWithoutExtension() throws {
        let (o, source) = try imgproxyParse("/size:100:100/\(base64(Self.querySource))")
        #expect(source == Self.querySource)
        #expect(o.format == nil)
    }

    @Test("options/parser/processing_options_test.go TestParsePlainURL")
    func parsePlainURL() throws {
        let (o, source) = try imgproxyParse("/size:100:100/plain/\(Self.plainSource)@png")
        #expect(source == Self.plainSource)
        #expect(o.format == .png)
    }

    @Test("options/parser/processing_options_test.go TestParsePlainURLWithoutExtension")
    func parsePlainURLWithoutExtension() throws {
        let (o, source) = try imgproxyParse("/size:100:100/plain/\(Self.plainSource)")
        #expect(source == Self.plainSource)
        #expect(o.format == nil)
    }

    @Test("options/parser/processing_options_test.go TestParsePlainURLEscaped")
    func parsePlainURLEscaped() throws {
        // Go's url.PathEscape of the source: / ; , ? escaped, : = @ & + $ kept.
        let (o, source) = try imgproxyParse("/size:100:100/plain/http:%2F%2Fimages.dev%2Florem%2Fipsum.jpg%3Fparam=value@png")
        #expect(source == Self.querySource)
        #expect(o.format == .png)
    }

    @Test("options/parser/processing_options_test.go TestParsePathFormat")
    func parsePathFormat() throws {
        #expect(try imgproxyParse("/format:webp/plain/http://images.dev/lorem/ipsum.jpg").options.format == .webp)
    }

    @Test("options/parser/processing_options_test.go TestParsePathResize")
    func parsePathResize() throws {
        let o = try imgproxyParse("/resize:fill:100:200:1/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.resizingType == .fill)
        #expect(o.width == 100)
        #expect(o.height == 200)
        #expect(o.enlarge)
    }

    @Test("options/parser/processing_options_test.go TestParsePathResizingType")
    func parsePathResizingType() throws {
        #expect(try imgproxyParse("/resizing_type:fill/plain/http://images.dev/lorem/ipsum.jpg").options.resizingType == .fill)
    }

    @Test("options/parser/processing_options_test.go TestParsePathSize")
    func parsePathSize() throws {
        let o = try imgproxyParse("/size:100:200:1/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.width == 100)
        #expect(o.height == 200)
        #expect(o.enlarge)
    }

    @Test("options/parser/processing_options_test.go TestParsePathWidth")
    func parsePathWidth() throws {
        #expect(try imgproxyParse("/width:100/plain/http://images.dev/lorem/ipsum.jpg").options.width == 100)
    }

    @Test("options/parser/processing_options_test.go TestParsePathHeight")
    func parsePathHeight() throws {
        #expect(try imgproxyParse("/height:100/plain/http://images.dev/lorem/ipsum.jpg").options.height == 100)
    }

    @Test("options/parser/processing_options_test.go TestParsePathEnlarge")
    func parsePathEnlarge() throws {
        #expect(try imgproxyParse("/enlarge:1/plain/http://images.dev/lorem/ipsum.jpg").options.enlarge)
    }

    @Test("options/parser/processing_options_test.go TestParsePathExtend")
    func parsePathExtend() throws {
        let o = try imgproxyParse("/extend:1:so:10:20/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.extend)
        #expect(o.extendGravity == .init(.south, x: 10, y: 20))
    }

    @Test("options/parser/processing_options_test.go TestParsePathExtendSmartGravity")
    func parsePathExtendSmartGravity() {
        let error = #expect(throws: ServiceURLError.self) { try imgproxyParse("/extend:1:sm/plain/http://images.dev/lorem/ipsum.jpg") }
        #expect(error?.argumentOption == "extend")
    }

    @Test("options/parser/processing_options_test.go TestParsePathExtendReplicateGravity")
    func parsePathExtendReplicateGravity() {
        let error = #expect(throws: ServiceURLError.self) { try imgproxyParse("/extend:1:re/plain/http://images.dev/lorem/ipsum.jpg") }
        #expect(error?.argumentOption == "extend")
    }

    @Test("options/parser/processing_options_test.go TestParsePathGravity")
    func parsePathGravity() throws {
        #expect(try imgproxyParse("/gravity:soea/plain/http://images.dev/lorem/ipsum.jpg").options.gravity == .init(.southEast))
    }

    @Test("options/parser/processing_options_test.go TestParsePathGravityFocusPoint")
    func parsePathGravityFocusPoint() throws {
        let o = try imgproxyParse("/gravity:fp:0.5:0.75/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.gravity == .init(.focusPoint, x: 0.5, y: 0.75))
    }

    @Test("options/parser/processing_options_test.go TestParsePathGravityReplicate")
    func parsePathGravityReplicate() {
        let error = #expect(throws: ServiceURLError.self) { try imgproxyParse("/gravity:re/plain/http://images.dev/lorem/ipsum.jpg") }
        #expect(error?.argumentOption == "gravity")
    }

    @Test("options/parser/processing_options_test.go TestParsePathCrop")
    func parsePathCrop() throws {
        // No crop gravity: imgproxy's GravityUnknown with zero offsets, Imago's nil (the main gravity).
        let o = try imgproxyParse("/crop:100:200/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.crop == .init(width: 100, height: 200, gravity: nil))
    }

    @Test("options/parser/processing_options_test.go TestParsePathCropGravity")
    func parsePathCropGravity() throws {
        let o = try imgproxyParse("/crop:100:200:nowe:10:20/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.crop == .init(width: 100, height: 200, gravity: .init(.northWest, x: 10, y: 20)))
    }

    @Test("options/parser/processing_options_test.go TestParsePathCropGravityReplicate")
    func parsePathCropGravityReplicate() {
        let error = #expect(throws: ServiceURLError.self) { try imgproxyParse("/crop:100:200:re/plain/http://images.dev/lorem/ipsum.jpg") }
        #expect(error?.argumentOption == "crop")
    }

    @Test("options/parser/processing_options_test.go TestParsePathQuality")
    func parsePathQuality() throws {
        #expect(try imgproxyParse("/quality:55/plain/http://images.dev/lorem/ipsum.jpg").options.quality == 55)
    }

    @Test("options/parser/processing_options_test.go TestParsePathBackground")
    func parsePathBackground() throws {
        let o = try imgproxyParse("/background:128:129:130/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.background == RGBA8(r: 128, g: 129, b: 130))
    }

    @Test("options/parser/processing_options_test.go TestParsePathBackgroundHex")
    func parsePathBackgroundHex() throws {
        let o = try imgproxyParse("/background:ffddee/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.background == RGBA8(r: 0xFF, g: 0xDD, b: 0xEE))
    }

    @Test("options/parser/processing_options_test.go TestParsePathBackgroundDisable")
    func parsePathBackgroundDisable() throws {
        #expect(try imgproxyParse("/background:fff/background:/plain/http://images.dev/lorem/ipsum.jpg").options.background == nil)
    }

    @Test("options/parser/processing_options_test.go TestParsePathBlur")
    func parsePathBlur() throws {
        #expect(try imgproxyParse("/blur:0.2/plain/http://images.dev/lorem/ipsum.jpg").options.blur == 0.2)
    }

    @Test("options/parser/processing_options_test.go TestParsePathSharpen")
    func parsePathSharpen() throws {
        #expect(try imgproxyParse("/sharpen:0.2/plain/http://images.dev/lorem/ipsum.jpg").options.sharpen == 0.2)
    }

    @Test("options/parser/processing_options_test.go TestParsePathDpr")
    func parsePathDpr() throws {
        #expect(try imgproxyParse("/dpr:2/plain/http://images.dev/lorem/ipsum.jpg").options.dpr == 2)
    }

    @Test("options/parser/processing_options_test.go TestParsePathWatermark")
    func parsePathWatermark() throws {
        let o = try imgproxyParse("/watermark:0.5:soea:10:20:0.6/plain/http://images.dev/lorem/ipsum.jpg").options
        #expect(o.watermark == .init(opacity: 0.5, position: .southEast, x: 10, y: 20, scale: 0.6))
    }

    @Test("options/parser/processing_options_test.go TestParsePathCachebuster")
    func parsePathCachebuster() throws {
        #expect(try imgproxyParse("/cachebuster:123/plain/http://images.dev/lorem/ipsum.jpg").options.cacheBuster == "123")
    }

    @Test("options/parser/processing_options_test.go TestParsePathStripMetadata")
    func parsePathStripMetadata() throws {
        #expect(try imgproxyParse("/strip_metadata:true/plain/http://images.dev/lorem/ipsum.jpg").options.stripMetadata == true)
    }

    @Test("options/parser/processing_options_test.go TestParsePathPreserveHDR")
    func parsePathPreserveHDR() throws {
        #expect(try imgproxyParse("/ph:1/plain/http://images.dev/lorem/ipsum.jpg").options.preserveHDR == true)
    }

    // MARK: Client features (Accept and client hints)

    @Test("options/parser/processing_options_test.go TestParseSkipProcessing")
    func parseSkipProcessing() throws {
        #expect(try imgproxyParse("/skp:jpg:png/plain/http://images.dev/lorem/ipsum.jpg").options.skipProcessing == [.jpeg, .png])
    }

    @Test("options/parser/processing_options_test.go TestParseSkipProcessingInvalid")
    func parseSkipProcessingInvalid() {
        let error = #expect(throws: ServiceURLError.self) { try imgproxyParse("/skp:jpg:png:bad_format/plain/http://images.dev/lorem/ipsum.jpg") }
        #expect(error?.argumentOption == "skp")
        #expect(error?.description.contains("bad_format") == true)
    }

    @Test("options/parser/processing_options_test.go TestParseExpires")
    func parseExpires() throws {
        #expect(try imgproxyParse("/exp:32503669200/plain/http://images.dev/lorem/ipsum.jpg").options.expires == 32_503_669_200)
    }

}
