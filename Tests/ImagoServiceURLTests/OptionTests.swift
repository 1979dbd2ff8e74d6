// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

@Suite("Processing options: imgproxy's names, short forms and defaults")
struct OptionTests {
    func parse(_ segments: String, presets: [String: [String]] = [:], security: Bool = false) throws -> ProcessingOptions {
        try ProcessingOptions(parsing: segments.split(separator: "/").map(String.init), presets: presets, allowSecurityOptions: security)
    }

    @Test("resize and size meta-options, and each of their parts on its own")
    func sizing() throws {
        let a = try parse("rs:fill:300:200:1:1:so")
        #expect(a.resizingType == .fill && a.width == 300 && a.height == 200 && a.enlarge && a.extend && a.extendGravity == .init(.south))
        let b = try parse("resize:fill-down::200")
        #expect(b.resizingType == .fillDown && b.width == 0 && b.height == 200 && !b.enlarge)
        let c = try parse("s:10:20:t/rt:force/w:30/mw:5/mh:6/z:2/dpr:2/el:0/ex:1:nowe:3:4")
        #expect(c.width == 30 && c.height == 20 && c.resizingType == .force && c.minWidth == 5 && c.minHeight == 6)
        #expect(c.zoomX == 2 && c.zoomY == 2 && c.dpr == 2 && !c.enlarge && c.extend && c.extendGravity == .init(.northWest, x: 3, y: 4))
        #expect(try parse("zoom:1.5:0.5").zoomY == 0.5 && parse("width:7/height:8").height == 8)
        #expect(try parse("min-width:9/min-height:10").minHeight == 10 && parse("rt:auto").resizingType == .auto)
    }

    @Test("gravity, crop, trim, padding")
    func placement() throws {
        #expect(try parse("g:sm").gravity == .init(.smart))
        #expect(try parse("gravity:fp:0.25:0.75").gravity == .init(.focusPoint, x: 0.25, y: 0.75))
        #expect(try parse("g:soea:10:0.1").gravity == .init(.southEast, x: 10, y: 0.1))
        let crop = try parse("c:100:0.5:no").crop
        #expect(crop == .init(width: 100, height: 0.5, gravity: .init(.north)))
        #expect(try parse("crop:10:20").crop?.gravity == nil)
        #expect(try parse("t:10:ff00ff:1:0").trim == .init(threshold: 10, color: RGBA8(r: 255, g: 0, b: 255), equalHorizontal: true))
        #expect(try parse("pd:10").padding == .init(top: 10, right: 10, bottom: 10, left: 10))
        #expect(try parse("padding:1:2").padding == .init(top: 1, right: 2, bottom: 1, left: 2))
        #expect(try parse("padding:1:2:3").padding == .init(top: 1, right: 2, bottom: 3, left: 2))
        #expect(try parse("padding:1:2:3:4").padding == .init(top: 1, right: 2, bottom: 3, left: 4))
        #expect(try parse("pd:0").padding == nil)
    }

