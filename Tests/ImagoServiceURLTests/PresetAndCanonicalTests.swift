// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import Testing

@testable import ImagoServiceURL

@Suite("Presets and the security options")
struct PresetContractTests {
    static let presets: [String: [String]] = [
        "default": ["q:80", "f:webp"], "small": ["rs:fit:100:100"], "hq": ["q:95"], "a": ["w:1"], "b": ["w:2"]
    ]

    /// `p1` names `p2`, and so on; the last one sets the width to 7.
    static func chain(_ length: Int) -> [String: [String]] {
        var presets: [String: [String]] = ["p\(length)": ["w:7"]]
        for i in 1..<length { presets["p\(i)"] = ["pr:p\(i + 1)"] }
        return presets
    }

    @Test("the default preset applies first, even to an empty path, and the URL overrides it")
    func defaultPreset() throws {
        let o = try parsedOptions("q:60", presets: Self.presets)
        #expect(o.quality == 60 && o.format == .webp)
        let empty = try ProcessingOptions(parsing: [], presets: Self.presets)
        #expect(empty.quality == 80 && empty.format == .webp)
        #expect(try parsedOptions("q:50/pr:default", presets: Self.presets).quality == 80)
        #expect(try parsedOptions("", presets: Self.presets).canonicalPath == "quality:80/format:webp")
    }

    @Test("a preset applies where it is named; several in one option apply in order; an empty name is an unknown preset")
    func inPlace() throws {
        #expect(try parsedOptions("w:300/pr:small", presets: Self.presets).width == 100)
        #expect(try parsedOptions("pr:small/w:300", presets: Self.presets).width == 300)
        let both = try parsedOptions("pr:small:hq", presets: Self.presets)
        #expect(both.width == 100 && both.height == 100 && both.quality == 95)
        #expect(try parsedOptions("pr:a:b", presets: Self.presets).width == 2)
        #expect(try parsedOptions("preset:b:a", presets: Self.presets).width == 1)
        #expect(throws: ServiceURLError.unknownPreset("")) { try parsedOptions("pr:/pr:small::hq", presets: Self.presets) }
    }

    @Test("unknown presets, and bad options inside presets, fail the request that uses them")
    func failures() throws {
        #expect(throws: ServiceURLError.unknownPreset("nope")) { try parsedOptions("pr:small:nope", presets: Self.presets) }
        #expect(throws: ServiceURLError.unknownPreset("gone")) { try parsedOptions("w:1", presets: ["default": ["pr:gone"]]) }
        #expect(throws: ServiceURLError.unknownPreset("small")) { try parsedOptions("pr:small") }
        let bad = #expect(throws: ServiceURLError.self) { try parsedOptions("pr:bad", presets: ["bad": ["w:-1"]]) }
        #expect(bad?.argumentOption == "w")
        #expect(throws: ServiceURLError.unknownOption("nope")) { try parsedOptions("pr:bad", presets: ["bad": ["nope:1"]]) }
        // A preset that is never named is never read.
        #expect(try parsedOptions("w:5", presets: ["bad": ["nope:1"]]).width == 5)
    }

    @Test("presets nest as deep as they are written; a preset already in use further up is skipped, as imgproxy does")
    func nesting() throws {
        #expect(try parsedOptions("pr:p1", presets: Self.chain(8)).width == 7)
        #expect(try parsedOptions("pr:p1", presets: Self.chain(40)).width == 7)
        var viaDefault = Self.chain(7)
        viaDefault["default"] = ["pr:p1"]
        #expect(try parsedOptions("", presets: viaDefault).width == 7)
        // A loop through the default preset ends where it started.
        var loop = Self.chain(3)
        loop["p3"] = ["w:7", "pr:p1"]
        loop["default"] = ["pr:p1"]
        #expect(try parsedOptions("", presets: loop).width == 7)
        // A tree of presets naming each other many times over is bounded.
        var tree: [String: [String]] = ["leaf": ["w:1"]]
        for level in 0..<10 { tree["n\(level)"] = Array(repeating: "pr:" + (level == 0 ? "leaf" : "n\(level - 1)"), count: 4) }
        #expect(throws: ServiceURLError.self) { try parsedOptions("pr:n9", presets: tree) }
    }

