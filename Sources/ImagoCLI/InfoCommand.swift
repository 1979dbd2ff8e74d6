// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ArgumentParser
import ImagoCache
import ImagoCoders
import ImagoCommandLine
import ImagoCore
import ImagoProcessing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print what an image's header says: format, size, orientation, frames, alpha, depth, colour profile."
    )

    @Argument(help: "The image file.")
    var file: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Flag(help: "Also decode a 200-px thumbnail and print the placeholders (BlurHash 4x3, ThumbHash) and colours (average, dominant).")
    var placeholders = false

    @Flag(help: "Also look for faces (OpenCV, on an 800-px copy) and print their boxes in the displayed image's pixels.")
    var faces = false

    func run() throws {
        let (input, info, coders) = try readHeader()
        let report = ImageInfo.Report(info)
        let (analysis, found) = try analyse(input, info: info, coders: coders)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(Report(header: report, placeholders: analysis, faces: found))
            print(String(decoding: data, as: UTF8.self))
            return
        }
        Self.printHeader(info, report: report)
        Self.printEntriesAndNotes(info, input: input)
        Self.printAnalysis(analysis, faces: found)
    }

    /// Opens the file and reads its header.
    private func readHeader() throws -> (input: ImageInput, info: ImageInfo, coders: ImageCoderRegistry) {
        // The file is read where it lies: the header only, and all of it only for the formats
        // whose report needs more (ICO entries, HEIF sequence brands).
        // The isolated formats' headers are read by a worker too (IMAGO_ISOLATED_FORMATS): for
        // some (HEIF, PDF, SVG) a header is the codec library's work.
        let info: ImageInfo
        let input: ImageInput
        let coders: ImageCoderRegistry
        do {
            input = try ImageInput(contentsOf: URL(fileURLWithPath: file))
            coders = try CLIDecoders.registry(for: try? input.format())
            info = try input.info(coders: coders)
        } catch {
            throw CLIFailure.exit(error, file: file)
        }
        return (input, info, coders)
    }

    /// The placeholders and faces, each when its flag asks for it.
    private func analyse(_ input: ImageInput, info: ImageInfo, coders: ImageCoderRegistry) throws -> (placeholders: Placeholders?, faces: [Face]?) {
        let analysis: Placeholders?
        let found: [Face]?
        do {
            analysis = placeholders ? try Placeholders(input, coders: coders) : nil
            found = faces ? try Face.all(in: input, info: info, coders: coders) : nil
        } catch {
            throw CLIFailure.exit(error, file: file)
        }
        return (analysis, found)
    }

    /// Prints the header's fields as text.
    private static func printHeader(_ info: ImageInfo, report: ImageInfo.Report) {
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
    }

    /// Prints an ICO or CUR file's entries, and a note for a HEIF sequence this build reads only a still of.
    private static func printEntriesAndNotes(_ info: ImageInfo, input: ImageInput) {
        if info.format == .ico || info.format == .cur, let data = try? input.contents(), let entries = try? ICOCoder.entries(of: data) {
            let list = entries.map { e in
                let depth = e.bitCount > 0 ? " \(e.bitCount)-bit" : ""
                let hotspot = e.hotspot.map { " hotspot \($0.x),\($0.y)" } ?? ""
                return "\(e.width)x\(e.height)\(depth)\(e.isPNG ? " PNG" : " BMP")\(hotspot)"
            }
            print("entries:       \(list.joined(separator: ", "))")
        }
        // AVIF sequences are libavif's (every frame); HEIF ones only libheif's, which reads stills.
        let sequencesRead = info.format == .avif && AVIFCoder().canDecode(.avif)
        if [.avif, .heic, .heif].contains(info.format), !sequencesRead, let data = try? input.head(), ImageFormat.sequenceBrand(in: data) {
            print("note:          an image sequence; this build's libheif (1.15) reads its primary image only")
        }
    }

    /// Prints the placeholders and faces asked for.
    private static func printAnalysis(_ analysis: Placeholders?, faces found: [Face]?) {
        if let analysis {
            print(
                """
                blurhash:      \(analysis.blurhash)
                thumbhash:     \(analysis.thumbhash)
                average:       \(analysis.average)
                dominant:      \(analysis.dominant.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "))
                """)
        }
        if let found {
            let list = found.map { "\($0.width)x\($0.height) at \($0.x),\($0.y)" }
            print("faces:         \(list.isEmpty ? "none" : list.joined(separator: ", "))")
        }
    }

    /// `--faces`: a face's box in the displayed image's pixels.
    struct Face: Encodable {
        var x: Int, y: Int, width: Int, height: Int
        var confidence: Double

        /// Faces of an 800-px copy (orientation applied), scaled back to the displayed size.
        static func all(in input: ImageInput, info: ImageInfo, coders: ImageCoderRegistry) throws -> [Face] {
            let detector = FaceDetector()
            let side = detector.configuration.maxDimension
            let sample = try Thumbnailer.thumbnail(of: input, fitting: PixelSize(width: side, height: side), coders: coders).buffer
            let shown = info.orientation.orientedSize(info.pixelSize)
            let scale = Double(shown.width) / Double(max(1, sample.width))
            return try detector.faces(in: sample).map {
                let box = $0.mapped(scale: scale)
                return Face(x: box.x, y: box.y, width: box.width, height: box.height, confidence: $0.confidence)
            }
        }
    }

    /// `--placeholders`: what a 200-px thumbnail of the image (orientation applied) gives.
    struct Placeholders: Encodable {
        var blurhash: String
        var thumbhash: String
        var average: String
        var dominant: [String: String]

        /// The file is read where it lies: a JPEG or PNG streamed into the shrink, no whole bitmap.
        init(_ input: ImageInput, coders: ImageCoderRegistry) throws {
            let sample = try Thumbnailer.thumbnail(of: input, fitting: PixelSize(width: 200, height: 200), coders: coders).buffer
            blurhash = try BlurHash.encode(sample)
            thumbhash = Data(try ThumbHash.encode(sample)).base64EncodedString()
            average = Self.hex(ImageColors.average(sample))
            dominant = Dictionary(uniqueKeysWithValues: try ImageColors.dominantColors(sample).named.map { ($0.name, Self.hex($0.color)) })
        }

        static func hex(_ c: RGBA8) -> String { "#" + PathName.hex([c.r, c.g, c.b]) }
    }

    /// The JSON printed: the header's keys, and `placeholders` when asked.
    struct Report: Encodable {
        var header: ImageInfo.Report
        var placeholders: Placeholders?
        var faces: [Face]?

        private enum Keys: String, CodingKey { case placeholders, faces }

        func encode(to encoder: any Encoder) throws {
            try header.encode(to: encoder)
            if let placeholders {
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(placeholders, forKey: .placeholders)
            }
            if let faces {
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode(faces, forKey: .faces)
            }
        }
    }
}