    @Test("object gravity: obj and objw, their weights, canonical forms, refusals")
    func objectGravity() throws {
        let obj = try parse("g:obj:face")
        #expect(obj.gravity.kind == .objects && obj.gravity.objectWeights == ["face": 1])
        #expect(try parse("g:obj").gravity.objectWeights.isEmpty)
        let weighted = try parse("g:objw:all:2:face:3")
        #expect(weighted.gravity.objectWeights == ["all": 2, "face": 3])
        #expect(weighted.canonicalPath.contains("objw:all:2:face:3"))
        #expect(try parse("g:objw:face:1").canonicalPath == obj.canonicalPath)
        #expect(try parse("g:obj:face:cat").canonicalPath == parse("g:obj:cat:face").canonicalPath)
        #expect(try parse("c:100:100:obj:face").crop?.gravity?.kind == .objects)
        for bad in ["g:objw:face", "g:objw", "g:obj:a b", "g:objw:face:x", "g:objw:face:2000", "ex:1:obj", "exar:1:objw:face:1"] {
            #expect(throws: ServiceURLError.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test("orientation, filters, background")
    func effects() throws {
        let o = try parse("ar:0/rot:-90/fl:1:0/bg:ff8000/bl:2.5/sh:0.7/pix:8")
        #expect(o.autoRotate == false && o.rotate == 270 && o.flipHorizontal && !o.flipVertical)
        #expect(o.background == RGBA8(r: 255, g: 128, b: 0) && o.blur == 2.5 && o.sharpen == 0.7 && o.pixelate == 8)
        #expect(try parse("background:10:20:30").background == RGBA8(r: 10, g: 20, b: 30))
        #expect(try parse("bg:fff").background == RGBA8(r: 255, g: 255, b: 255))
        #expect(throws: ServiceURLError.self) { try parse("bg:ff000080") }
        #expect(try parse("bg:ff0000/bg:").background == nil)
        #expect(try parse("rotate:450").rotate == 90)
    }

    @Test("encoding, metadata, output and caching options")
    func output() throws {
        let o = try parse("q:70/fq:webp:60:avif:50/mb:100000/f:webp/sm:1/kcr:0/scp:t/cb:v2/exp:1900000000/fn:my%20photo/att:1/pg:2/skp:gif:svg/raw:1")
        #expect(o.quality == 70 && o.formatQuality == [.webp: 60, .avif: 50] && o.maxBytes == 100_000 && o.format == .webp)
        #expect(o.stripMetadata == true && o.keepCopyright == false && o.stripColorProfile == true)
        #expect(o.cacheBuster == "v2" && o.expires == 1_900_000_000 && o.filename == "my photo" && o.returnAttachment == true)
        #expect(o.page == 2 && o.skipProcessing == [.gif, .svg] && o.raw)
        #expect(try parse("ext:png").format == .png && parse("format:jpeg").format == .jpeg && parse("format:jpg").format == .jpeg)
        #expect(try parse("fn:" + Base64URL.encode(Array("ünïcode.png".utf8)) + ":1").filename == "ünïcode.png")
    }

    @Test("presets apply in place, the default preset first; a preset already in use is skipped, as imgproxy does")
    func presets() throws {
        let presets = ["default": ["q:80"], "thumb": ["rs:fill:100:100", "g:sm"], "loop": ["pr:loop"], "both": ["pr:thumb", "f:webp"]]
        let o = try parse("pr:thumb/w:120", presets: presets)
        #expect(o.quality == 80 && o.resizingType == .fill && o.width == 120 && o.height == 100 && o.gravity == .init(.smart))
        #expect(try parse("preset:both", presets: presets).format == .webp)
        #expect(throws: ServiceURLError.unknownPreset("nope")) { try parse("pr:nope", presets: presets) }
        #expect(try parse("pr:loop/w:5", presets: presets).width == 5)
        let cycle = ["a": ["pr:b", "w:1"], "b": ["pr:a", "h:2"]]
        let c = try parse("pr:a", presets: cycle)
        #expect(c.width == 1 && c.height == 2)
    }

    @Test("security options need the service's permission")
    func security() throws {
        #expect(throws: ServiceURLError.securityOptionNotAllowed("msr")) { try parse("msr:100") }
        let o = try parse("max_src_resolution:12.5/msfs:1000/maf:10/mrd:2000", security: true)
        #expect(o.maxSourceResolution == 12.5 && o.maxSourceFileSize == 1000 && o.maxAnimationFrames == 10 && o.maxResultDimension == 2000)
    }

    @Test("unknown options are named; bad arguments say why")
    func errors() {
        #expect(throws: ServiceURLError.unknownOption("frobnicate")) { try parse("frobnicate:1") }
        for bad in [
            "rs:squish:1:1", "w:-1", "w:abc", "w:200000", "w:1:2", "g:up", "g:fp:2:0", "rot:45", "bg:ggg", "bg:1:2:300",
            "q:101", "fq:webp", "f:exe", "z:0", "dpr:9", "bl:-1", "exp:soon", "ex:1:sm", "w", "fn:%zz", "fn:!!:1", "pd:1:2:3:4:5",
            "bg:ff000080", "g:sm:1:1"
        ] {
            #expect(throws: ServiceURLError.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test("the canonical form: one order, full names, defaults left out, equal for equal requests")
    func canonical() throws {
        #expect(try parse("rs:fill:300").canonicalPath == parse("w:300/rt:fill").canonicalPath)
        #expect(
            try parse("rs:fill:300:200/g:sm/q:80/f:webp").canonicalPath
                == "resizing_type:fill/width:300/height:200/gravity:sm/quality:80/format:webp")
        #expect(ProcessingOptions().canonicalPath.isEmpty)
        // Every option survives a round trip through its canonical form.
        let all = try parse(
            "rs:fill-down:10:20:1:1:so:2:3/mw:4/mh:5/z:1.5:2/dpr:2/g:fp:0.3:0.6/c:10:0.5:we/t:5:00ff00:1:1/pd:1:2:3:4"
                + "/ar:0/rot:180/fl:0:1/bg:010203/bl:1.5/sh:2/pix:3/q:50/fq:png:9/mb:99/sm:0/kcr:1/scp:0/cb:x/exp:5"
                + "/fn:a%20b/att:0/pg:1/skp:gif/raw:1/msr:3/msfs:4/maf:5/mrd:6/f:avif", security: true)
        let again = try ProcessingOptions(parsing: all.canonicalSegments, allowSecurityOptions: true)
        #expect(again == all)
    }
}

@Suite("The URL builder")
struct BuilderTests {
    @Test("built URLs parse back to the same source, options and format, and verify")
    func roundTrip() throws {
        let signer = try URLSigner(
            keyList: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
            saltList: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")
        var options = ProcessingOptions()
        options.resizingType = .fill
        options.width = 300
        options.height = 300
        let source = "https://cdn.example.com/photos/ü 1.jpg?size=large&v=2"
        for encoding in [ServiceURLBuilder.SourceEncoding.base64, .plain] {
            let builder = ServiceURLBuilder(base: URL(string: "https://img.example.com/")!, signer: signer, sourceEncoding: encoding)
            let path = builder.path(for: source, options: options, format: .webp)
            let parsed = try ServicePath(parsing: path)
            #expect(parsed.source == source && parsed.extensionName == "webp", "\(encoding): \(path)")
            #expect(try ProcessingOptions(parsing: parsed.options) == options)
            #expect(signer.verify(parsed.signature, for: parsed.signedPath))
            let info = try ServicePath(parsing: builder.path(for: source, options: options, info: true))
            #expect(info.isInfo && info.extensionName == nil)
        }
        let unsigned = ServiceURLBuilder(base: URL(string: "http://localhost:8080")!)
        #expect(
            unsigned.url(for: URL(string: "http://x.test/a.png")!, options: ProcessingOptions()).absoluteString
                == "http://localhost:8080/_/aHR0cDovL3gudGVz/dC9hLnBuZw")
        // imgproxy's example, built: the same path and signature as its docs.
        let plain = ServiceURLBuilder(base: URL(string: "http://imgproxy.example.com")!, signer: signer, sourceEncoding: .plain)
        var fit = ProcessingOptions()
        fit.width = 300
        fit.height = 300
        let p = plain.path(for: "http://img.example.com/pretty/image.jpg", options: fit)
        #expect(p.hasSuffix("/width:300/height:300/plain/http://img.example.com/pretty/image.jpg"))
    }
}
