// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

/// What `/info` reports, read from its option segments by imgproxy Pro's names
/// (`/info/{signature}/{options}/{source}`): a namespace of its own, where `a` is `alpha` and
/// `p` is `palette`.
///
/// On by default, as in imgproxy Pro: `size`, `format`, `dimensions`, `exif`, `iptc`, `xmp` and
/// `video_meta`. Everything else is asked for; the options that need pixels (`alpha`,
/// `palette`, `average`, `dominant_colors`, `blurhash`, `thumb_hash`, …) decode the source,
/// shrunk on load. The options `/info` shares with processing (`cachebuster`, `expires`,
/// `max_src_resolution`, `max_src_file_size`, `page`) are handed to ``ProcessingOptions`` as
/// ``sharedSegments``.
package struct InfoOptions: Sendable, Hashable {
    /// `size`/`s`: the source's size in bytes. Default on.
    package var size = true
    /// `format`/`f`: `format` and `mime_type`. Default on.
    package var format = true
    /// `dimensions`/`d`: `width`, `height` (as shown, orientation applied) and `orientation`. Default on.
    package var dimensions = true
    /// `exif`: the EXIF fields. Default on.
    package var exif = true
    /// `exif`'s second argument: tag names (`DateTimeOriginal`) instead of titles. Default off.
    package var exifCanonicalNames = false
    /// `iptc`: the IPTC fields. Default on.
    package var iptc = true
    /// `xmp`: the XMP properties by namespace prefix. Default on.
    package var xmp = true
    /// `video_meta`/`vm`: a video's container and streams (nothing for images). Default on.
    package var videoMeta = true
    /// `colorspace`/`cs`: `colorspace` (`srgb`, `b-w`, `cmyk`). Default off.
    package var colorspace = false
    /// `bands`/`b`: `bands`, the channel count. Default off.
    package var bands = false
    /// `sample_format`/`sf`: `sample_format` (`uchar`, `ushort`). Default off.
    package var sampleFormat = false
    /// `pages_number`/`pn`: `pages_number`, pages or frames. Default off.
    package var pagesNumber = false
    /// `alpha`/`a`: `alpha`, whether the image has an alpha channel. Default off.
    package var alpha = false
    /// `alpha`'s second argument: also `transparent`, whether any pixel is less than opaque
    /// (decodes the image). Default off.
    package var checkTransparency = false
    /// `palette`/`p`: that many colours (2...256) in `palette`; 0 for none. Default 0.
    package var palette = 0
    /// `average`/`avg`: `average`, the average colour. Default off.
    package var average = false
    /// `average`'s second argument: fully transparent pixels left out. Default on.
    package var averageIgnoresTransparent = true
    /// `dominant_colors`/`dc`: `dominant_colors`, Android Palette's six. Default off.
    package var dominantColors = false
    /// `dominant_colors`'s second argument: colours no pixel fits built from found ones. Default off.
    package var buildMissedColors = false
    /// `detect_objects`/`do`: `objects`, the faces found (class `face`), in fractions of the
    /// shown size. Default off.
    package var detectObjects = false
    /// `blurhash`/`bh`: the BlurHash's components (1...9 each); `nil` for none. Default `nil`.
    package var blurHash: (x: Int, y: Int)? {
        get { blurHashX > 0 ? (blurHashX, blurHashY) : nil }
        set {
            blurHashX = newValue?.x ?? 0
            blurHashY = newValue?.y ?? 0
        }
    }
    private var blurHashX = 0, blurHashY = 0
    /// `thumb_hash`/`th`: `thumb_hash`, upper-case hex. Default off.
    package var thumbHash = false
    /// `calc_hashsums`/`chs`: digests of the source's bytes in `hashsums` (`md5`, `sha1`,
    /// `sha256`, `sha512`). Default none.
    package var hashsums: [String] = []
    /// `hashsum`/`hs`: the source must have this digest (type, lower-case hex), else 422.
    /// Default `nil`.
    package var expectedHashsum: (type: String, hex: String)? {
        get { expectedHashsumType.isEmpty ? nil : (expectedHashsumType, expectedHashsumHex) }
        set {
            expectedHashsumType = newValue?.type ?? ""
            expectedHashsumHex = newValue?.hex.lowercased() ?? ""
        }
    }
    private var expectedHashsumType = "", expectedHashsumHex = ""
    /// `crop`/`c`: `crop`, where a crop of this width and height (pixels, or fractions under 1)
    /// would be cut with its gravity (`sm` and `obj` included), as fractions of the shown size.
    /// Default none.
    package var crop: ProcessingOptions.Crop?
    /// The segments of options `/info` shares with processing, in order.
    package var sharedSegments: [String] = []

    /// The digest types `calc_hashsums` and `hashsum` take.
    package static let hashsumTypes: Set<String> = ["md5", "sha1", "sha256", "sha512"]

    /// The defaults.
    package init() {}

    /// Reads `segments` (`name:arg:arg`, or with `argumentSeparator` between the parts), later
    /// segments overriding earlier ones.
    ///
    /// - Throws: ``ServiceURLError/unknownOption(_:)`` for a name `/info` does not know;
    ///   ``ServiceURLError/invalidArgument(option:reason:)`` for a bad argument (BlurHash
    ///   components outside 1...9, a palette outside 2...256, an unknown digest type).
    package init(parsing segments: [String], argumentSeparator: String = ":") throws(ServiceURLError) {
        for segment in segments where !segment.isEmpty {
            let parts = ProcessingOptions.split(segment, separator: argumentSeparator)
            let name = parts[0]
            let a = OptionArguments(option: name, values: parts.count > 1 ? Array(parts.dropFirst()) : [""])
            if try applyHeaderOption(name, a) { continue }
            if try applyColorOption(name, a) { continue }
            if try applyAnalysisOption(name, a) { continue }
            if try applyHashsumOption(name, a) { continue }
            switch name {
            case "cachebuster", "cb", "expires", "exp", "max_src_resolution", "msr", "max_src_file_size", "msfs", "page", "pg",
                "video_thumbnail_second", "vts", "video_thumbnail_keyframes", "vtk":
                sharedSegments.append(segment)
            default:
                throw .unknownOption(name)
            }
        }
    }

    /// Whether an answer needs the source's pixels decoded (not only its header).
    package var needsPixels: Bool {
        checkTransparency || palette > 0 || average || dominantColors || blurHash != nil || thumbHash || detectObjects
            || [.smart, .objects].contains(crop?.gravity?.kind)
    }

    /// The settings as one string, for keys and ETags: equal strings give equal answers for
    /// equal bytes.
    package var canonical: String {
        func b(_ v: Bool) -> String { v ? "1" : "0" }
        let c = crop.map { c in
            [ProcessingOptions.number(c.width), ProcessingOptions.number(c.height), ProcessingOptions.gravity(c.gravity ?? .center)]
                .joined(separator: ":")
        }
        return [
            "s", b(size), "f", b(format), "d", b(dimensions), "exif", b(exif), b(exifCanonicalNames), "iptc", b(iptc), "xmp", b(xmp),
            "vm", b(videoMeta), "cs", b(colorspace), "b", b(bands), "sf", b(sampleFormat), "pn", b(pagesNumber),
            "a", b(alpha), b(checkTransparency), "p", String(palette), "avg", b(average), b(averageIgnoresTransparent),
            "dc", b(dominantColors), b(buildMissedColors), "bh", String(blurHashX), String(blurHashY), "th", b(thumbHash),
            "do", b(detectObjects), "c", c ?? "",
            "chs", hashsums.joined(separator: "+"), "hs", expectedHashsumType, expectedHashsumHex
        ].joined(separator: ",")
    }
}