    @Test(
        "each security option, by either name, is refused without permission before its argument is read",
        arguments: [
            "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
            "max_result_dimension", "mrd"
        ])
    func securityRefused(name: String) {
        #expect(throws: ServiceURLError.securityOptionNotAllowed(name)) { try parsedOptions("\(name):10") }
        #expect(throws: ServiceURLError.securityOptionNotAllowed(name)) { try parsedOptions("\(name):garbage") }
        #expect(throws: ServiceURLError.securityOptionNotAllowed(name)) { try ProcessingOptions(parsing: ["w:10", name]) }
        // Presets get no more permission than the URL.
        #expect(throws: ServiceURLError.securityOptionNotAllowed(name)) {
            try parsedOptions("pr:limits", presets: ["limits": ["\(name):10"]])
        }
    }

    @Test("with permission, security options take their values, from the URL or from a preset")
    func securityAllowed() throws {
        let o = try parsedOptions(
            "max_src_resolution:0.5/max_src_file_size:0/max_animation_frames:1/max_result_dimension:100000",
            security: true)
        #expect(o.maxSourceResolution == 0.5 && o.maxSourceFileSize == 0 && o.maxAnimationFrames == 1 && o.maxResultDimension == 100_000)
        #expect(try parsedOptions("pr:limits", presets: ["limits": ["msr:2"]], security: true).maxSourceResolution == 2)
        let d = ProcessingOptions()
        #expect(d.maxSourceResolution == nil && d.maxSourceFileSize == nil && d.maxAnimationFrames == nil && d.maxResultDimension == nil)
    }

    @Test(
        "with permission, security options still check their arguments",
        arguments: ["msr:-1", "msr:x", "msr:", "msfs:x", "msfs:1.5", "maf:0", "maf:-1", "maf:1.5", "mrd:", "mrd:1.5", "mafr:-1", "msr:1:2"])
    func securityArguments(segment: String) {
        let error = #expect(throws: ServiceURLError.self) { try parsedOptions(segment, security: true) }
        #expect(error?.argumentOption == optionName(segment))
    }
}

@Suite("The canonical form of options")
struct CanonicalFormTests {
    @Test("requests that ask for the same thing in different words have one canonical path")
    func sameRequest() throws {
        let pairs: [(String, String)] = [
            ("rs:fill:300:200", "rt:fill/w:300/h:200"), ("resize:fit:300", "w:300"), ("s:10:20:1", "w:10/h:20/el:1"),
            ("g:ce", ""), ("g:ce:0:0", ""), ("g:fp:0.5:0.5", "g:fp:0.50:0.5"), ("dpr:1", ""), ("fl:0:0", ""), ("q:0", ""),
            ("el:0", ""), ("raw:0", ""), ("pd:0", ""), ("bg:", ""), ("rot:360", ""), ("z:1", ""), ("w:100/w:300", "w:300"),
            ("bg:fff", "bg:255:255:255"), ("bg:ffffff", "bg:FFFFFF"), ("f:jpg", "format:jpeg"), ("ext:JPEG", "f:jpg"),
            ("fq:webp:60:avif:50", "fq:avif:50:webp:60"), ("skp:svg:gif", "skp:gif:svg"), ("pd:10", "pd:10:10:10:10"),
            ("z:2", "z:2:2"), ("rot:-90", "rot:270"), ("fn:a%20b", "fn:YSBi:1"), ("el:1", "enlarge:true"),
            ("t:10", "trim:10::f:false"), ("ex:1", "ex:1:ce"), ("c:10:20", "crop:10:20")
        ]
        for (a, b) in pairs {
            #expect(try parsedOptions(a).canonicalPath == parsedOptions(b).canonicalPath, "\(a) vs \(b)")
        }
        let presets = ["thumb": ["rs:fill:100:100", "g:sm"]]
        #expect(try parsedOptions("pr:thumb", presets: presets).canonicalPath == parsedOptions("rs:fill:100:100/g:sm").canonicalPath)
    }

    @Test("the order of different options does not matter; the order of repeated ones does")
    func order() throws {
        let segments = ["g:sm", "q:80", "w:300", "f:webp", "bl:2", "rt:fill", "pd:5", "ar:0", "cb:v1"]
        let canonical = try ProcessingOptions(parsing: segments).canonicalPath
        #expect(try ProcessingOptions(parsing: Array(segments.reversed())).canonicalPath == canonical)
        for shift in 1..<segments.count {
            let rotated = Array(segments[shift...] + segments[..<shift])
            #expect(try ProcessingOptions(parsing: rotated).canonicalPath == canonical, "\(rotated)")
        }
        #expect(try parsedOptions("w:300/rs:fit:100").canonicalPath != parsedOptions("rs:fit:100/w:300").canonicalPath)
    }

