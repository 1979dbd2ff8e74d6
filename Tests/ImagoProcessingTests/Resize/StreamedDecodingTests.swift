// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Foundation
import ImagoCoders
import ImagoCore
import ImagoProcessing
import ImagoTestSupport
import Testing

/// A consumer that fails at a given row, to check its error comes back unchanged.
private final class FailingConsumer: DecodedRowConsuming {
    struct Stop: Error {}
    let failAt: Int
    var rows = 0
    init(failAt: Int) { self.failAt = failAt }
    func begin(size: PixelSize) throws {}
    func consume(row: UnsafeRawBufferPointer, y: Int) throws {
        if y == failAt { throw Stop() }
        rows += 1
    }
}

@Suite("Row-streamed decoding (PNG scale-down without the full bitmap)")
struct StreamedDecodingTests {
    let png = PNGCoder()

    /// Whole decode, then the whole-buffer resampler: what streaming must reproduce exactly.
    func reference(_ data: Data, to size: PixelSize, options: DecodeOptions = .default) throws -> PixelBuffer {
        try Resampler.resize(try png.decode(data, options: options).buffer, to: size)
    }

    func streamed(_ data: Data, to size: PixelSize, options: DecodeOptions = .default) throws -> (PixelBuffer, StreamedImageAttributes) {
        let resampler = try StreamingResampler(target: size)
        let attributes = try png.decodeRows(data, options: options, into: resampler)
        return (try resampler.result(), attributes)
    }

    @Test(
        "streamed resizing gives exactly the pixels of decode-then-resize, with and without the box stage",
        arguments: [
            PixelSize(width: 250, height: 175), PixelSize(width: 333, height: 233), PixelSize(width: 97, height: 700),
            PixelSize(width: 1000, height: 3), PixelSize(width: 1, height: 1), PixelSize(width: 1000, height: 700)
        ])
    func identicalToWholeBuffer(size: PixelSize) throws {
        let source = Image(buffer: try Fixtures.gradient(width: 1000, height: 700, alpha: true))
        let data = try png.encode(source, as: .png, options: .default)
        #expect(png.canStreamRows(of: data))
        let (buffer, attributes) = try streamed(data, to: size)
        #expect(buffer.size == size)
        #expect(buffer.bytes == (try reference(data, to: size)).bytes)
        #expect(attributes.pixelSize == source.pixelSize && attributes.hasAlpha && attributes.format == .png)
    }

    @Test(
        "an ICC profile is applied per row, as in a whole decode (Display P3 and a broken profile, from the corpus)",
        .enabled(if: Corpus.isAvailable, Corpus.missingReason),
        arguments: [
            "wuffs/red-blue-gradient.dcip3d65-no-chrm-no-gama.png", "pillow/png/icc_profile.png",
            "image-png/iccp/broken_iccp.png"
        ])
    func colorManaged(path: String) throws {
        let data = try Corpus.data(path)
        let info = try png.info(of: data)
        let size = PixelSize(width: max(1, info.pixelSize.width / 3), height: max(1, info.pixelSize.height / 3))
        for managed in [true, false] {
            let options = DecodeOptions(colorManagement: managed)
            guard png.canStreamRows(of: data) else { continue }
            let (buffer, attributes) = try streamed(data, to: size, options: options)
            let ref = try reference(data, to: size, options: options)
            let same = buffer.bytes == ref.bytes
            #expect(same, "\(path) managed=\(managed) \(Fixtures.difference(buffer, ref)) \(buffer.color(atX: 0, y: 0)!) \(ref.color(atX: 0, y: 0)!)")
            let whole = try png.decode(data, options: options)
            #expect(attributes.metadata == whole.metadata && attributes.orientation == whole.orientation, "\(path)")
        }
    }

    @Test("ScaleDown and Thumbnailer take the streamed path for PNG and the whole path for interlaced PNG, same pixels")
    func pipelines() throws {
        let source = Image(buffer: try Fixtures.gradient(width: 900, height: 600, alpha: true))
        let plain = try png.encode(source, as: .png, options: .default)
        let interlaced = try png.encode(source, as: .png, options: EncodeOptions(progressive: true))
        #expect(png.canStreamRows(of: plain) && !png.canStreamRows(of: interlaced))
        let a = try ScaleDown.decode(ImageInput(plain), limitBytes: 100_000)
        let b = try ScaleDown.decode(ImageInput(interlaced), limitBytes: 100_000)
        #expect(a.pixelSize == ScaleDown.targetSize(for: source.pixelSize, limitBytes: 100_000))
        #expect(a.buffer.bytes == b.buffer.bytes && a.hasAlpha && a.format == .png)
        let t1 = try Thumbnailer.thumbnail(of: ImageInput(plain), fitting: PixelSize(width: 128, height: 128))
        let t2 = try Thumbnailer.thumbnail(of: ImageInput(interlaced), fitting: PixelSize(width: 128, height: 128))
        #expect(t1.pixelSize == PixelSize(width: 128, height: 85) && t1.buffer.bytes == t2.buffer.bytes)
        #expect(throws: ImageCodingError.self) { _ = try streamed(interlaced, to: PixelSize(width: 10, height: 10)) }
    }