extension InfoOptions {
    /// What the header tells: `size`, `format`, `dimensions`, `exif`, `iptc`, `xmp`,
    /// `video_meta`, `colorspace`, `bands`, `sample_format` and `pages_number`; `false` when
    /// `name` is none of them.
    private mutating func applyHeaderOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        switch name {
        case "size", "s": size = try a.single(a.bool(0))
        case "format", "f": format = try a.single(a.bool(0))
        case "dimensions", "d": dimensions = try a.single(a.bool(0))
        case "exif":
            try a.atMost(2)
            exif = a.bool(0)
            exifCanonicalNames = a.bool(1)
        case "iptc": iptc = try a.single(a.bool(0))
        case "xmp": xmp = try a.single(a.bool(0))
        case "video_meta", "vm": videoMeta = try a.single(a.bool(0))
        case "colorspace", "cs": colorspace = try a.single(a.bool(0))
        case "bands", "b": bands = try a.single(a.bool(0))
        case "sample_format", "sf": sampleFormat = try a.single(a.bool(0))
        case "pages_number", "pn": pagesNumber = try a.single(a.bool(0))
        default: return false
        }
        return true
    }

    /// The pixels' colours: `alpha`, `palette`, `average` and `dominant_colors`; `false` when
    /// `name` is none of them.
    private mutating func applyColorOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        switch name {
        case "alpha", "a":
            try a.atMost(2)
            alpha = a.bool(0)
            checkTransparency = a.bool(1)
        case "palette", "p":
            let n = try a.single(try a.count(0))
            guard n == 0 || (2...256).contains(n) else { throw a.fail("a palette has 2...256 colours, not \(n)") }
            palette = n
        case "average", "avg":
            try a.atMost(2)
            average = a.bool(0)
            averageIgnoresTransparent = a.values.count < 2 || a.values[1].isEmpty || a.bool(1)
        case "dominant_colors", "dc":
            try a.atMost(2)
            dominantColors = a.bool(0)
            buildMissedColors = a.bool(1)
        default: return false
        }
        return true
    }

    /// Placeholders and objects: `blurhash`, `thumb_hash`, `detect_objects` and `crop`; `false`
    /// when `name` is none of them.
    private mutating func applyAnalysisOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        switch name {
        case "blurhash", "bh":
            try a.atMost(2)
            let x = try a.count(0), y = a.values.count > 1 ? try a.count(1) : 0
            if x == 0 && y == 0 {
                blurHash = nil
            } else {
                guard (1...9).contains(x), (1...9).contains(y) else { throw a.fail("BlurHash components are 1...9 each, not \(x)x\(y)") }
                blurHash = (x, y)
            }
        case "thumb_hash", "th": thumbHash = try a.single(a.bool(0))
        case "detect_objects", "do": detectObjects = try a.single(a.bool(0))
        case "crop", "c":
            let width = try a.nonNegative(0), height = a.values.count > 1 ? try a.nonNegative(1) : 0
            let gravity = a.values.count > 2 ? try a.gravity(from: 2, current: .center, smart: true) : .center
            // A side of 0 is the whole side, as in a render's crop; 0:0 asks for none.
            crop = width > 0 || height > 0 ? ProcessingOptions.Crop(width: width, height: height, gravity: gravity) : nil
        default: return false
        }
        return true
    }

    /// The source's digests: `calc_hashsums` and `hashsum`; `false` when `name` is neither.
    private mutating func applyHashsumOption(_ name: String, _ a: OptionArguments) throws(ServiceURLError) -> Bool {
        switch name {
        case "calc_hashsums", "chs":
            var types: [String] = []
            for v in a.values where !v.isEmpty {
                guard Self.hashsumTypes.contains(v) else { throw a.fail("'\(v)' is not md5, sha1, sha256 or sha512") }
                if !types.contains(v) { types.append(v) }
            }
            hashsums = types
        case "hashsum", "hs":
            try a.atMost(2)
            let type = a.values[0]
            if type.isEmpty || type == "none" {
                expectedHashsum = nil
            } else {
                guard Self.hashsumTypes.contains(type) else { throw a.fail("'\(type)' is not md5, sha1, sha256 or sha512") }
                let hex = try a.text(1)
                guard hex.utf8.allSatisfy({ $0 < 128 && Character(Unicode.Scalar($0)).isHexDigit }) else { throw a.fail("the digest is not hex") }
                expectedHashsum = (type, hex)
            }
        default: return false
        }
        return true
    }
}
