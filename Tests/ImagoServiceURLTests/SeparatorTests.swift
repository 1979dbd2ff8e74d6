// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

/// imgproxy's URL syntax settings: `IMGPROXY_ARGUMENTS_SEPARATOR` and
/// `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`, with the cases of imgproxy's
/// `processing_options_test.go` and `url_test.go` they come from.
@Suite("URL syntax settings: the arguments separator, base64 sources with a file name")
struct SeparatorTests {
    static let source = "http://images.dev/lorem/ipsum.jpg"

    @Test("an arguments separator of ',': options, presets and pr read with it (TestParseWithArgumentsSeparator, TestParsePathPreset)")
    func comma() throws {
        let p = try ServicePath(parsing: "/sig/size,100,100,1/plain/\(Self.source)", argumentSeparator: ",")
        #expect(p.options == ["size,100,100,1"] && p.source == Self.source)
        let o = try ProcessingOptions(parsing: p.options, argumentSeparator: ",")
        #expect(o.width == 100 && o.height == 100 && o.enlarge)
        // Presets are written with the same separator, and `pr` lists names with it.
        let presets = try ProcessingOptions.presets(parsing: ["test1=resizing_type,fill", "test2=blur,0.2/quality,50"], argumentSeparator: ",")
        let named = try ServicePath(parsing: "/sig/preset,test1,test2/plain/\(Self.source)", argumentSeparator: ",")
        let withPresets = try ProcessingOptions(parsing: named.options, presets: presets, argumentSeparator: ",")
        #expect(withPresets.resizingType == .fill && withPresets.blur == 0.2 && withPresets.quality == 50)
        try ProcessingOptions.validate(presets: presets, argumentSeparator: ",")
        // A preset written with ':' is no option under ','.
        #expect(throws: ServiceURLError.self) { try ProcessingOptions.presets(parsing: ["a=rs:fit:10"], argumentSeparator: ",") }
        // Only presets: the first segment's names, split the same way (TestParsePathOnlyPresets).
        let only = try ServicePath(parsing: "/sig/test1,test2/plain/\(Self.source)@png", onlyPresets: true, argumentSeparator: ",")
        let onlyOptions = try ProcessingOptions(parsing: only.options, presets: presets, argumentSeparator: ",")
        #expect(only.options == ["preset,test1,test2"] && only.extensionName == "png")
        #expect(onlyOptions.blur == 0.2 && onlyOptions.quality == 50)
    }

    @Test("an argument may hold ':' under another separator; a ':' segment ends the options; several characters separate too")
    func otherSeparators() throws {
        let o = try ProcessingOptions(parsing: ["fn,a:b", "w,40"], argumentSeparator: ",")
        #expect(o.filename == "a:b" && o.width == 40)
        // `w:40` has no ',' in it: the source starts there, and it is no source.
        #expect(throws: ServiceURLError.self) { try ServicePath(parsing: "/sig/w:40/plain/\(Self.source)", argumentSeparator: ",") }
        let long = try ServicePath(parsing: "/sig/rs--fill--30--20/plain/\(Self.source)", argumentSeparator: "--")
        let fill = try ProcessingOptions(parsing: long.options, argumentSeparator: "--")
        #expect(fill.resizingType == .fill && fill.width == 30 && fill.height == 20)
        // The default reads as it always did.
        #expect(try ProcessingOptions(parsing: ["rs:fill:30:20"]).width == 30)
        #expect(try InfoOptions(parsing: ["pg,2", "s,0"], argumentSeparator: ",").sharedSegments == ["pg,2"])
    }

    @Test("a base64url source followed by a file name: the name is dropped, the format is the base64 part's (TestParseBase64URLWithFilename)")
    func base64WithFilename() throws {
        let encoded = Base64URL.encode(Array(Self.source.utf8))
        let p = try ServicePath(parsing: "/sig/w:10/\(encoded).png/puppy.jpg", base64URLIncludesFilename: true)
        #expect(p.source == Self.source && p.extensionName == "png" && p.options == ["w:10"])
        let unnamed = try ServicePath(parsing: "/sig/\(encoded)/puppy.png", base64URLIncludesFilename: true)
        #expect(unnamed.source == Self.source && unnamed.extensionName == nil)
        // One segment: nothing to drop.
        let single = try ServicePath(parsing: "/sig/\(encoded).webp", base64URLIncludesFilename: true)
        #expect(single.source == Self.source && single.extensionName == "webp")
        // A base64 split by '/' keeps all but the last segment.
        let split = String(encoded.prefix(8)) + "/" + String(encoded.dropFirst(8))
        let parts = try ServicePath(parsing: "/sig/\(split).jpg/name.png", base64URLIncludesFilename: true)
        #expect(parts.source == Self.source && parts.extensionName == "jpg")
        // Without the setting the name is part of the base64 (imgproxy: a second '.').
        #expect(throws: ServiceURLError.self) { try ServicePath(parsing: "/sig/\(encoded).png/puppy.jpg") }
        // A plain source is not affected.
        let plain = try ServicePath(parsing: "/sig/plain/\(Self.source)@png", base64URLIncludesFilename: true)
        #expect(plain.source == Self.source && plain.extensionName == "png")
    }
}
