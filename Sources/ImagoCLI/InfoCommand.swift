// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImagoCache
import ImagoCoders
import ImagoCommandLine
import ImagoCore
import ImagoProcessing

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print what an image's header says: format, size, orientation, frames, alpha, depth, colour profile."
    )

    @Argument(help: "The image file.")
    var file: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let info: ImageInfo
        let data: Data
        do {
            data = try CLIFailure.read(file)
            info = try ImageCoderRegistry.shared.info(of: data)
        } catch {
            throw CLIFailure.exit(error, file: file)
        }
        let report = ImageInfo.Report(info)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(report)
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let durations = info.durations.map { Console.decimal($0, places: 3) }.joined(separator: ", ")
        print(
            """
            format:        \(report.format) (\(report.mimeType))
            size:          \(info.width)x\(info.height) (stored), \(info.orientation.orientedSize(info.pixelSize)) (displayed)
            orientation:   \(report.orientation)
            frames:        \(info.frameCount)\(info.format == .pdf || info.pageCount > 1 ? "\npages:         \(info.pageCount)" : "")
            loop count:    \(info.loopCount == 0 ? "forever" : String(info.loopCount))
            durations (s): \(durations)
            alpha:         \(info.hasAlpha ? "yes" : "no")
            bit depth:     \(info.bitDepth)
            ICC profile:   \(info.hasICCProfile ? "yes" : "no")
            progressive:   \(info.progressive ? "yes" : "no")
            """)
        if info.format == .ico || info.format == .cur, let entries = try? ICOCoder.entries(of: data) {
            let list = entries.map { e in
                let depth = e.bitCount > 0 ? " \(e.bitCount)-bit" : ""
                let hotspot = e.hotspot.map { " hotspot \($0.x),\($0.y)" } ?? ""
                return "\(e.width)x\(e.height)\(depth)\(e.isPNG ? " PNG" : " BMP")\(hotspot)"
            }
            print("entries:       \(list.joined(separator: ", "))")
        }
        // AVIF sequences are libavif's (every frame); HEIF ones only libheif's, which reads stills.
        let sequencesRead = info.format == .avif && AVIFCoder().canDecode(.avif)
        if [.avif, .heic, .heif].contains(info.format), !sequencesRead, ImageFormat.sequenceBrand(in: data) {
            print("note:          an image sequence; this build's libheif (1.15) reads its primary image only")
        }
    }
}
