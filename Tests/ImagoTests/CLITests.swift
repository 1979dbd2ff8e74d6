// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import Imago
import ImagoTestSupport
import Testing

@Suite("imago info and convert")
struct CLITests {
    static let jsonKeys: Set<String> = [
        "format", "mimeType", "width", "height", "orientation", "frameCount", "pageCount", "loopCount",
        "durations", "hasAlpha", "bitDepth", "hasICCProfile", "progressive"
    ]

    func writeFixture(_ format: ImageFormat, alpha: Bool, orientation: ImageOrientation = .up, in dir: URL) throws -> URL {
        var image = Image(buffer: try Fixtures.gradient(width: 30, height: 20, alpha: alpha))
        image.orientation = orientation
        let data = try ImageCoderRegistry.shared.encode(image, as: format, options: EncodeOptions(orientation: .writeEXIF))
        let url = dir.appendingPathComponent("fixture.\(format.preferredFileExtension)")
        try data.write(to: url)
        return url
    }

    @Test("info --json prints exactly the contract's keys with the header's values", arguments: [ImageFormat.jpeg, .png, .webp])
    func infoJSON(_ format: ImageFormat) async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try writeFixture(format, alpha: format != .jpeg, orientation: .right, in: dir)
        let result = try await CLI.run(["info", url.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == Self.jsonKeys)
        #expect(object["format"] as? String == format.rawValue)
        #expect(object["mimeType"] as? String == format.mimeType)
        #expect(object["width"] as? Int == 30 && object["height"] as? Int == 20)
        #expect(object["orientation"] as? Int == 6)
        #expect(object["frameCount"] as? Int == 1 && object["loopCount"] as? Int == 1)
        #expect(object["durations"] as? [Double] == [0])
        #expect(object["hasAlpha"] as? Bool == (format != .jpeg))
        #expect(object["bitDepth"] as? Int == 8)
        let text = try await CLI.run(["info", url.path])
        #expect(text.status == 0 && text.stdout.contains("orientation:   6"))
    }

