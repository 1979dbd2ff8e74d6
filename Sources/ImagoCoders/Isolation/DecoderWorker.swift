// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoSandbox
import ImagoCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The worker side of ``DecoderIsolation``: a process that loads the decoders of the formats
/// it is given, locks itself down, then decodes one request at a time from the socket its host
/// handed it as descriptor 3, until the host closes it.
public enum DecoderWorker {
    /// The argument that starts a worker: `executable --imago-decoder-worker`.
    public static let argument = "--imago-decoder-worker"

    /// Runs a worker and exits when this process was started as one (its first argument is
    /// ``argument``); returns at once otherwise. Call it first thing in `main`, before any
    /// thread or task starts: the sandbox's Landlock and namespace steps need a process with
    /// one thread.
    ///
    /// - Parameter coders: the decoders the worker uses. Default `ImageCoderRegistry.shared`,
    ///   with whatever the program added to it before the call.
    public static func runIfRequested(coders: ImageCoderRegistry = .shared) {
        guard CommandLine.arguments.dropFirst().first == argument else {
            hostsWorkers.store(true, ordering: .relaxed)
            return
        }
        exit(run(socket: 3, coders: coders))
    }

    /// Whether this program called ``runIfRequested(coders:)``, so that it can be its own
    /// worker (`/proc/self/exe`); a program that did not would run its own `main` again.
    public static var isAvailable: Bool { hostsWorkers.load(ordering: .relaxed) }

    static let hostsWorkers = Atomic<Bool>(false)

    /// The worker's life: setup, warm-up, sandbox, then requests until the host goes.
    static func run(socket: Int32, coders: ImageCoderRegistry) -> Int32 {
        _ = imago_close_from(socket + 1)
        guard case .message(let setupData, _) = receive(socket, milliseconds: -1),
            let setup = try? IsolationWire.decode(IsolationWire.Setup.self, from: setupData)
        else {
            return 2
        }
        warmUp(setup.formats, coders: coders)
        if setup.video { _ = VideoFrames.isAvailable }  // loads FFmpeg
        let (applied, sandboxReport) = enterSandbox(setup)
        guard applied >= 0 else { return 3 }
        var report = sandboxReport
        // The CPU-time limit moves before every request; tried once here so that a host whose own
        // filter forbids it hears so (the host's timeout still bounds each request).
        if let seconds = setup.cpuSeconds, case let status = imago_worker_cpu_budget(UInt64(max(1, seconds))), status != 0 {
            report += "rlimits: RLIMIT_CPU cannot be set (errno \(-status)): a request's CPU time is bounded by the host's timeout alone\n"
        }
        // The probe's bytes, kept for the worker's life where the host may read them.
        let probe = setup.probe.map { bytes in
            let p = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
            p.copyMemory(from: bytes, byteCount: bytes.count)
            return UInt64(UInt(bitPattern: p))
        }
        let ready = IsolationWire.Ready(applied: applied, report: report, pid: getpid(), probe: probe)
        guard let message = try? IsolationWire.encode(ready), imago_send(socket, message.withUnsafeBytes { $0.baseAddress }, message.count, -1) >= 0 else {
            return 4
        }
        // One reply file for the worker's life, and a heap that keeps what it frees: the pages a
        // decode and its reply took are there for the next one, not faulted in and zeroed anew.
        let out = ReplyFile()
        _ = imago_worker_keep_heap(64 << 20)
        // What the last reply kept (its images, a large reply file) goes when the next request
        // comes, or after a second without one: an idle worker holds no decode.
        var holding = false
        while true {
            switch receive(socket, milliseconds: holding ? Self.idleRelease : -1) {
            case .closed:
                return 0
            case .idle:
                out.release()
                holding = false
            case .message(let body, let fd):
                out.begin()
                if let seconds = setup.cpuSeconds { _ = imago_worker_cpu_budget(UInt64(max(1, seconds))) }
                let reply = answer(body, source: fd, coders: coders, out: out)
                if fd >= 0 { close(fd) }
                let sent = reply.message.withUnsafeBytes { imago_send(socket, $0.baseAddress, $0.count, reply.fd) }
                guard sent >= 0 else { return 5 }
                holding = true
            }
        }
    }