    @Test("from a file: thumbnails and scale-downs equal the in-memory ones for streamed PNG, interlaced PNG and JPEG")
    func fromFiles() throws {
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var source = Image(buffer: try Fixtures.gradient(width: 700, height: 500, alpha: true))
        source.orientation = .right
        let files: [(String, Data)] = [
            ("plain.png", try png.encode(source, as: .png, options: EncodeOptions(orientation: .writeEXIF))),
            ("interlaced.png", try png.encode(source, as: .png, options: EncodeOptions(progressive: true, orientation: .writeEXIF))),
            ("photo.jpg", try ImageCoderRegistry.shared.encode(source, as: .jpeg, options: EncodeOptions(orientation: .writeEXIF)))
        ]
        for (name, data) in files {
            let url = dir.appendingPathComponent(name)
            try data.write(to: url)
            let box = PixelSize(width: 100, height: 60)
            let fromFile = try Thumbnailer.thumbnail(of: ImageInput(contentsOf: url), fitting: box)
            let inMemory = try Thumbnailer.thumbnail(of: ImageInput(data), fitting: box)
            #expect(fromFile == inMemory, "\(name)")
            #expect(fromFile.orientation == .up && fromFile.pixelSize.width <= 100 && fromFile.pixelSize.height <= 60, "\(name)")
            let scaled = try ScaleDown.decode(ImageInput(contentsOf: url), limitBytes: 50_000)
            #expect(scaled == (try ScaleDown.decode(ImageInput(data), limitBytes: 50_000)), "\(name)")
            #expect(scaled.byteCount <= 50_000)
        }
        #expect(throws: CocoaError.self) {
            _ = try Thumbnailer.thumbnail(of: ImageInput(contentsOf: dir.appendingPathComponent("missing.png")), fitting: PixelSize(width: 9, height: 9))
        }
        // A byte source hands out the whole file in order, whatever the piece size.
        let url = dir.appendingPathComponent("plain.png")
        let reader = try FileByteSource(url: url)
        var whole = Data()
        while case let piece = try reader.read(maxLength: 777), !piece.isEmpty { whole.append(piece) }
        #expect(whole == (try Data(contentsOf: url)))
    }

    @Test("truncated data, a consumer's error and misuse end in errors, never a partial result")
    func errors() throws {
        let data = try png.encode(Image(buffer: try Fixtures.gradient(width: 300, height: 200)), as: .png, options: .default)
        #expect { _ = try streamed(data.prefix(data.count / 2), to: PixelSize(width: 30, height: 20)) } throws: { error in
            if case ImageCodingError.truncated = error { return true }
            return false
        }
        let failing = FailingConsumer(failAt: 50)
        #expect(throws: FailingConsumer.Stop.self) { _ = try png.decodeRows(data, options: .default, into: failing) }
        #expect(failing.rows == 50)
        #expect(throws: ImageCodingError.self) { _ = try StreamingResampler(target: PixelSize(width: 0, height: 5)) }
        let unfinished = try StreamingResampler(target: PixelSize(width: 10, height: 10))
        try unfinished.begin(size: PixelSize(width: 100, height: 100))
        #expect(throws: ImageCodingError.self) { _ = try unfinished.result() }
        #expect(throws: ImageCodingError.self) { try unfinished.begin(size: PixelSize(width: 100, height: 100)) }
        let tooBig = DecodeOptions(limits: DecodingLimits(maxPixels: 1000))
        #expect(throws: ImageCodingError.self) { _ = try png.decodeRows(data, options: tooBig, into: unfinished) }
    }

    /// Runs `executable` under GNU time and returns its exit status and peak resident memory in
    /// bytes. (A child spawned straight from this large test process would report the parent's
    /// peak: Linux carries the high-water mark across exec. time's own fork starts small.)
    static func run(_ executable: URL, _ arguments: [String], in dir: URL) throws -> (status: Int32, peak: Int) {
        let report = dir.appendingPathComponent("time-\(UUID().uuidString)")
        let status = try Subprocess.runSynchronously("/usr/bin/time", ["-f", "%M", "-o", report.path, executable.path] + arguments)
        let text = try String(contentsOf: report, encoding: .utf8).split(separator: "\n").last.map(String.init) ?? ""
        return (status, (Int(text.trimmingCharacters(in: .whitespaces)) ?? -1) * 1024)
    }

    @Test(
        "a thumbnail of a 36 MB PNG file reads it in pieces: peak memory far under the file's size (child process)",
        .timeLimit(.minutes(3)))
    func fileIsNotHeld() throws {
        let imago = TestFiles.builtProduct("imago")
        try #require(FileManager.default.isExecutableFile(atPath: imago.path), "imago is not built beside the tests")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time is missing: run scripts/bootstrap")
        // Noise does not compress: the file is about as large as its pixels.
        let side = 3000
        var bytes = [UInt8](repeating: 0, count: side * side * 4)
        bytes.withUnsafeMutableBufferPointer { p in
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            var i = 0
            while i + 8 <= p.count {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                UnsafeMutableRawPointer(p.baseAddress! + i).storeBytes(of: state, as: UInt64.self)
                i += 8
            }
        }
        let data = try png.encode(
            Image(buffer: try PixelBuffer(width: side, height: side, format: .rgba8, bytes: bytes)),
            as: .png, options: EncodeOptions(compressionLevel: 1))
        bytes = []
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("noise.png")
        try data.write(to: input)
        let baseline = try Self.run(imago, ["--help"], in: dir)  // the runtime alone
        let thumb = try Self.run(
            imago, ["thumbnail", input.path, "--size", "256", "--output", dir.appendingPathComponent("out").path],
            in: dir)
        #expect(baseline.status == 0 && thumb.status == 0)
        let extra = thumb.peak - baseline.peak
        print("thumbnail of a \(data.count >> 20) MB PNG: peak \(thumb.peak >> 20) MB, baseline \(baseline.peak >> 20) MB, extra \(extra >> 20) MB")
        // Mapping and walking the file would cost about its size (34 MB); reading it in pieces costs a few MB.
        #expect(extra < data.count / 4 && extra < 12 << 20)
    }

    @Test(
        "scaling a 24-megapixel PNG down to 2 MB holds about the output, not the 96 MB source (measured in a child process)",
        .timeLimit(.minutes(3)))
    func peakMemory() throws {
        let imago = TestFiles.builtProduct("imago")
        try #require(FileManager.default.isExecutableFile(atPath: imago.path), "imago is not built beside the tests")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "GNU time is missing: run scripts/bootstrap")
        let width = 6000, height = 4000
        // Rows of a gradient with alpha, each row shifted, so every row is decoded for real.
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        rgba.withUnsafeMutableBufferPointer { p in
            for x in 0..<width {
                p[x * 4] = UInt8(x & 0xFF)
                p[x * 4 + 1] = UInt8((x >> 4) & 0xFF)
                p[x * 4 + 2] = 90
                p[x * 4 + 3] = UInt8(255 - (x & 0x7F))
            }
            for y in 1..<height {
                let shift = (y % 64) * 4
                UnsafeMutableRawPointer(p.baseAddress! + y * width * 4).copyMemory(from: p.baseAddress! + shift, byteCount: width * 4 - shift)
            }
        }
        let source = Image(buffer: try PixelBuffer(width: width, height: height, format: .rgba8, bytes: rgba))
        rgba = []
        let data = try png.encode(source, as: .png, options: EncodeOptions(compressionLevel: 1))
        let dir = try TestFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("big.png")
        try data.write(to: input)
        let limit = 2_000_000
        let baseline = try Self.run(imago, ["--help"], in: dir)  // the runtime alone
        let scaled = try Self.run(
            imago,
            [
                "convert", input.path, dir.appendingPathComponent("out.png").path,
                "--scale-down-limit", String(limit)
            ], in: dir)
        #expect(baseline.status == 0 && scaled.status == 0)
        let out = try png.decode(try Data(contentsOf: dir.appendingPathComponent("out.png")), options: .default)
        #expect(out.byteCount <= limit)
        // The work above the baseline: the output, its straight-alpha copy and encoded PNG for
        // writing (about 3 × 2 MB), the row window and libpng's rows; nowhere near 96 MB.
        let extra = scaled.peak - baseline.peak
        let decodedSource = width * height * 4
        print(
            "scale-down of a \(width)x\(height) PNG to \(limit) bytes: peak \(scaled.peak >> 20) MB, baseline \(baseline.peak >> 20) MB, extra \(extra >> 20) MB; the decoded source is \(decodedSource >> 20) MB"
        )
        #expect(extra < 4 * limit + 4_000_000)
        #expect(extra < decodedSource / 8)
    }
}
