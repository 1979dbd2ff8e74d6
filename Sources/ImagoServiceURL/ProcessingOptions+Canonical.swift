// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProcessingOptions {
    /// The options that differ from the defaults, as option segments in one fixed order with
    /// full names: two URLs that ask for the same thing in different words (`rs:fill:300` and
    /// `w:300/rt:fill`) have the same canonical form. Used for cache keys and ETags, and by
    /// ``ServiceURLBuilder`` to write URLs.
    public var canonicalSegments: [String] {
        geometrySegments + effectSegments + outputSegments + limitSegments
    }

    /// The size, crop, padding, rotation and flips that differ from the defaults.
    private var geometrySegments: [String] {
        var out: [String] = []
        let d = ProcessingOptions()
        if resizingType != d.resizingType { out.append("resizing_type:\(resizingType.rawValue)") }
        if width != 0 { out.append("width:\(width)") }
        if height != 0 { out.append("height:\(height)") }
        if minWidth != 0 { out.append("min-width:\(minWidth)") }
        if minHeight != 0 { out.append("min-height:\(minHeight)") }
        if zoomX != 1 || zoomY != 1 { out.append("zoom:\(Self.number(zoomX)):\(Self.number(zoomY))") }
        if dpr != 1 { out.append("dpr:\(Self.number(dpr))") }
        if enlarge { out.append("enlarge:1") }
        if extend { out.append("extend:1:" + Self.gravity(extendGravity)) }
        if extendAspectRatio { out.append("extend_aspect_ratio:1:" + Self.gravity(extendAspectRatioGravity)) }
        if gravity != .center { out.append("gravity:" + Self.gravity(gravity)) }
        if let c = crop {
            out.append("crop:\(Self.number(c.width)):\(Self.number(c.height))" + (c.gravity.map { ":" + Self.gravity($0) } ?? ""))
        }
        if let t = trim {
            out.append("trim:\(Self.number(t.threshold)):\(t.color.map(Self.hex) ?? ""):\(t.equalHorizontal ? 1 : 0):\(t.equalVertical ? 1 : 0)")
        }
        if let p = padding { out.append("padding:\(p.top):\(p.right):\(p.bottom):\(p.left)") }
        if let ar = autoRotate { out.append("auto_rotate:\(ar ? 1 : 0)") }
        if rotate != 0 { out.append("rotate:\(rotate)") }
        if flipHorizontal || flipVertical { out.append("flip:\(flipHorizontal ? 1 : 0):\(flipVertical ? 1 : 0)") }
        return out
    }

    /// The background, filters, adjustments, detections, watermarks and video frame.
    private var effectSegments: [String] {
        var out: [String] = []
        if let bg = background { out.append("background:" + Self.hex(bg)) }
        if blur != 0 { out.append("blur:\(Self.number(blur))") }
        if sharpen != 0 { out.append("sharpen:\(Self.number(sharpen))") }
        if pixelate != 0 { out.append("pixelate:\(pixelate)") }
        out += adjustments.activeSegments
        if roundedCorners != 0 { out.append("rounded_corners:\(Self.number(roundedCorners))") }
        if let p = objectsPosition { out.append("objects_position:" + (p.proportional ? "prop" : Self.gravity(p.gravity))) }
        if let d = blurDetections { out.append((["blur_detections:\(Self.number(d.sigma))"] + d.classes).joined(separator: ":")) }
        if let d = drawDetections { out.append((["draw_detections:1"] + d.classes).joined(separator: ":")) }
        if let w = watermark?.canonicalSegment { out.append(w) }
        if let t = watermarkText { out.append("watermark_text:" + Base64URL.encode(Array(t.utf8))) }
        if let u = watermarkURL { out.append("watermark_url:" + Base64URL.encode(Array(u.utf8))) }
        if let s = watermarkSize { out.append("watermark_size:\(s.width):\(s.height)") }
        if watermarkRotate != 0 { out.append("watermark_rotate:\(Self.number(watermarkRotate))") }
        if watermarkShadow != 0 { out.append("watermark_shadow:\(Self.number(watermarkShadow))") }
        if let v = videoThumbnailSecond { out.append("video_thumbnail_second:\(Self.number(v))") }
        if let k = videoThumbnailKeyframes { out.append("video_thumbnail_keyframes:\(k ? 1 : 0)") }
        return out
    }

    /// Quality, metadata, colour, caching and naming of the result, and the page.
    private var outputSegments: [String] {
        var out: [String] = []
        if quality != 0 { out.append("quality:\(quality)") }
        if !formatQuality.isEmpty {
            let pairs = formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }
            out.append("format_quality:" + pairs.map { "\($0.key.preferredFileExtension):\($0.value)" }.joined(separator: ":"))
        }
        if maxBytes != 0 { out.append("max_bytes:\(maxBytes)") }
        if let s = stripMetadata { out.append("strip_metadata:\(s ? 1 : 0)") }
        if let k = keepCopyright { out.append("keep_copyright:\(k ? 1 : 0)") }
        if let s = stripColorProfile { out.append("strip_color_profile:\(s ? 1 : 0)") }
        if let p = colorProfile { out.append("color_profile:\(p)") }
        if let p = preserveHDR { out.append("preserve_hdr:\(p ? 1 : 0)") }
        if let e = enforceThumbnail { out.append("enforce_thumbnail:\(e ? 1 : 0)") }
        if let cb = cacheBuster { out.append("cachebuster:\(cb)") }
        if let e = expires { out.append("expires:\(e)") }
        if let f = filename { out.append("filename:" + Base64URL.encode(Array(f.utf8)) + ":1") }
        if let a = returnAttachment { out.append("return_attachment:\(a ? 1 : 0)") }
        if let p = page { out.append("page:\(p)") }
        if !skipProcessing.isEmpty {
            out.append("skip_processing:" + skipProcessing.map(\.preferredFileExtension).sorted().joined(separator: ":"))
        }
        return out
    }

    /// The raw flag, the per-URL limits and the format.
    private var limitSegments: [String] {
        var out: [String] = []
        if raw { out.append("raw:1") }
        if let m = maxSourceResolution { out.append("max_src_resolution:\(Self.number(m))") }
        if let m = maxSourceFileSize { out.append("max_src_file_size:\(m)") }
        if let m = maxAnimationFrames { out.append("max_animation_frames:\(m)") }
        if let m = maxAnimationFrameResolution { out.append("max_animation_frame_resolution:\(m)") }
        if let m = maxResultDimension { out.append("max_result_dimension:\(m)") }
        if let f = format { out.append("format:\(f.preferredFileExtension)") }
        return out
    }

    /// ``canonicalSegments`` joined by `/`.
    public var canonicalPath: String { canonicalSegments.joined(separator: "/") }

    static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    static func gravity(_ g: Gravity) -> String {
        switch g.kind {
        case .smart: return "sm"
        case .objects:
            let names = g.objectWeights.keys.sorted()
            if g.objectWeights.values.allSatisfy({ $0 == 1 }) { return (["obj"] + names).joined(separator: ":") }
            return (["objw"] + names.map { "\($0):\(number(g.objectWeights[$0] ?? 1))" }).joined(separator: ":")
        case .focusPoint: return "fp:\(number(g.x)):\(number(g.y))"
        default: return g.x == 0 && g.y == 0 ? g.kind.rawValue : "\(g.kind.rawValue):\(number(g.x)):\(number(g.y))"
        }
    }

    static func hex(_ c: RGBA8) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        for v in c.a == 255 ? [c.r, c.g, c.b] : [c.r, c.g, c.b, c.a] {
            s.append(digits[Int(v >> 4)])
            s.append(digits[Int(v & 15)])
        }
        return s
    }
}
