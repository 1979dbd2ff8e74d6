// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCore
import ImagoServiceURL
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's processing test tables (``ImgproxyProcessingCases``) replayed through the
/// service's transformer: every result size imgproxy's tests expect, and where imgproxy puts
/// the crops and the embedded image.
@Suite("imgproxy's processing tables")
struct ImgproxyProcessingTests {
    /// Options parsed as the service parses them (imgproxy's test servers allow security
    /// options); `nil` for an option not implemented yet, recorded as a known issue.
    static func options(_ row: ImgproxyProcessingCase) throws -> ProcessingOptions? {
        do {
            return try ProcessingOptions(parsing: row.options.split(separator: "/").map(String.init), allowSecurityOptions: true)
        } catch let error {
            if case .unknownOption(let name) = error, Self.pending.contains(name) { return nil }
            throw error
        }
    }

    /// imgproxy options whose rows wait for their implementation.
    static let pending: Set<String> = ["preserve_hdr"]

    /// imgproxy's `geometry.png` as its size matters here: 200×100, half transparent.
    static let watermark = Result {
        ServiceWatermark(image: try Fixtures.gradient(width: 200, height: 100, alpha: true), digest: "geometry")
    }

    /// A source with the row's size. imgproxy's trim images are drawn as their content is
    /// (nested grey frames; red, green and blue or transparent bands); the others are a
    /// gradient, since only their size matters.
    static func source(_ row: ImgproxyProcessingCase) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: row.sourceWidth, height: row.sourceHeight, format: .rgba8)
        func paint(_ color: RGBA8, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) {
            let stride = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { p in
                for y in y0...y1 {
                    for x in x0...x1 {
                        let o = y * stride + x * 4
                        p[o] = color.r
                        p[o + 1] = color.g
                        p[o + 2] = color.b
                        p[o + 3] = color.a
                    }
                }
            }
        }
        switch row.image {
        case "trim1.png":
            for (i, level) in [255, 204, 153, 102, 51, 0].enumerated() {
                let v = UInt8(level)
                paint(RGBA8(r: v, g: v, b: v), i * 10, i * 10, 349 - i * 20, 249 - i * 20)
            }
        case "trim2.png", "trim3.png":
            paint(RGBA8(r: 255, g: 0, b: 0), 0, 0, 199, 29)
            paint(RGBA8(r: 0, g: 255, b: 0), 0, 30, 199, 129)
            paint(row.image == "trim2.png" ? RGBA8(r: 0, g: 0, b: 255) : RGBA8(r: 0, g: 0, b: 0, a: 0), 0, 130, 199, 199)
        default:
            return try Fixtures.gradient(width: row.sourceWidth, height: row.sourceHeight, alpha: row.sourceHasAlpha)
        }
        return buffer
    }

    @Test(
        "each row: the result size imgproxy expects, and its crop, result-crop and embedding positions",
        arguments: ImgproxyProcessingCases.all + ImgproxyProcessingCases.more)
    func row(_ row: ImgproxyProcessingCase) throws {
        guard let options = try Self.options(row) else {
            withKnownIssue("\(row.options): not implemented yet") { Issue.record("pending") }
            return
        }
        let source = try Self.source(row)
        // The transformer is told the size as shown: turned by `rotate`.
        let turned = options.rotate % 180 == 90
        let transformer = ServiceTransformer(
            options: options, autoRotate: true,
            sourceSize: PixelSize(width: turned ? row.sourceHeight : row.sourceWidth, height: turned ? row.sourceWidth : row.sourceHeight),
            flattenColor: nil, maxResultDimension: options.maxResultDimension, watermark: try Self.watermark.get())
        let out = try transformer.transform(Image(buffer: source), animated: false)
        #expect(out.pixelSize == PixelSize(width: row.width, height: row.height), "\(row.options)")
        // Positions: traced from imgproxy's code for every row without trim or smart gravity.
        guard options.trim == nil, options.gravity.kind != .smart, options.crop?.gravity?.kind != .smart else { return }
        let plan = try transformer.plan(for: try transformer.orient(source))
        #expect(plan.crop.map { Origin(x: $0.x, y: $0.y) } == row.crop, "crop of \(row.options)")
        #expect(plan.fill.map { Origin(x: $0.x, y: $0.y) } == row.resultCrop, "result crop of \(row.options)")
        let lefts = [plan.extend?.left, plan.aspect?.left, plan.padding?.left].compactMap { $0 }
        let tops = [plan.extend?.top, plan.aspect?.top, plan.padding?.top].compactMap { $0 }
        let embed = lefts.isEmpty ? nil : Origin(x: lefts.reduce(0, +), y: tops.reduce(0, +))
        #expect(embed == row.embed, "embedding of \(row.options)")
    }

    @Test("the tables are whole: 328 rows from 25 Go tests, each named once")
    func tables() {
        let rows = ImgproxyProcessingCases.all + ImgproxyProcessingCases.more
        #expect(rows.count == 328)
        #expect(Set(rows.map(\.from)).count == rows.count)
        #expect(Set(rows.map { $0.from.split(separator: "/").dropLast().joined(separator: "/") }).count >= 20)
    }
}