    @Test("requests that differ have different canonical paths")
    func differentRequests() throws {
        let pairs: [(String, String)] = [
            ("w:300", "w:301"), ("rs:fill:300", "rs:fit:300"), ("cb:v1", "cb:v2"), ("g:no", "g:so"), ("sm:0", ""), ("sm:1", ""),
            ("ar:1", "ar:0"), ("bg:ffffff", "bg:fffffe"), ("q:80", "fq:jpg:80"), ("g:no:1", "g:no:0.5"), ("exp:1", "exp:2"),
            ("fn:a", "fn:b"), ("pg:0", ""), ("skp:gif", "skp:png"), ("msr:1", "msr:2"), ("fl:1", "fl:0:1")
        ]
        for (a, b) in pairs {
            #expect(try parsedOptions(a, security: true).canonicalPath != parsedOptions(b, security: true).canonicalPath, "\(a) vs \(b)")
        }
    }

    @Test("canonical segments: full names in one fixed order, shortest numbers, lower-case hex, base64 file names")
    func exactText() throws {
        let all = try parsedOptions(
            "f:png/mrd:1/maf:1/msfs:1/msr:1/raw:1/skp:png/pg:1/att:1/fn:x/exp:1/cb:x/scp:1/kcr:1/sm:1/mb:5"
                + "/fq:png:5/q:5/pix:2/sh:1/bl:1/bg:fff/fl:1/rot:90/ar:1/pd:1/t:1/c:1:1/g:no/ex:1/el:1/dpr:2/z:2"
                + "/mh:5/mw:4/h:20/w:10/rt:fill-down", security: true)
        #expect(
            all.canonicalSegments.map(optionName) == [
                "resizing_type", "width", "height", "min-width", "min-height", "zoom", "dpr", "enlarge", "extend", "gravity", "crop",
                "trim", "padding", "auto_rotate", "rotate", "flip", "background", "blur", "sharpen", "pixelate", "quality",
                "format_quality", "max_bytes", "strip_metadata", "keep_copyright", "strip_color_profile", "cachebuster", "expires",
                "filename", "return_attachment", "page", "skip_processing", "raw", "max_src_resolution", "max_src_file_size",
                "max_animation_frames", "max_result_dimension", "format"
            ])
        let expected: [(String, String)] = [
            ("rs:fit:300", "width:300"), ("z:2", "zoom:2:2"), ("z:0.5:1", "zoom:0.5:1"), ("dpr:1.5", "dpr:1.5"),
            ("ex:1", "extend:1:ce"), ("ex:1:nowe:5", "extend:1:nowe:5:0"), ("g:sm", "gravity:sm"),
            ("g:fp:0.25:0.5", "gravity:fp:0.25:0.5"), ("c:0.5:100", "crop:0.5:100"), ("c:10:20:so", "crop:10:20:so"),
            ("t:10:FFAA00:1", "trim:10:ffaa00:1:0"), ("pd:1:2", "padding:1:2:1:2"), ("bg:ABC", "background:aabbcc"),
            ("bg:112233", "background:112233"), ("fq:png:9:jpg:70", "format_quality:jpg:70:png:9"),
            ("fn:a%20b", "filename:YSBi:1"), ("skp:svg:jpeg", "skip_processing:jpg:svg"), ("bl:2", "blur:2"),
            ("sh:0.5", "sharpen:0.5"), ("mw:5/mh:6", "min-width:5/min-height:6"), ("f:png/w:1", "width:1/format:png"),
            ("exp:123/cb:v1/att:1/pg:0", "cachebuster:v1/expires:123/return_attachment:1/page:0"),
            ("ar:1/rot:90/fl:1", "auto_rotate:1/rotate:90/flip:1:0"), ("sm:0/kcr:1/scp:0", "strip_metadata:0/keep_copyright:1/strip_color_profile:0"),
            ("mrd:5/msr:2.5", "max_src_resolution:2.5/max_result_dimension:5")
        ]
        for (input, canonical) in expected {
            #expect(try parsedOptions(input, security: true).canonicalPath == canonical, "\(input)")
        }
        #expect(ProcessingOptions().canonicalSegments.isEmpty)
    }
}
