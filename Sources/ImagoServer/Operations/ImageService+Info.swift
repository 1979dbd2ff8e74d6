// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Crypto
import HTTPTypes
import ImagoCoders
import ImagoCore
import ImagoLoading
import ImagoProcessing
import ImagoServiceURL
import NIOCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageService {
    /// The largest side of the image `/info`'s pixel options read (decoded shrunk on load):
    /// palettes and dominant colours quantize a 200-px sample, the hashes a 100-px one.
    static let infoSampleSide = 200

    /// The `/info` answer, with imgproxy Pro's keys for what `wanted` asks: the header's facts,
    /// and, for the options that need pixels, an analysis of the image decoded shrunk on load
    /// (through the image manager, as a render is). Imago adds the header facts imgproxy does not
    /// report (`frameCount`, `loopCount`, `durations`, `hasAlpha`, `bitDepth`, `hasICCProfile`,
    /// `progressive`, `sourceContentType`).
    func infoResponse(
        _ info: ImageInfo, _ wanted: InfoOptions, source: ServiceSource, options: ProcessingOptions, headers: HTTPFields
    )
        async throws -> ServiceResponse
    {
        try await checkHashsum(wanted, source: source)
        let etag = ServiceHeaders.etag(source.digest, "info," + wanted.canonical)
        if ServiceHeaders.isNotModified(headers, etag: etag, lastModified: source.lastModified) {
            return notModified(etag: etag, source: source, varies: false)
        }
        var report = InfoReport()
        Self.addHeaderKeys(wanted, info: info, source: source, to: &report)
        try await addContentKeys(wanted, info: info, source: source, options: options, to: &report)
        Self.addImagoFacts(info, source: source, to: &report)
        return try jsonResponse(report, etag: etag, source: source)
    }

    /// Checks the source's digest against the one the URL gives (`hashsum`), when it gives one.
    ///
    /// - Throws: ``ServiceError`` (`hashsum_mismatch`) when they differ.
    private func checkHashsum(_ wanted: InfoOptions, source: ServiceSource) async throws {
        if let (type, hex) = wanted.expectedHashsum {
            let actual = try await hashsums(of: source, types: [type])[type]
            guard actual == hex else {
                throw ServiceError(.hashsumMismatch, "the source's \(type) is not the one the URL gives")
            }
        }
    }

    /// The keys `wanted` asks for that the header (and the source's size) answer.
    private static func addHeaderKeys(_ wanted: InfoOptions, info: ImageInfo, source: ServiceSource, to report: inout InfoReport) {
        if wanted.size { report["size"] = .int(source.count) }
        if wanted.format {
            report["format"] = .string(info.format.rawValue)
            report["mime_type"] = .string(info.format.mimeType)
        }
        if wanted.dimensions {
            let shown = info.orientation.orientedSize(info.pixelSize)
            report["width"] = .int(shown.width)
            report["height"] = .int(shown.height)
            report["orientation"] = .int(info.orientation.rawValue)
        }
        if wanted.colorspace { report["colorspace"] = .string(info.isGrayscale ? "b-w" : "srgb") }
        if wanted.bands { report["bands"] = .int((info.isGrayscale ? 1 : 3) + (info.hasAlpha ? 1 : 0)) }
        if wanted.sampleFormat { report["sample_format"] = .string(info.bitDepth > 8 ? "ushort" : "uchar") }
        if wanted.pagesNumber { report["pages_number"] = .int(max(info.frameCount, info.pageCount)) }
        if wanted.alpha { report["alpha"] = .bool(info.hasAlpha) }
    }

    /// The keys `wanted` asks for that read the source: its digests, its metadata blocks, and
    /// its pixels (or, for a crop by a fixed gravity, the header alone).
    ///
    /// - Throws: ``ServiceError`` when the source cannot be read, or is over the resolution limit
    ///   for pixel options.
    private func addContentKeys(
        _ wanted: InfoOptions, info: ImageInfo, source: ServiceSource, options: ProcessingOptions, to report: inout InfoReport
    ) async throws {
        if !wanted.hashsums.isEmpty {
            let sums = try await hashsums(of: source, types: wanted.hashsums)
            report["hashsums"] = .object(sums.mapValues { .string($0) })
        }
        if wanted.exif || wanted.iptc || wanted.xmp {
            for (key, value) in try await metadataReport(wanted, source: source) { report[key] = value }
        }
        if wanted.needsPixels {
            try RenderPlan.checkResolution(
                info, limit: options.maxSourceResolution.flatMap { $0 > 0 ? $0 : nil } ?? configuration.security.maxSourceResolution)
            for (key, value) in try await pixelReport(wanted, info: info, source: source, options: options) { report[key] = value }
        } else if let crop = wanted.crop {
            // A crop by a fixed gravity is worked out from the header alone.
            report["crop"] = Self.cropValue(crop, info: info, origin: nil)
        }
    }

    /// Imago's own header facts, whatever `/info` asks.
    private static func addImagoFacts(_ info: ImageInfo, source: ServiceSource, to report: inout InfoReport) {
        report["frameCount"] = .int(info.frameCount)
        report["loopCount"] = .int(info.loopCount)
        report["durations"] = .array(info.durations.map { .double($0) })
        report["hasAlpha"] = .bool(info.hasAlpha)
        report["bitDepth"] = .int(info.bitDepth)
        report["hasICCProfile"] = .bool(info.hasICCProfile)
        report["progressive"] = .bool(info.progressive)
        report["sourceContentType"] = .string(source.contentType ?? info.format.mimeType)
    }

    /// `report` as the JSON answer, with `etag` and the source's validators.
    ///
    /// - Throws: 422 ``ServiceError`` when it cannot be encoded.
    private func jsonResponse(_ report: InfoReport, etag: String, source: ServiceSource) throws -> ServiceResponse {
        let body: Data
        do {
            body = try report.encoded()
        } catch {
            throw ServiceError.unprocessable("the source cannot be reported")
        }
        var fields = validatorFields(etag: etag, source: source, varies: false)
        fields[.contentType] = "application/json"
        return ServiceResponse(status: .ok, headers: fields, body: .bytes(ByteBuffer(bytes: body)))
    }

    /// The keys of the options that read pixels: the image decoded through the manager to fit
    /// ``infoSampleSide`` (its first frame, or the asked page), then analysed on the workers.
    private func pixelReport(
        _ wanted: InfoOptions, info: ImageInfo, source: ServiceSource, options: ProcessingOptions
    ) async throws -> [String: InfoReport.Value] {
        var request = source.request
        request.thumbnail = ImageRequest.Thumbnail(maxPixelSize: PixelSize(width: Self.infoSampleSide, height: Self.infoSampleSide))
        request.frames = .first
        request.page = options.page
        request.pixelFormat = .rgba8
        request.options = source.request.options.intersection(ClientCookies.cacheBypass).union([.retryFailed])
        var out: [String: InfoReport.Value] = [:]
        var colours = wanted
        colours.detectObjects = false
        colours.crop = nil
        if colours.needsPixels {
            let image: Image
            do {
                image = try await manager.loadImage(with: request, source: source.loaded).image
            } catch {
                throw ServiceError(error)
            }
            out = try await pixelAnalysis(image, colours)
        }
        for (key, value) in try await objectReport(wanted, info: info, request: request, source: source) { out[key] = value }
        return out
    }

    /// The pixel options' keys for `image` (as decoded: its orientation is applied here), on the workers.
    func pixelAnalysis(_ image: Image, _ wanted: InfoOptions) async throws -> [String: InfoReport.Value] {
        try await workers.run { () throws -> [String: InfoReport.Value] in
            let shown = image.applyingOrientation().buffer
            var out: [String: InfoReport.Value] = [:]
            func rgba(_ c: RGBA8, alpha: Bool = true) -> InfoReport.Value {
                var o: [String: InfoReport.Value] = ["R": .int(Int(c.r)), "G": .int(Int(c.g)), "B": .int(Int(c.b))]
                if alpha { o["A"] = .int(Int(c.a)) }
                return .object(o)
            }
            if wanted.checkTransparency { out["transparent"] = .bool(ImageColors.hasTransparency(shown)) }
            if wanted.palette > 0 { out["palette"] = .array(try ImageColors.palette(shown, colors: wanted.palette).map { rgba($0) }) }
            if wanted.average { out["average"] = rgba(ImageColors.average(shown, ignoringTransparent: wanted.averageIgnoresTransparent)) }
            if wanted.dominantColors {
                let colors = try ImageColors.dominantColors(shown, buildingMissing: wanted.buildMissedColors)
                out["dominant_colors"] = .object(Dictionary(uniqueKeysWithValues: colors.named.map { ($0.name, rgba($0.color, alpha: false)) }))
            }
            if let components = wanted.blurHash {
                out["blurhash"] = .string(try BlurHash.encode(shown, componentsX: components.x, componentsY: components.y))
            }
            if wanted.thumbHash {
                out["thumb_hash"] = .string(PathName.hex(try ThumbHash.encode(shown)).uppercased())
            }
            return out
        }
    }

    /// What `read` returns, its coding error (a decoder worker that stopped on metadata) as the
    /// service's.
    private static func unlessStopped<T>(_ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error as ImageCodingError {
            throw ServiceError(error)
        }
    }

    /// `exif`, `iptc` (with `photoshop`'s resolution) and `xmp`, from the blocks the source's
    /// container holds (JPEG, PNG, WebP), read on the workers (libexif and libxml2 in a decoder
    /// worker where any format is isolated); a key without fields is left out.
    private func metadataReport(_ wanted: InfoOptions, source: ServiceSource) async throws -> [String: InfoReport.Value] {
        let input = source.loaded.input
        let coders = self.coders
        return try await workers.run { () throws -> [String: InfoReport.Value] in
            let blocks: MetadataBlocks
            do {
                blocks = MetadataBlocks(reading: try input.contents())
            } catch {
                throw ServiceError.unprocessable("the source cannot be read for its metadata")
            }
            var out: [String: InfoReport.Value] = [:]
            if wanted.exif, let exif = blocks.exif {
                let fields = try Self.unlessStopped { try coders.exifFields(of: exif, canonicalNames: wanted.exifCanonicalNames) }
                if !fields.isEmpty {
                    out["exif"] = .object(Dictionary(fields.map { ($0.name, InfoReport.Value.string($0.value)) }, uniquingKeysWith: { a, _ in a }))
                }
            }
            if wanted.iptc {
                let fields = blocks.iptc.map(IPTC.fields(in:)) ?? []
                if !fields.isEmpty {
                    out["iptc"] = .object(
                        Dictionary(
                            fields.map { f in
                                (f.name, f.repeatable || f.values.count > 1 ? .array(f.values.map { .string($0) }) : .string(f.values[0]))
                            }, uniquingKeysWith: { a, _ in a }))
                }
                if let r = blocks.resolution {
                    out["photoshop"] = .object([
                        "resolution": .object([
                            "XResolution": .double(r.x), "XResolutionUnit": .string(r.xUnit), "WidthUnit": .string(r.widthUnit),
                            "YResolution": .double(r.y), "YResolutionUnit": .string(r.yUnit), "HeightUnit": .string(r.heightUnit)
                        ])
                    ])
                }
            }
            if wanted.xmp, let xmp = blocks.xmp {
                let groups = try Self.unlessStopped { try coders.xmpProperties(of: xmp) }
                if !groups.isEmpty {
                    out["xmp"] = .object(
                        Dictionary(
                            groups.map { g in
                                (
                                    g.prefix,
                                    InfoReport.Value.object(
                                        Dictionary(
                                            g.properties.map { p in
                                                switch p.value {
                                                case .text(let t): (p.name, InfoReport.Value.string(t))
                                                case .list(let l): (p.name, InfoReport.Value.array(l.map { .string($0) }))
                                                }
                                            }, uniquingKeysWith: { a, _ in a }))
                                )
                            }, uniquingKeysWith: { a, _ in a }))
                }
            }
            return out
        }
    }

    /// The source's digests by type (`md5`, `sha1`, `sha256`, `sha512`), lower-case hex, computed
    /// on the workers (a cached source is read from its file there).
    private func hashsums(of source: ServiceSource, types: [String]) async throws -> [String: String] {
        let input = source.loaded.input
        return try await workers.run { () throws -> [String: String] in
            let data: Data
            do {
                data = try input.contents()
            } catch {
                throw ServiceError.unprocessable("the source cannot be read for its digest")
            }
            func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
                PathName.hex(digest)
            }
            var out: [String: String] = [:]
            for type in types {
                switch type {
                case "md5": out[type] = hex(Insecure.MD5.hash(data: data))
                case "sha1": out[type] = hex(Insecure.SHA1.hash(data: data))
                case "sha256": out[type] = hex(SHA256.hash(data: data))
                default: out[type] = hex(SHA512.hash(data: data))
                }
            }
            return out
        }
    }
}