    /// How long a worker keeps what its last reply needed while no request comes, in ms.
    static let idleRelease: Int32 = 1_000

    private enum Incoming {
        case message(Data, Int32)
        /// Nothing came in the time given.
        case idle
        /// The host has gone.
        case closed
    }

    /// One message from the host, waiting at most `milliseconds` (-1: as long as it takes).
    private static func receive(_ socket: Int32, milliseconds: Int32) -> Incoming {
        var buffer = [UInt8](repeating: 0, count: IsolationWire.maxMessage)
        var fd: Int32 = -1
        let n = buffer.withUnsafeMutableBytes { imago_receive(socket, $0.baseAddress, $0.count, &fd, milliseconds) }
        if n == -Int(ETIMEDOUT) { return .idle }
        guard n > 0 else { return .closed }
        return .message(Data(buffer[0..<n]), fd)
    }

    /// Loads the libraries of `formats` before the sandbox closes the files they live in:
    /// a tiny image of each format the registry can write is encoded and decoded, an SVG with
    /// text brings in librsvg, cairo, Pango and the font configuration, and a blank PDF page
    /// poppler.
    private static func warmUp(_ formats: [ImageFormat], coders: ImageCoderRegistry) {
        guard let pixels = try? PixelBuffer(width: 2, height: 2, format: .argb32Premultiplied) else { return }
        let image = Image(buffer: pixels)
        for format in formats {
            let sample: Data?
            switch format {
            case .svg:
                sample = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><text y="3">a</text></svg>"#.utf8)
            case .pdf:
                sample = Data(Self.blankPDF.utf8)
            case .heic, .heif, .avif, .jxl:
                // Made once by Imago's encoders: encoding one here would start x265, aom or libjxl's
                // encoder (10-20 ms each) in a process that only decodes.
                sample = Data(base64Encoded: Self.samples[format == .heif ? .heic : format] ?? "")
            default:
                sample = try? coders.encode(image, as: format, options: EncodeOptions(quality: 0.5))
            }
            if let sample { _ = try? coders.decode(sample) }
        }
        // libexif and libxml2, which /info's metadata fields take (opened on first use).
        _ = EXIFFields.fields(of: Data([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
        _ = XMPFields.properties(of: Data(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"/>"#.utf8))
    }

    /// 2×2 images (quality 0.5) of the formats whose encoders are slow to start, base64.
    static let samples: [ImageFormat: String] = [
        .heic:
            "AAAAHGZ0eXBoZWljAAAAAG1pZjFoZWljbWlhZgAAAa1tZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAAAIAAgAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAHRAAEAAAAAAAAAMgACAAEAAAAAAAAAAQAAAAAAAAAIAAAAOGlpbmYAAAAAAAIAAAAVaW5mZQIAAAEAAQAAaHZjMQAAAAAVaW5mZQIAAAAAAgAAZ3JpZAAAAADYaXBycAAAALZpcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEMAf//A3AAAAMAkAAAAwAAAwAeugJAIQABACpCAQEDcAAAAwCQAAADAAADAB6gIIEFluqumubgQEDAgAAAAwCAAAADAIQiAAEABkQBwXPBiQAAABRpc3BlAAAAAAAAAEAAAABAAAAAFGlzcGUAAAAAAAAAAgAAAAIAAAAQcGl4aQAAAAADCAgIAAAAGmlwbWEAAAAAAAAAAgABAoECAAICA4QAAAAaaXJlZgAAAAAAAAAOZGltZwACAAEAAQAAADptZGF0AAAALigBrxMhYmNA9Sci//fkn/yHuf8XdlhZ3K6AwVvy+sD2ZJvA86qRnoCHaacwFXg=",
        .avif:
            "AAAAIGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZk1BMUIAAADybWV0YQAAAAAAAAAoaGRscgAAAAAAAAAAcGljdAAAAAAAAAAAAAAAAGxpYmF2aWYAAAAADnBpdG0AAAAAAAEAAAAeaWxvYwAAAABEAAABAAEAAAABAAABGgAAABwAAAAoaWluZgAAAAAAAQAAABppbmZlAgAAAAABAABhdjAxQ29sb3IAAAAAamlwcnAAAABLaXBjbwAAABRpc3BlAAAAAAAAAAIAAAACAAAAEHBpeGkAAAAAAwgICAAAAAxhdjFDgQAMAAAAABNjb2xybmNseAABAA0ABoAAAAAXaXBtYQAAAAAAAAABAAEEAQKDBAAAACRtZGF0EgAKCBgANggIaDQgMg4YAAooooQAAJ4Fmou4QA==",
        .jxl: "/woIkAEKAQAAbAAAOABYAFhKKDGOTUQKxgzICaBOEg4yCk+mZADgwwSiAQCgABl8CQCACpVRxg1ezvV8+aHDYtrGdYa22rawJBFKIYkkDdCTBiYrSQA="
    ]

    /// A one-page PDF, 4 points square, with nothing on it (and a true cross-reference table, so
    /// that poppler has nothing to repair or report).
    static let blankPDF =
        "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
        + "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 4 4]>>endobj\nxref\n0 4\n0000000000 65535 f \n0000000009 00000 n \n"
        + "0000000052 00000 n \n0000000101 00000 n \ntrailer<</Size 4/Root 1 0 R>>\nstartxref\n160\n%%EOF\n"

    /// Applies the sandbox `setup` asks for; the applied steps' mask (negative when even
    /// no-new-privileges failed) and what could not be done.
    private static func enterSandbox(_ setup: IsolationWire.Setup) -> (Int32, String) {
        let paths = setup.readablePaths.map { strdup($0) }
        defer { paths.forEach { free($0) } }
        var report = [CChar](repeating: 0, count: 2048)
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 1
        let applied: Int32 = paths.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
            var options = imago_sandbox_options()
            options.address_space_bytes = UInt64(max(0, setup.memoryLimit))
            options.file_size_bytes = UInt64(max(0, setup.fileSizeLimit))
            options.open_files = 256
            options.namespaces = setup.namespaces ? 1 : 0
            options.landlock = setup.landlock ? 1 : 0
            options.seccomp = setup.seccomp ? 1 : 0
            options.read_paths = list.baseAddress
            options.read_path_count = list.count
            return report.withUnsafeMutableBufferPointer { imago_sandbox_enter(&options, $0.baseAddress, $0.count) }
        }
        var text = String(decoding: report.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if threads > 1 {
            text += "the worker had \(threads) threads when its sandbox was set up: Landlock and no-new-privileges hold for the first only\n"
        }
        return (applied, text)
    }

    /// The reply to one request: its message and the memory file that goes with it (or -1).
    private static func answer(_ body: Data, source: Int32, coders: ImageCoderRegistry, out: ReplyFile) -> (message: Data, fd: Int32) {
        guard let request = try? IsolationWire.decode(IsolationWire.Request.self, from: body) else {
            return failure(ImageCodingError.invalidArgument("a request the worker cannot read"), format: .png)
        }
        out.direct = request.direct ?? false
        do {
            let data = try mapped(source, length: request.sourceLength)
            let header: Data
            switch request.operation {
            case .info:
                header = try IsolationWire.encode(coders.info(of: data))
            case .decode:
                let options = request.options?.decodeOptions ?? DecodeOptions()
                header = try IsolationWire.encode(try out.write(coders.decode(data, options: options)))
            case .videoFrame:
                let limits = request.options?.decodeOptions.limits ?? .default
                let video = request.video ?? IsolationWire.VideoRequest(seconds: 1, keyframesOnly: false)
                let (image, info) = try VideoFrames.frame(of: data, at: video.seconds, keyframesOnly: video.keyframesOnly, limits: limits)
                header = try IsolationWire.encode(
                    IsolationWire.VideoHeader(
                        image: try out.write(image), duration: info.duration, width: info.size.width, height: info.size.height,
                        codec: info.codec, container: info.container, tags: info.tags))
            case .sanitizeSVG:
                let clean = try SVGSanitizer.sanitize(data, limits: request.options?.decodeOptions.limits ?? .default)
                header = try IsolationWire.encode(IsolationWire.Blob(offset: try out.append(clean), length: clean.count))
            case .exifFields, .xmpProperties:
                header = try IsolationWire.encode(metadataFields(request, data))
            }
            let offset = try out.append(header)
            let reply = IsolationWire.Reply(error: nil, headerOffset: offset, headerLength: header.count)
            return (try IsolationWire.encode(reply), out.fd)
        } catch {
            return failure(error, format: request.format)
        }
    }

    /// The fields of an EXIF block or an XMP packet, as the wire carries them.
    private static func metadataFields(_ request: IsolationWire.Request, _ data: Data) -> IsolationWire.MetadataFields {
        typealias Field = IsolationWire.MetadataFields.Field
        guard request.operation == .xmpProperties else {
            let fields = EXIFFields.fields(of: data, canonicalNames: request.canonicalNames ?? false)
            return .init(groups: [.init(prefix: "", fields: fields.map { Field(name: $0.name, text: $0.value) })])
        }
        let groups = XMPFields.properties(of: data).map { group in
            IsolationWire.MetadataFields.Group(
                prefix: group.prefix,
                fields: group.properties.map { property in
                    switch property.value {
                    case .text(let text): Field(name: property.name, text: text)
                    case .list(let list): Field(name: property.name, list: list)
                    }
                })
        }
        return .init(groups: groups)
    }

    private static func failure(_ error: any Error, format: ImageFormat) -> (message: Data, fd: Int32) {
        let reply = IsolationWire.Reply(error: IsolationWire.WireError(error, format: format))
        return ((try? IsolationWire.encode(reply)) ?? Data("{}".utf8), -1)
    }

    /// The source: the first `length` bytes of the file the host wrote it into (all of it when
    /// the request names no length), mapped read-only.
    private static func mapped(_ fd: Int32, length: Int?) throws -> Data {
        let fileSize = imago_file_size(fd)
        guard fd >= 0, fileSize >= 0 else { throw ImageCodingError.invalidArgument("no source came with the request") }
        let size = length ?? Int(fileSize)
        guard size >= 0, size <= fileSize else { throw ImageCodingError.invalidArgument("a source of \(size) bytes in a file of \(fileSize)") }
        guard size > 0 else { return Data() }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw ImageCodingError.invalidArgument("the source cannot be mapped (errno \(errno))")
        }
        return Data(bytesNoCopy: p, count: size, deallocator: .custom { p, n in munmap(p, n) })
    }
}

/// The memory file a worker answers in, blobs appended one after another: one file for the
/// worker's life, mapped into it and written from its start for each reply, so that a reply is
/// one copy into pages the kernel already has, not a write that faults in and zeroes new ones.
/// The host reads a reply (with `pread`, within the offsets the reply names) before it sends the
/// next request, so a reply is never overwritten while it is read; a worker that broke that rule
/// would only garble its own pixels, or make the host's reads come up short, which fails its
/// request.
private final class ReplyFile {
    /// The file, -1 until the first blob is written.
    private(set) var fd: Int32 = -1
    private var base: UnsafeMutableRawPointer?
    /// The file's size, all of it mapped at `base`.
    private var capacity = 0
    private var end = 0
    /// The host reads this reply's pixels in the worker's memory: frames name their addresses,
    /// and their images are kept (``held``) until the next request, or a second without one.
    var direct = false
    private var held: [Image] = []
    /// The file grows in steps of this many bytes.
    private static let step = 2 << 20

    deinit {
        unmap()
        if fd >= 0 { close(fd) }
    }

    /// The host has read the last reply (a request came after it, or none for a while): the
    /// images kept for it go, and a file far larger than it needed gives back its memory.
    func release() {
        held.removeAll()
        if IsolationWire.keptFileShrinks(capacity: capacity, needed: end) { try? resize(to: Self.rounded(end)) }
    }

    /// Starts a reply (the last one released).
    func begin() {
        release()
        end = 0
    }

    /// Appends `bytes`, returning their offset.
    func append(_ bytes: Data) throws -> Int {
        try append(count: bytes.count) { target in bytes.copyBytes(to: target.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
    }

    private func append(count: Int, _ write: (UnsafeMutableRawPointer) -> Void) throws -> Int {
        let (needed, overflow) = end.addingReportingOverflow(count)
        guard !overflow else { throw ImageCodingError.invalidArgument("a reply of more than \(Int.max) bytes") }
        if fd < 0 {
            fd = imago_memfd("imago-reply")
            guard fd >= 0 else { throw ImageCodingError.invalidArgument("no memory file for the reply (errno \(-fd))") }
        }
        if needed > capacity { try resize(to: Self.rounded(needed)) }
        let offset = end
        if count > 0, let base { write(base + offset) }
        end = needed
        return offset
    }

    /// The file made `size` bytes long and mapped whole; what it held below that is kept.
    private func resize(to size: Int) throws {
        unmap()
        capacity = 0
        guard ftruncate(fd, off_t(size)) == 0 else { throw ImageCodingError.invalidArgument("the reply cannot grow (errno \(errno))") }
        guard size > 0 else { return }
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            throw ImageCodingError.invalidArgument("the reply cannot be mapped (errno \(errno))")
        }
        base = p
        capacity = size
    }

    private func unmap() {
        if let base, capacity > 0 { munmap(base, capacity) }
        base = nil
    }

    private static func rounded(_ bytes: Int) -> Int {
        bytes == 0 ? 0 : (bytes + step - 1) / step * step
    }

    /// Writes a pixel buffer's bytes, returning where; a direct reply names where they lie in
    /// this process instead (the image that holds them is kept, ``held``, so they stay there).
    func write(_ buffer: PixelBuffer) throws -> IsolationWire.Frame {
        if direct {
            let (address, count) = buffer.withUnsafeBytes { (UInt64(UInt(bitPattern: $0.baseAddress)), $0.count) }
            return IsolationWire.Frame(
                width: buffer.width, height: buffer.height, bytesPerRow: buffer.bytesPerRow, format: buffer.format, duration: 0,
                bytes: IsolationWire.Blob(offset: 0, length: count), address: address)
        }
        let blob = try buffer.withUnsafeBytes { raw in
            IsolationWire.Blob(
                offset: try append(count: raw.count) { target in if let source = raw.baseAddress { target.copyMemory(from: source, byteCount: raw.count) } },
                length: raw.count)
        }
        return IsolationWire.Frame(
            width: buffer.width, height: buffer.height, bytesPerRow: buffer.bytesPerRow, format: buffer.format, duration: 0, bytes: blob)
    }

    /// Writes an image's frames and metadata, returning its header.
    func write(_ image: Image) throws -> IsolationWire.ImageHeader {
        if direct { held.append(image) }
        let frames = try image.frames.map { frame in
            var f = try write(frame.buffer)
            f.duration = frame.duration
            return f
        }
        func blob(_ data: Data?) throws -> IsolationWire.Blob? {
            guard let data else { return nil }
            return IsolationWire.Blob(offset: try append(data), length: data.count)
        }
        let map = image.metadata.gainMap
        return IsolationWire.ImageHeader(
            frames: frames, loopCount: image.loopCount, orientation: image.orientation, scale: image.scale, format: image.format,
            hasAlpha: image.hasAlpha, iccProfile: try blob(image.metadata.iccProfile), exif: try blob(image.metadata.exif),
            gainMap: try map.map { try write($0.pixels) }, gainMapXMP: try blob(map?.xmp), gainMapISO: try blob(map?.iso21496))
    }
}