    @Test("info --placeholders: the BlurHash and ThumbHash of the image as shown, and its colours")
    func infoPlaceholders() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try writeFixture(.png, alpha: false, orientation: .up, in: dir)
        let result = try await CLI.run(["info", url.path, "--json", "--placeholders"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let placeholders = try #require(object["placeholders"] as? [String: Any])
        let blur = try #require(placeholders["blurhash"] as? String)
        #expect(try BlurHash.components(of: blur) == (4, 3))
        let thumb = try #require((placeholders["thumbhash"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect(try ThumbHash.aspectRatio(of: [UInt8](thumb)) > 1, "30x20 is landscape")
        #expect((placeholders["average"] as? String)?.hasPrefix("#") == true)
        let text = try await CLI.run(["info", url.path, "--placeholders"])
        #expect(text.status == 0 && text.stdout.contains("blurhash:      \(blur)"))
    }

    @Test(
        "info --faces and convert --mode smart: the portrait's face found, and kept by a narrow crop",
        .enabled(if: Portraits.isAvailable, Portraits.missingReason))
    func faces() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let portrait = Portraits.folder.appendingPathComponent("astronaut.png").path
        let result = try await CLI.run(["info", portrait, "--json", "--faces"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let faces = try #require(object["faces"] as? [[String: Any]])
        #expect(faces.count == 1)
        let f = Portraits.astronautFace
        #expect(abs((faces.first?["x"] as? Int ?? 0) - f.x) <= 8 && abs((faces.first?["y"] as? Int ?? 0) - f.y) <= 8)
        // 300x100 of a 512x512 portrait: the centre (cover) cuts the face, smart keeps it.
        for (mode, kept) in [("cover", false), ("smart", true)] {
            let out = dir.appendingPathComponent("\(mode).png")
            let converted = try await CLI.run(["convert", portrait, out.path, "--resize", "300x100", "--mode", mode])
            #expect(converted.status == 0, "\(converted.stderr)")
            let shown = try await CLI.run(["info", out.path, "--faces"])
            #expect(shown.stdout.contains("faces:         none") != kept, "\(mode): \(shown.stdout)")
        }
    }

    @Test("thumbnail of a video: its frame at --video-second", .enabled(if: VideoFrames.isAvailable && VideoFixtures.isAvailable, "no FFmpeg"))
    func videoThumbnail() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("clip.mp4")
        let video = try await VideoFixtures.clip("mp4", seconds: 3)
        try video.write(to: clip)
        let out = dir.appendingPathComponent("out")
        let result = try await CLI.run(["thumbnail", clip.path, "--size", "160", "--output", out.path, "--video-second", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let thumb = try ImageCoderRegistry.shared.decode(try Data(contentsOf: out.appendingPathComponent("clip.jpg")))
        #expect(thumb.pixelSize == PixelSize(width: 160, height: 120))
        // Closer to ffmpeg's frame at 2 s than to the one at 1 s (the JPEG of a busy pattern costs dBs).
        func reference(_ at: Double) async throws -> PixelBuffer {
            try Resampler.resize(
                try PixelBuffer(width: 320, height: 240, format: .rgba8, bytes: try await VideoFixtures.frame(video, at: at)),
                to: PixelSize(width: 160, height: 120))
        }
        let (at2, at1) = (try await reference(2), try await reference(1))
        let near = PixelMetrics.psnr(thumb.buffer, at2), far = PixelMetrics.psnr(thumb.buffer, at1)
        #expect(near > 20 && near > far + 3, "\(near) dB against \(far) dB")
    }

    @Test("convert decodes, applies orientation and encodes by extension or --format")
    func convert() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try writeFixture(.jpeg, alpha: false, orientation: .right, in: dir)
        let png = dir.appendingPathComponent("out.png")
        let r1 = try await CLI.run(["convert", input.path, png.path])
        #expect(r1.status == 0, "\(r1.stderr)")
        let info = try ImageCoderRegistry.shared.info(of: Data(contentsOf: png))
        #expect(info.format == .png && info.width == 20 && info.height == 30 && info.orientation == .up)

        let kept = dir.appendingPathComponent("kept.webp")
        #expect(try await CLI.run(["convert", input.path, kept.path, "--no-orientation", "--lossless"]).status == 0)
        let keptInfo = try ImageCoderRegistry.shared.info(of: Data(contentsOf: kept))
        #expect(keptInfo.format == .webp && keptInfo.width == 30 && keptInfo.orientation == .right)

        let noExt = dir.appendingPathComponent("out.bin")
        #expect(try await CLI.run(["convert", png.path, noExt.path, "--format", "jpeg", "--quality", "50"]).status == 0)
        #expect(ImageFormat(sniffing: try Data(contentsOf: noExt)) == .jpeg)

        #expect(try await CLI.run(["convert", png.path, noExt.path, "--frame", "0", "--format", "webp"]).status == 0)
        let badFrame = try await CLI.run(["convert", png.path, noExt.path, "--frame", "3", "--format", "png"])
        #expect(badFrame.status != 0 && badFrame.stderr.contains("out of range"))
    }

    @Test(
        "JPEG XL: info reports it, convert writes it, and a JPEG recompressed with --lossless comes back byte for byte",
        .enabled(if: JXLCoder().canEncode(.jxl), "libjxl is not installed: run scripts/bootstrap"))
    func jpegXL() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = try writeFixture(.jpeg, alpha: false, orientation: .right, in: dir)
        let jxl = dir.appendingPathComponent("photo.jxl"), back = dir.appendingPathComponent("back.jpg")
        let r1 = try await CLI.run(["convert", jpeg.path, jxl.path, "--lossless"])
        #expect(r1.status == 0, "\(r1.stderr)")
        let original = try Data(contentsOf: jpeg), recompressed = try Data(contentsOf: jxl)
        #expect(ImageFormat(sniffing: recompressed) == .jxl)  // (a 30×20 JPEG is too small to shrink; JXLTests checks that)
        let r2 = try await CLI.run(["convert", jxl.path, back.path])
        #expect(r2.status == 0, "\(r2.stderr)")
        #expect(try Data(contentsOf: back) == original)

        let info = try await CLI.run(["info", jxl.path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "jxl" && object["width"] as? Int == 30 && object["height"] as? Int == 20)

        // From pixels, at an effort; and read back.
        let png = dir.appendingPathComponent("from.png"), made = dir.appendingPathComponent("made.jxl")
        #expect(try await CLI.run(["convert", jpeg.path, png.path]).status == 0)
        let r3 = try await CLI.run(["convert", png.path, made.path, "--quality", "80", "--effort", "3"])
        #expect(r3.status == 0, "\(r3.stderr)")
        #expect(try ImageCoderRegistry.shared.info(of: Data(contentsOf: made)).width == 20)
        #expect(try await CLI.run(["convert", png.path, made.path, "--effort", "12"]).status != 0)
    }

    @Test("errors are one line on stderr with a non-zero exit")
    func errors() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = dir.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        let cases: [[String]] = [
            ["info", dir.appendingPathComponent("missing.png").path],
            ["info", text.path],
            ["convert", text.path, dir.appendingPathComponent("o.png").path],
            ["convert", text.path, dir.appendingPathComponent("o.unknownext").path]
        ]
        for args in cases {
            let r = try await CLI.run(args)
            #expect(r.status != 0 && !r.crashed, "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.hasPrefix("imago: "), "\(args)")
        }
        let quality = try await CLI.run(["convert", text.path, "o.png", "--quality", "101"])
        #expect(quality.status != 0)
    }
}

@Suite("imago on the corpus", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct CLICorpusTests {
    @Test("a cursor is reported as cur, with its entries' hotspots")
    func cursor() async throws {
        let path = Corpus.url("pillow/ico/deerstalker.cur").path
        let json = try await CLI.run(["info", path, "--json"])
        #expect(json.status == 0 && json.stdout.contains("\"format\":\"cur\"") && json.stdout.contains("\"width\":32"), "\(json.stdout)")
        let text = try await CLI.run(["info", path])
        #expect(text.stdout.contains("entries:       32x32 BMP hotspot 0,0"), "\(text.stdout)")
    }

    @Test("every malformed file: a result or one error line, never a crash", .timeLimit(.minutes(10)))
    func malformed() async throws {
        let files = Corpus.files(in: "malformed")
        #expect(files.count > 1000)
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Every file through one `imago thumbnail` (the library's MalformedCorpusTests decode each
        // one whole in process): no crash, and one line for each file that fails.
        let batch = try await CLI.run(["thumbnail"] + files.map(\.path) + ["--size", "64", "--output", dir.appendingPathComponent("thumbs").path])
        #expect(!batch.crashed && batch.status == 1)
        let lines = batch.stderr.split(separator: "\n")
        let paths = Set(files.map(\.path))
        for line in lines {
            // "imago: PATH: what was wrong", PATH one of the inputs.
            let rest = line.hasPrefix("imago: ") ? String(line.dropFirst(7)) : ""
            let named = rest.ranges(of: ": ").contains { paths.contains(String(rest[..<$0.lowerBound])) }
            #expect(named, "\(line)")
        }
        let summary = batch.stdout.split(separator: " ")
        let (written, failed) = (Int(summary.first ?? "") ?? -1, Int(summary.dropLast().last ?? "") ?? -1)
        #expect(written + failed == files.count && failed == lines.count, "\(batch.stdout)")
        #expect(failed > files.count / 2)
        // A tenth of them one by one, whole, through `info` and `convert`: the exit status and the
        // one-line error of a single file.
        let out = dir.appendingPathComponent("out.png").path
        var failures = 0
        let sample = files.enumerated().filter { $0.offset % 10 == 0 }.map(\.element)
        for url in sample {
            for args in [["info", url.path], ["convert", url.path, out]] {
                let r = try await CLI.run(args)
                #expect(!r.crashed, "\(args): crashed")
                if r.status != 0 {
                    failures += 1
                    #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
                }
            }
        }
        #expect(failures > sample.count / 2)
    }
}

@Suite("info against INDEX-animated", .enabled(if: Corpus.isAvailable, Corpus.missingReason))
struct AnimatedIndexTests {
    struct Row { var path: String, format: String, frames: Int, loop: Int, delays: String }

    static func rows() throws -> [Row] {
        let text = try String(contentsOf: Corpus.url("INDEX-animated.tsv"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> Row? in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 7, !f[0].hasPrefix("#"), f[0] != "path", f[6].isEmpty,
                ["GIF", "APNG", "WebP"].contains(f[1])
            else { return nil }
            // Frames: "12", or APNG "acTL=48 fcTL=48".
            let framesField = f[1] == "APNG" ? (f[3].split(separator: " ").first.map { String($0.dropFirst(5)) } ?? "") : f[3]
            guard let frames = Int(framesField) else { return nil }
            let loopValue = f[4].split(separator: "=").dropFirst().first.map { String($0.prefix { $0 != " " }) } ?? ""
            let loop: Int
            switch f[1] {
            case "GIF": loop = loopValue == "absent" ? 1 : (Int(loopValue).map { $0 == 0 ? 0 : $0 + 1 } ?? -1)
            default: loop = Int(loopValue) ?? -1
            }
            return Row(path: f[0], format: f[1], frames: frames, loop: loop, delays: f[5])
        }
    }

    /// "14x15cs" → 14 copies of 0.15 s after the GIF rule; "20x75/1000" → 0.075; "6x100ms" → 0.1. `nil` when mixed.
    static func uniformDelay(_ row: Row) -> (count: Int, seconds: Double)? {
        let parts = row.delays.split(separator: "x")
        guard parts.count == 2, let n = Int(parts[0]), !row.delays.contains(",") else { return nil }
        let v = String(parts[1])
        if v.hasSuffix("cs"), let cs = Double(v.dropLast(2)) { return (n, cs <= 1 ? 0.1 : cs / 100) }
        if v.hasSuffix("ms"), let ms = Double(v.dropLast(2)) { return (n, ms < 11 ? 0.1 : ms / 1000) }
        let frac = v.split(separator: "/")
        if frac.count == 2, let num = Double(frac[0]), let den = Double(frac[1]) {
            let seconds = num / (den == 0 ? 100 : den)
            return (n, seconds <= 0.010 ? 0.1 : seconds)
        }
        return nil
    }

    @Test("frame counts, loop counts and delays match the container facts")
    func matches() throws {
        let rows = try Self.rows()
        #expect(rows.count > 100)
        var checkedDelays = 0
        for row in rows {
            let data = try Corpus.data(row.path)
            let info: ImageInfo
            do { info = try ImageCoderRegistry.shared.info(of: data) } catch {
                Issue.record("\(row.path): \(error)")
                continue
            }
            if row.format == "APNG" {
                // An invalid APNG (wrong frame count, sequence errors, ...) is shown as its still
                // default image: info agrees with what decoding shows (the APNG suite checks which).
                let shown = try? ImageCoderRegistry.shared.decode(data, options: DecodeOptions(decodesFramesLazily: true))
                #expect(info.frameCount == (shown?.frameCount ?? 1), "\(row.path)")
                if info.frameCount == 1, row.frames != 1 { continue }
            }
            #expect(info.frameCount == row.frames, "\(row.path)")
            if row.frames > 1 { #expect(info.loopCount == row.loop, "\(row.path)") }
            if row.frames > 1, let (n, seconds) = Self.uniformDelay(row), n == info.durations.count {
                checkedDelays += 1
                #expect(info.durations.allSatisfy { abs($0 - seconds) < 0.0005 }, "\(row.path): \(info.durations.prefix(3)) vs \(seconds)")
            }
        }
        #expect(checkedDelays > 50)
    }
}

@Suite("imago convert --thumbnail")
struct ThumbnailCLITests {
    @Test("the longest side is at most N, upright, never upscaled; N under 1 is refused")
    func thumbnail() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var image = Image(buffer: try Fixtures.gradient(width: 300, height: 120))
        image.orientation = .right
        let input = dir.appendingPathComponent("in.jpg")
        try ImageCoderRegistry.shared.encode(image, as: .jpeg, options: EncodeOptions(orientation: .writeEXIF)).write(to: input)
        let out = dir.appendingPathComponent("t.png")
        #expect(try await CLI.run(["convert", input.path, out.path, "--thumbnail", "100"]).status == 0)
        let info = try ImageCoderRegistry.shared.info(of: Data(contentsOf: out))
        #expect(info.width == 40 && info.height == 100 && info.orientation == .up)
        #expect(try await CLI.run(["convert", input.path, out.path, "--thumbnail", "1000"]).status == 0)
        #expect(try ImageCoderRegistry.shared.info(of: Data(contentsOf: out)).pixelSize == PixelSize(width: 120, height: 300))
        #expect(try await CLI.run(["convert", input.path, out.path, "--thumbnail", "0"]).status != 0)
    }
}

@Suite("imago convert transformations")
struct TransformCLITests {
    @Test("resize, crop, rotate, flip, round corner, blur and tint from the command line")
    func options() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.png")
        try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: 200, height: 100)), as: .png).write(to: input)
        let out = dir.appendingPathComponent("out.png")
        func size(_ args: [String]) async throws -> PixelSize? {
            let r = try await CLI.run(["convert", input.path, out.path] + args)
            guard r.status == 0 else { return nil }
            return try ImageCoderRegistry.shared.info(of: Data(contentsOf: out)).pixelSize
        }
        #expect(try await size(["--resize", "50x50", "--mode", "fit"]) == PixelSize(width: 50, height: 25))
        #expect(try await size(["--resize", "50x50", "--mode", "cover"]) == PixelSize(width: 50, height: 50))
        #expect(try await size(["--crop", "10,10,30,20"]) == PixelSize(width: 30, height: 20))
        #expect(try await size(["--rotate", "90"]) == PixelSize(width: 100, height: 200))
        #expect(try await size(["--flip", "hv", "--round-corner", "10", "--blur", "2", "--tint", "ff000080"]) == PixelSize(width: 200, height: 100))
        for bad in [
            ["--resize", "50"], ["--mode", "zoom", "--resize", "5x5"], ["--crop", "1,2,3"], ["--flip", "x"],
            ["--tint", "red"], ["--blur=-1"], ["--crop", "500,500,10,10"]
        ] {
            let r = try await CLI.run(["convert", input.path, out.path] + bad)
            #expect(r.status != 0 && r.stderr.split(separator: "\n").count == 1, "\(bad): \(r.stderr)")
        }
    }

