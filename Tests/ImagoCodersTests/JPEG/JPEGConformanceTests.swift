// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoTestSupport
import Testing

@Suite("JPEG conformance", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct JPEGConformanceTests {
    let coders = ImageCoderRegistry.makeDefault()

    @Test("the exif-orientation photos all show the same upright picture", arguments: ["Landscape", "Portrait"])
    func orientationPhotos(_ kind: String) throws {
        let reference = try coders.decode(Corpus.data("exif-orientation/\(kind)_1.jpg"))
        for n in 0...8 {
            let data = try Corpus.data("exif-orientation/\(kind)_\(n).jpg")
            let image = try coders.decode(data)
            #expect(image.orientation.rawValue == (n == 0 ? 1 : n), "\(kind)_\(n) orientation")
            let upright = image.applyingOrientation()
            #expect(upright.pixelSize == reference.pixelSize, "\(kind)_\(n) size")
            guard upright.pixelSize == reference.pixelSize else { continue }
            // Each file was encoded separately, so allow JPEG noise, not a wrong turn.
            let diff = Fixtures.difference(upright.buffer, reference.buffer)
            #expect(diff.mean < 3, "\(kind)_\(n): mean difference \(diff.mean)")
        }
    }

    @Test("jpeg-decoder reference decodes match (ImageMagick over libjpeg)")
    func referenceDecodes() throws {
        let folder = "jpeg-decoder/reftest"
        let disabled = (try? String(contentsOf: Corpus.url("\(folder)/disabled.list"), encoding: .utf8)) ?? ""
        var compared = 0
        for url in Corpus.files(in: folder, extensions: ["jpg"]) where !url.path.contains("/lossless/") {
            let name = url.deletingPathExtension().lastPathComponent
            let png = url.deletingPathExtension().appendingPathExtension("png")
            guard FileManager.default.fileExists(atPath: png.path), !disabled.contains(name) else { continue }
            let reference = try coders.decode(Data(contentsOf: png), options: DecodeOptions(colorManagement: false))
            let image: Image
            do {
                image = try coders.decode(Data(contentsOf: url), options: DecodeOptions(colorManagement: false))
            } catch {
                Issue.record("\(name): \(error)")
                continue
            }
            #expect(image.pixelSize == reference.pixelSize, "\(name)")
            guard image.pixelSize == reference.pixelSize else { continue }
            compared += 1
            let diff = Fixtures.difference(image.buffer, reference.buffer)
            #expect(diff.mean < 1.0, "\(name): mean difference \(diff.mean), max \(diff.max)")
        }
        #expect(compared >= 15)
    }

    struct IndexRow {
        var path: String, sof: String, precision: Int, width: Int, height: Int, features: String
    }

    static func index() throws -> [IndexRow] {
        let text = try String(contentsOf: Corpus.url("INDEX-jpeg.tsv"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 6, !f[0].hasPrefix("#"), f[0] != "path", !f[0].hasPrefix("malformed/"),
                !f[5].contains("PARSE"), let precision = Int(f[2])
            else { return nil }
            let size = f[3].split(separator: "x").compactMap { Int($0) }
            guard size.count == 2 else { return nil }
            return IndexRow(path: f[0], sof: f[1], precision: precision, width: size[0], height: size[1], features: f[5])
        }
    }

    @Test("every indexed JPEG: header facts match, 8-bit decodes, 12-bit and lossless say unsupported")
    func indexFacts() throws {
        let rows = try Self.index()
        #expect(rows.count >= 150)
        for row in rows {
            guard let data = try? Corpus.data(row.path) else { continue }
            let supported = row.precision == 8 && row.sof != "lossless"
            if !supported {
                #expect(throws: ImageCodingError.self, "\(row.path)") { _ = try coders.decode(data) }
                do { _ = try coders.decode(data) } catch let e as ImageCodingError {
                    if case .unsupportedFeature = e {} else { Issue.record("\(row.path): \(e) is not .unsupportedFeature") }
                }
                continue
            }
            let info: ImageInfo
            do { info = try coders.info(of: data) } catch {
                Issue.record("\(row.path): info failed: \(error)")
                continue
            }
            #expect(info.width == row.width && info.height == row.height, "\(row.path)")
            #expect(info.progressive == (row.sof == "progressive"), "\(row.path)")
            #expect(info.hasICCProfile == row.features.contains("ICC"), "\(row.path)")
            if let r = row.features.range(of: "EXIF-orientation=") {
                let value = Int(row.features[r.upperBound...].prefix { $0.isNumber }) ?? 1
                #expect(info.orientation.rawValue == ((1...8).contains(value) ? value : 1), "\(row.path)")
            }
            do {
                let image = try coders.decode(data)
                #expect(image.pixelSize == info.pixelSize, "\(row.path)")
            } catch let e as ImageCodingError {
                // A few fixtures are deliberately damaged inside the entropy-coded data.
                switch e {
                case .corrupt, .truncated: break
                default: Issue.record("\(row.path): \(e)")
                }
            }
        }
    }

    @Test("CMYK and YCCK JPEGs convert to RGB; Adobe inversion is honoured")
    func cmyk() throws {
        let cmyk = try coders.decode(Corpus.data("pillow/jpeg/pil_sample_cmyk.jpg"))
        let rgb = try coders.decode(Corpus.data("pillow/jpeg/pil_sample_rgb.jpg"))
        #expect(cmyk.pixelSize == rgb.pixelSize)
        let diff = Fixtures.difference(cmyk.buffer, rgb.buffer)
        #expect(diff.mean < 12, "mean difference \(diff.mean) between the CMYK and RGB renderings")
        let ycck = try coders.decode(Corpus.data("jpeg-decoder/reftest/ycck.jpg"))
        #expect(!ycck.buffer.bytes.isEmpty && ycck.buffer.isOpaque)
    }

    @Test("an ICC profile split over APP2 chunks is reassembled and applied")
    func iccProfile() throws {
        let data = try Corpus.data("pillow/jpeg/icc_profile_big.jpg")
        let raw = try coders.decode(data, options: DecodeOptions(colorManagement: false))
        let icc = try #require(raw.metadata.iccProfile)
        #expect(icc.count > 65_519, "a profile over one APP2 marker (\(icc.count) bytes)")
        let managed = try coders.decode(data)
        #expect(managed.metadata.iccProfile == nil)
    }

    @Test("arithmetic-coded and restart-marker JPEGs decode")
    func arithmetic() throws {
        let ari = try coders.decode(Corpus.data("libjpeg-turbo/testimgari.jpg"))
        let orig = try coders.decode(Corpus.data("libjpeg-turbo/testorig.jpg"))
        #expect(ari.pixelSize == orig.pixelSize)
        #expect(Fixtures.difference(ari.buffer, orig.buffer).mean < 1)
        _ = try coders.decode(Corpus.data("jpeg-decoder/reftest/restarts.jpg"))
    }
}

@Suite("JPEG ICC chunking (jpeg-decoder's cases)", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct JPEGICCChunkTests {
    let coders = ImageCoderRegistry.makeDefault()

    @Test("chunks out of order reassemble; missing, duplicate, miscounted or zero-numbered chunks give no profile")
    func chunking() throws {
        func profile(_ name: String) throws -> Data? {
            try coders.decode(Corpus.data("jpeg-decoder/icc/\(name).jpeg"), options: DecodeOptions(colorManagement: false)).metadata.iccProfile
        }
        #expect(try profile("icc_chunk_order") != nil)
        for broken in ["icc_missing_chunk", "icc_chunk_double_seq_no", "icc_chunk_count_mismatch", "icc_chunk_seq_no_0"] {
            #expect(try profile(broken) == nil, "\(broken)")
            #expect(try coders.info(of: Corpus.data("jpeg-decoder/icc/\(broken).jpeg")).hasICCProfile, "\(broken): marker present")
        }
    }
}
