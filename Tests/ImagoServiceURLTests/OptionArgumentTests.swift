// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

@Suite("Processing options: each option's arguments, defaults and limits")
struct OptionArgumentTests {
    @Test("every resizing type by its imgproxy name, in rt, resizing_type and rs; names are case-sensitive")
    func resizingTypes() throws {
        #expect(ProcessingOptions.ResizingType.allCases.map(\.rawValue) == ["fit", "fill", "fill-down", "force", "auto"])
        for type in ProcessingOptions.ResizingType.allCases {
            #expect(try parsedOptions("rt:\(type.rawValue)").resizingType == type)
            #expect(try parsedOptions("resizing_type:\(type.rawValue)").resizingType == type)
            #expect(try parsedOptions("rs:\(type.rawValue)").resizingType == type)
        }
        #expect(throws: ServiceURLError.self) { try parsedOptions("rt:FILL") }
        #expect(throws: ServiceURLError.self) { try parsedOptions("rt:") }
        #expect(throws: ServiceURLError.self) { try ProcessingOptions(parsing: ["resizing_type"]) }
        // One value: imgproxy refuses a second.
        #expect(throws: ServiceURLError.self) { try parsedOptions("rt:fill:fit") }
    }

    @Test("resize and size change only what they name; empty arguments keep what came before")
    func resizeKeepsTheRest() throws {
        let a = try parsedOptions("w:100/h:50/el:1/rs:fill::80")
        #expect(a.resizingType == .fill && a.width == 100 && a.height == 80 && a.enlarge)
        let b = try parsedOptions("rs:force:10:20/rs:::30")
        #expect(b.resizingType == .force && b.width == 10 && b.height == 30)
        let c = try parsedOptions("s:300")
        #expect(c.width == 300 && c.height == 0 && c.resizingType == .fit && !c.enlarge && !c.extend)
        let d = try parsedOptions("size:1:2:1:1:soea:5:6")
        #expect(d.enlarge && d.extend && d.extendGravity == .init(.southEast, x: 5, y: 6))
        #expect(try parsedOptions("rs:fit:1:1:0:1:fp:0.1:0.9").extendGravity == .init(.focusPoint, x: 0.1, y: 0.9))
        #expect(try parsedOptions("w:300/w:0").width == 0)
        #expect(try parsedOptions("w:100000/h:100000").height == 100_000)
        #expect(try parsedOptions("min_width:7/min_height:8").minWidth == 7)
        #expect(throws: ServiceURLError.invalidArgument(option: "h", reason: "100001 pixels is more than 100000")) {
            try parsedOptions("h:100001")
        }
        #expect(throws: ServiceURLError.invalidArgument(option: "w", reason: "-5 is negative")) { try parsedOptions("w:-5") }
        #expect(throws: ServiceURLError.invalidArgument(option: "width", reason: "'1.5' is not an integer")) {
            try parsedOptions("width:1.5")
        }
    }

    @Test("zoom sets both axes from one number; dpr is above 0 and at most 8")
    func zoomAndDPR() throws {
        let one = try parsedOptions("z:0.5")
        #expect(one.zoomX == 0.5 && one.zoomY == 0.5)
        let two = try parsedOptions("zoom:2:3")
        #expect(two.zoomX == 2 && two.zoomY == 3)
        #expect(try parsedOptions("dpr:8").dpr == 8 && parsedOptions("dpr:1.5").dpr == 1.5)
        #expect(throws: ServiceURLError.invalidArgument(option: "dpr", reason: "dpr 8.5 is over 8")) { try parsedOptions("dpr:8.5") }
    }

    @Test("booleans are 1, t, true, 0, f and false, in any case")
    func booleans() throws {
        for yes in ["1", "t", "true", "T", "TRUE", "True"] {
            #expect(try parsedOptions("el:\(yes)").enlarge, "\(yes)")
            #expect(try parsedOptions("raw:\(yes)").raw, "\(yes)")
        }
        for no in ["0", "f", "false", "F", "FALSE"] {
            #expect(try parsedOptions("el:1/el:\(no)").enlarge == false, "\(no)")
            #expect(try parsedOptions("att:\(no)").returnAttachment == false, "\(no)")
        }
    }

    @Test("extend takes an optional gravity, without sm; a later extend without one keeps the earlier gravity")
    func extend() throws {
        let plain = try parsedOptions("ex:1")
        #expect(plain.extend && plain.extendGravity == .center)
        #expect(try parsedOptions("extend:1:we:10").extendGravity == .init(.west, x: 10, y: 0))
        #expect(try parsedOptions("ex:1:so/ex:1").extendGravity == .init(.south))
        #expect(try parsedOptions("ex:1:fp:0.25:0.75").extendGravity == .init(.focusPoint, x: 0.25, y: 0.75))
        #expect(throws: ServiceURLError.self) { try parsedOptions("ex:1:sm") }
        #expect(throws: ServiceURLError.self) { try parsedOptions("ex:1:no:1:2:3") }
    }

    @Test("every gravity by its imgproxy abbreviation, with offsets; a focus point needs its pair of fractions; sm takes none")
    func gravity() throws {
        for kind in ProcessingOptions.Gravity.Kind.allCases where kind != .focusPoint && kind != .smart && kind != .objects {
            #expect(try parsedOptions("g:\(kind.rawValue)").gravity == .init(kind))
            #expect(try parsedOptions("gravity:\(kind.rawValue):5:0.5").gravity == .init(kind, x: 5, y: 0.5))
        }
        #expect(try parsedOptions("g:ce").gravity == .center)
        #expect(try parsedOptions("g:no:-10:-0.5").gravity == .init(.north, x: -10, y: -0.5))
        #expect(throws: ServiceURLError.self) { try parsedOptions("g:fp") }
        #expect(throws: ServiceURLError.self) { try parsedOptions("g:fp:0.5") }
        #expect(ProcessingOptions.Gravity(.focusPoint) == .init(.focusPoint, x: 0.5, y: 0.5))
        #expect(try parsedOptions("g:fp:0:1").gravity == .init(.focusPoint, x: 0, y: 1))
        #expect(throws: ServiceURLError.self) { try parsedOptions("g:sm:3:4") }
        #expect(throws: ServiceURLError.self) { try parsedOptions("g:") }
        #expect(try parsedOptions("g:sm/g:no").gravity == .init(.north))
        // Offsets left out keep the earlier ones (imgproxy keeps them per key); sm clears them.
        #expect(try parsedOptions("g:no:10:20/g:so").gravity == .init(.south, x: 10, y: 20))
        #expect(try parsedOptions("g:no:10:20/g:sm/g:so").gravity == .init(.south))
    }

    @Test("crop: sizes in pixels or fractions, its own gravity (sm allowed), separate from the main one")
    func crop() throws {
        #expect(try parsedOptions("c:0.5:0.25").crop == .init(width: 0.5, height: 0.25))
        #expect(throws: ServiceURLError.self) { try parsedOptions("crop::300") }
        #expect(try parsedOptions("crop:0:300").crop == .init(width: 0, height: 300))
        #expect(try parsedOptions("c:100").crop == .init(width: 100, height: 0))
        #expect(try parsedOptions("c:100:100:sm").crop?.gravity == .init(.smart))
        #expect(try parsedOptions("c:100:100:fp:0.2:0.8").crop?.gravity == .init(.focusPoint, x: 0.2, y: 0.8))
        #expect(try parsedOptions("c:100:100:soea:10:20").crop?.gravity == .init(.southEast, x: 10, y: 20))
        let both = try parsedOptions("g:no/c:10:10:so")
        #expect(both.gravity == .init(.north) && both.crop?.gravity == .init(.south))
    }

    @Test("trim: a threshold (an empty one turns trim off), then an optional colour (3 or 6 hex digits) and the equal-sides flags")
    func trim() throws {
        #expect(try parsedOptions("t:10").trim == .init(threshold: 10))
        #expect(try parsedOptions("trim:0:abc").trim == .init(threshold: 0, color: RGBA8(r: 0xAA, g: 0xBB, b: 0xCC)))
        #expect(try parsedOptions("t:5::0:1").trim == .init(threshold: 5, equalVertical: true))
        #expect(throws: ServiceURLError.self) { try parsedOptions("t:2.5:ff000080") }
        #expect(try parsedOptions("t:10/t::ff0000").trim == nil)
        #expect(try parsedOptions("t:-1").trim == .init(threshold: -1))
    }

    @Test("padding: CSS order; an omitted side copies its opposite; all zero is none")
    func padding() throws {
        #expect(try parsedOptions("pd:1::3").padding == .init(top: 1, right: 1, bottom: 3, left: 1))
        #expect(try parsedOptions("pd:0:5").padding == .init(top: 0, right: 5, bottom: 0, left: 5))
        #expect(try parsedOptions("padding:10/pd:0:0:0:0").padding == nil)
        #expect(try parsedOptions("pd:").padding == nil)
        #expect(try parsedOptions("pd:7/pd:").padding == .init(top: 7, right: 7, bottom: 7, left: 7))
        #expect(throws: ServiceURLError.self) { try parsedOptions("pd:1:2:3:4:5") }
    }

    @Test("rotation is normalised to 0, 90, 180 or 270; flip names each axis")
    func rotateAndFlip() throws {
        let angles: [(String, Int)] = [
            ("0", 0), ("90", 90), ("180", 180), ("270", 270), ("360", 0),
            ("-90", 270), ("-180", 180), ("720", 0), ("-450", 270)
        ]
        for (text, degrees) in angles {
            #expect(try parsedOptions("rot:\(text)").rotate == degrees, "\(text)")
        }
        #expect(throws: ServiceURLError.invalidArgument(option: "rot", reason: "45 is not a multiple of 90")) { try parsedOptions("rot:45") }
        let h = try parsedOptions("fl:1")
        #expect(h.flipHorizontal && !h.flipVertical)
        let v = try parsedOptions("flip:0:1")
        #expect(!v.flipHorizontal && v.flipVertical)
        // A side left out keeps what came before; an empty first argument too (imgproxy's own tests send `fl::1`).
        let kept = try parsedOptions("fl:1:1/fl:0")
        #expect(!kept.flipHorizontal && kept.flipVertical)
        let vertical = try parsedOptions("fl::1")
        #expect(!vertical.flipHorizontal && vertical.flipVertical)
    }

    @Test("background: hex in either case or r:g:b; no argument turns it off")
    func background() throws {
        #expect(try parsedOptions("bg:ABCDEF").background == RGBA8(r: 0xAB, g: 0xCD, b: 0xEF))
        #expect(try parsedOptions("bg:0:0:0").background == RGBA8(r: 0, g: 0, b: 0))
        #expect(try parsedOptions("background:255:128:1").background == RGBA8(r: 255, g: 128, b: 1))
        // imgproxy's colours have no alpha: eight digits, or a channel with a sign, are refused.
        #expect(throws: ServiceURLError.self) { try parsedOptions("bg:ff00ff00") }
        #expect(throws: ServiceURLError.self) { try parsedOptions("bg:+1:2:3") }
        #expect(try ProcessingOptions(parsing: ["bg:ff0000", "bg"]).background == nil)
        #expect(ProcessingOptions().background == nil)
    }

    @Test("blur, sharpen and pixelate: 0 is off; sigmas up to 100")
    func filters() throws {
        let o = try parsedOptions("bl:100/sh:0.25/pix:1")
        #expect(o.blur == 100 && o.sharpen == 0.25 && o.pixelate == 1)
        let off = try parsedOptions("bl:3/blur:0/sh:1/sharpen:0/pix:4/pixelate:0")
        #expect(off.blur == 0 && off.sharpen == 0 && off.pixelate == 0)
        #expect(throws: ServiceURLError.invalidArgument(option: "bl", reason: "sigma 101.0 is over 100")) { try parsedOptions("bl:101") }
    }

    @Test("quality 0-100 (0: the service's); format_quality pairs accumulate; max_bytes")
    func quality() throws {
        #expect(try parsedOptions("q:1").quality == 1 && parsedOptions("quality:100").quality == 100)
        #expect(try parsedOptions("q:50/q:0").quality == 0)
        #expect(try parsedOptions("fq:jpg:80:png:90").formatQuality == [.jpeg: 80, .png: 90])
        #expect(try parsedOptions("format_quality:WEBP:50").formatQuality == [.webp: 50])
        #expect(try parsedOptions("fq:webp:60/fq:avif:50/fq:webp:70").formatQuality == [.webp: 70, .avif: 50])
        #expect(try parsedOptions("mb:0").maxBytes == 0 && parsedOptions("max_bytes:1").maxBytes == 1)
    }

    @Test("format by any of its extensions, in any case, under f, format or ext; the last one wins")
    func format() throws {
        let names: [(String, ImageFormat)] = [
            ("jpg", .jpeg), ("jpeg", .jpeg), ("JPG", .jpeg), ("png", .png), ("webp", .webp),
            ("avif", .avif), ("gif", .gif), ("tiff", .tiff), ("tif", .tiff), ("bmp", .bmp),
            ("heic", .heic), ("jxl", .jxl), ("apng", .apng)
        ]
        for (name, format) in names {
            #expect(try parsedOptions("f:\(name)").format == format, "\(name)")
            #expect(try parsedOptions("format:\(name)").format == format, "\(name)")
            #expect(try parsedOptions("ext:\(name)").format == format, "\(name)")
            #expect(ImageFormat(serviceExtension: name) == format)
        }
        #expect(try parsedOptions("f:webp/f:png").format == .png)
        #expect(ImageFormat(serviceExtension: "exe") == nil)
    }

    @Test("metadata and delivery switches: unset follows the service; 0 and 1 are explicit")
    func switches() throws {
        let d = ProcessingOptions()
        #expect(d.stripMetadata == nil && d.keepCopyright == nil && d.stripColorProfile == nil)
        #expect(d.autoRotate == nil && d.returnAttachment == nil && d.page == nil && !d.raw)
        let o = try parsedOptions("strip_metadata:0/keep_copyright:1/strip_color_profile:1/auto_rotate:1/return_attachment:0")
        #expect(o.stripMetadata == false && o.keepCopyright == true && o.stripColorProfile == true)
        #expect(o.autoRotate == true && o.returnAttachment == false)
        #expect(try parsedOptions("pg:0").page == 0 && parsedOptions("page:12").page == 12)
        #expect(try parsedOptions("skp:jpg:png:webp").skipProcessing == [.jpeg, .png, .webp])
        #expect(try parsedOptions("raw:1/raw:0").raw == false)
    }

    @Test("cachebuster, expires and filename")
    func caching() throws {
        #expect(try parsedOptions("cachebuster:2026-01-01").cacheBuster == "2026-01-01")
        // 0 or less never expires, as imgproxy reads it.
        #expect(try parsedOptions("exp:0").expires == nil && parsedOptions("exp:-5").expires == nil)
        #expect(try parsedOptions("expires:9223372036854775807").expires == Int64.max)
        #expect(throws: ServiceURLError.invalidArgument(option: "exp", reason: "'1e9' is not a Unix time")) { try parsedOptions("exp:1e9") }
        #expect(try parsedOptions("fn:holiday").filename == "holiday")
        #expect(try parsedOptions("fn:caf%C3%A9.jpg").filename == "café.jpg")
        #expect(try parsedOptions("fn:caf%C3%A9.jpg:0").filename == "café.jpg")
        #expect(try parsedOptions("filename:" + Base64URL.encode(Array("a/b:c.png".utf8)) + ":t").filename == "a/b:c.png")
        #expect(try parsedOptions("fn:YS5wbmc=:1").filename == "a.png")
        // Empty: the source's own name (imgproxy's fallback), also over an earlier one.
        #expect(try parsedOptions("fn:").filename == nil && parsedOptions("fn::1").filename == nil)
        #expect(try parsedOptions("fn:holiday/fn:").filename == nil)
    }

    @Test("unknown options are named as written; option names are case-sensitive; empty segments are skipped")
    func unknownOptions() throws {
        #expect(throws: ServiceURLError.unknownOption("W")) { try parsedOptions("W:100") }
        #expect(throws: ServiceURLError.unknownOption("")) { try parsedOptions(":100") }
        #expect(throws: ServiceURLError.unknownOption("wdth")) { try parsedOptions("w:1/wdth:2") }
        #expect(throws: ServiceURLError.unknownOption("resize_type")) { try parsedOptions("resize_type:fill") }
        #expect(try ProcessingOptions(parsing: ["", "w:10", ""]).width == 10)
        var o = try parsedOptions("w:100/q:50")
        try o.apply(["h:20", "q:60"])
        #expect(o.width == 100 && o.height == 20 && o.quality == 60)
        // apply does not bring in the default preset; only parsing from scratch does.
        try o.apply(["pr:small"], presets: ["default": ["bl:5"], "small": ["w:10"]])
        #expect(o.width == 10 && o.blur == 0)
    }

    @Test(
        "malformed and out-of-range arguments are refused, naming the option as written",
        arguments: [
            "w:-1", "w:1e3", "width:0x10", "h:", "h", "mw:-1", "min-height:abc", "min_width:1.5",
            "rs:fit:-1", "rs:fit:1:1:1:1:sm", "rs:fit:1:1:1:1:up", "rs:FIT", "s:1:1:1:1:sm", "size:x", "rt:fit-up",
            "z:0", "z:-0.5", "z:1:0", "zoom:nan", "z:inf", "z:", "dpr:0", "dpr:8.01", "dpr:-1", "dpr:",
            "ex:1:north", "extend:1:fp:2:0",
            "g:", "g:north", "gravity:SM", "g:fp:-0.1:0.5", "g:fp:0.5:1.01", "g:no:x", "g:fp:x",
            "c:-1:10", "c:10:-1", "c:x:10", "c::", "c:10:10:up", "crop:10:10:fp:1.5:0",
            "t:x", "t:10:ff", "t:10:zzzzzz", "t:10:ff000080",
            "pd:-1", "pd:1:-1", "pd:1.5", "padding:1:2:3:x",
            "rot:", "rot:1.5", "rotate:90deg", "w:1:2", "q:50:60", "cb:a:b",
            "bg:12345", "bg:1234567", "bg:xyz", "bg:1:2", "bg:0:0:256", "bg:0:-1:0", "bg:0:0:", "background:0:0:x",
            "bl:", "bl:-0.1", "bl:100.5", "blur:x", "sh:-1", "sh:101", "sharpen:", "pix:-1", "pix:1.5", "pixelate:",
            "q:-1", "q:50.5", "quality:", "fq:", "fq:webp:60:avif", "fq:webp:-1", "fq:webp:101", "fq:exe:50", "fq:webp:x",
            "mb:-1", "mb:1.5", "max_bytes:", "f:", "format:jpgx", "ext:",

            "exp:", "exp:1.5", "exp:9223372036854775808", "fn:%C3:0", "fn:_w:1", "filename:%G0",
            "pg:", "pg:-1", "page:1.5", "skp:exe", "skip_processing:gif:zip", "skp:", "skp:png:"
        ])
    func refusesArgument(segment: String) {
        let error = #expect(throws: ServiceURLError.self) { try parsedOptions(segment) }
        #expect(error?.argumentOption == optionName(segment))
    }
}