    @Test(
        "convert, crop, flip and quarter turns change no visible pixel of a transparent PNG; gray stays gray; TIFF pages keep their sizes",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason))
    func exactConversions() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let straight = DecodeOptions(pixelFormat: .rgba8, colorManagement: false)
        // basn6a08: RGBA with alpha from 0 to 255, which premultiplying at 8 bits would cost up to 8 levels.
        let input = Corpus.url("pngsuite/basn6a08.png")
        let source = try ImageCoderRegistry.shared.decode(Data(contentsOf: input), options: straight).buffer
        for (name, args, expected) in [
            ("a.png", [String](), source), ("a.webp", ["--lossless"], source),
            (
                "c.png", ["--crop", "4,8,20,16", "--flip", "h"],
                try ImagoProcessing.ImageTransformers.Flip(horizontal: true, vertical: false)
                    .transform(try ImageTransformers.Crop(x: 4, y: 8, width: 20, height: 16).transform(source))
            ),
            ("r.webp", ["--rotate", "90", "--lossless"], source.applyingOrientation(.left))
        ] {
            let out = dir.appendingPathComponent(name)
            // Without colour management: PngSuite's files carry gAMA 1.0, which conversion to sRGB would apply.
            let r = try await CLI.run(["convert", input.path, out.path, "--no-color-management"] + args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            let back = try ImageCoderRegistry.shared.decode(Data(contentsOf: out), options: straight).buffer
            #expect(back.size == expected.size && back.bytes == expected.bytes, "\(name) \(args) changed pixels")
        }
        // --frame on a multi-page TIFF: that page at its own size.
        for (frame, side) in [(0, 10), (2, 20)] {
            let out = dir.appendingPathComponent("page\(frame).png")
            let r = try await CLI.run(["convert", Corpus.url("pillow/tiff/multipage.tiff").path, out.path, "--frame", "\(frame)"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try ImageCoderRegistry.shared.info(of: Data(contentsOf: out)).pixelSize == PixelSize(width: side, height: side))
        }
        // A gray PNG is written as gray, not expanded to RGB.
        let gray = dir.appendingPathComponent("g.png")
        #expect(try await CLI.run(["convert", Corpus.url("pngsuite/basn4a08.png").path, gray.path]).status == 0)
        let info = try ImageCoderRegistry.shared.info(of: Data(contentsOf: gray))
        #expect(info.isGrayscale && info.hasAlpha)
    }
}

@Suite("imago convert --scale-down-limit")
struct ScaleDownCLITests {
    @Test("the output's decoded pixels fit the limit")
    func limit() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.jpg"), out = dir.appendingPathComponent("out.png")
        try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.gradient(width: 1000, height: 500)), as: .jpeg).write(to: input)
        #expect(try await CLI.run(["convert", input.path, out.path, "--scale-down-limit", "200000"]).status == 0)
        let info = try ImageCoderRegistry.shared.info(of: Data(contentsOf: out))
        #expect(info.width * info.height * 4 <= 200_000 && info.width == 2 * info.height)
        #expect(try await CLI.run(["convert", input.path, out.path, "--scale-down-limit", "2"]).status != 0)
    }
}

@Suite("imago thumbnail")
struct ThumbnailCommandTests {
    @Test("folders recursively and files, mirrored output, failures reported and counted")
    func batch() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = dir.appendingPathComponent("photos"), sub = photos.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let image = Image(buffer: try Fixtures.gradient(width: 300, height: 200))
        let alpha = Image(buffer: try Fixtures.gradient(width: 120, height: 240, alpha: true))
        try ImageCoderRegistry.shared.encode(image, as: .jpeg).write(to: photos.appendingPathComponent("a.jpg"))
        try ImageCoderRegistry.shared.encode(alpha, as: .png).write(to: sub.appendingPathComponent("b.png"))
        try ImageCoderRegistry.shared.encode(image, as: .webp).write(to: sub.appendingPathComponent("c.webp"))
        try Data("not a jpeg".utf8).write(to: photos.appendingPathComponent("broken.jpg"))
        try Data("notes".utf8).write(to: photos.appendingPathComponent("notes.txt"))
        let extra = dir.appendingPathComponent("extra.png")
        try ImageCoderRegistry.shared.encode(image, as: .png).write(to: extra)
        let out = dir.appendingPathComponent("out")

        let r = try await CLI.run(["thumbnail", photos.path, extra.path, "--size", "64", "--output", out.path, "--jobs", "2"])
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("4 thumbnails written") && r.stdout.contains("1 failed"))
        let errors = r.stderr.split(separator: "\n")
        #expect(errors.count == 1 && errors.first?.contains("broken.jpg") == true)
        for (path, expected) in [
            ("photos/a.jpg", PixelSize(width: 64, height: 43)), ("photos/sub/b.png", PixelSize(width: 32, height: 64)),
            ("photos/sub/c.webp", PixelSize(width: 64, height: 43)), ("extra.png", PixelSize(width: 64, height: 43))
        ] {
            let info = try ImageCoderRegistry.shared.info(of: Data(contentsOf: out.appendingPathComponent(path)))
            #expect(info.pixelSize == expected, "\(path)")
        }
        try FileManager.default.removeItem(at: photos.appendingPathComponent("broken.jpg"))
        let clean = try await CLI.run(["thumbnail", photos.path, "--size", "100", "--output", out.path, "--format", "webp"])
        #expect(clean.status == 0 && clean.stdout.contains("3 thumbnails written") && clean.stdout.contains("0 failed"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("photos/a.webp").path))
        #expect(try await CLI.run(["thumbnail", photos.path, "--size", "0", "--output", out.path]).status != 0)
    }

    @Test("the tool links FoundationEssentials, not full Foundation (which costs about 7 MB of memory at start-up)")
    func linksEssentialsOnly() throws {
        let imago = TestFiles.builtProduct("imago")
        try #require(FileManager.default.isExecutableFile(atPath: imago.path), "imago is not built beside the tests")
        let (_, output) = try Subprocess.capture("/usr/bin/readelf", ["-d", imago.path])
        let needed = output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libFoundationEssentials.so") })
        #expect(
            !needed.contains { $0.contains("[libFoundation.so]") || $0.contains("libFoundationInternationalization") },
            "\(needed)")
    }

    @Test("convert keeps an animation in GIF, APNG and WebP; --first-frame and --frame flatten")
    func animatedConvert() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Four different frames (a column moves), so no encoder merges two of them.
        let frames = try (0..<4).map { i -> ImageFrame in
            var bytes = try Fixtures.gradient(width: 24, height: 16).bytes
            for y in 0..<16 { bytes[(y * 24 + i * 5) * 4 + 1] = 255 }
            return ImageFrame(buffer: try PixelBuffer(width: 24, height: 16, format: .rgba8, bytes: bytes), duration: 0.1 * Double(i + 1))
        }
        let gif = dir.appendingPathComponent("anim.gif")
        try ImageCoderRegistry.shared.encode(try Image(frames: frames, loopCount: 0), as: .gif).write(to: gif)
        for ext in ["webp", "png", "apng", "gif"] {
            let out = dir.appendingPathComponent("out.\(ext)")
            #expect(try await CLI.run(["convert", gif.path, out.path]).status == 0)
            let back = try ImageCoderRegistry.shared.decode(try Data(contentsOf: out))
            #expect(back.frameCount == 4 && back.loopCount == 0, "\(ext)")
            #expect((0..<4).map { back.duration(at: $0) } == [0.1, 0.2, 0.3, 0.4], "\(ext)")
        }
        let flat = dir.appendingPathComponent("flat.webp")
        #expect(try await CLI.run(["convert", gif.path, flat.path, "--first-frame"]).status == 0)
        #expect(try ImageCoderRegistry.shared.decode(try Data(contentsOf: flat)).frameCount == 1)
        #expect(try await CLI.run(["convert", gif.path, flat.path, "--first-frame", "--frame", "1"]).status != 0)
    }
}
