// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoSandbox
import Foundation
import ImagoCore
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoCoders

/// Decoders out of process: a worker that crashes, loops, allocates without end or breaks its
/// sandbox costs its own request only, is replaced, and its data is quarantined. The workers
/// are `ImagoDecoderWorkerProbe`, whose PNG decoder faults on data marked `imago-fault:KIND`.
@Suite struct DecoderIsolationTests {
    static let probe = TestFiles.builtProduct("ImagoDecoderWorkerProbe")

    /// Events a pool reported, in order.
    final class Events: Sendable {
        let list = Mutex<[DecoderIsolation.Event]>([])
        var all: [DecoderIsolation.Event] { list.withLock { $0 } }
        var failures: [DecoderIsolation.Failure] {
            all.compactMap { if case .workerFailed(_, let f) = $0 { f } else { nil } }
        }
        var pids: [Int32] {
            all.compactMap { if case .workerStarted(let pid) = $0 { pid } else { nil } }
        }
    }

    /// A registry whose PNG decodes run in `workers` probe workers.
    static func isolated(workers: Int = 2, timeout: Duration = .seconds(20)) -> (ImageCoderRegistry, Events) {
        let events = Events()
        let isolation = DecoderIsolation(
            formats: [.png], workers: workers, executable: probe.path, timeout: timeout, quarantine: .seconds(600),
            memoryLimit: 2 << 30, onEvent: { event in events.list.withLock { $0.append(event) } })
        return (ImageCoderRegistry.makeDefault().isolating(isolation), events)
    }

    static func png(_ seed: Int = 1) throws -> Data {
        let image = Image(buffer: try Fixtures.noisy(width: 64, height: 48, seed: UInt32(seed)))
        return try ImageCoderRegistry.shared.encode(image, as: .png)
    }

    static func marked(_ kind: String) throws -> Data {
        try png() + Data("imago-fault:\(kind)".utf8)
    }

    @Test func decodesAsInProcess() async throws {
        let (coders, events) = Self.isolated()
        let data = try Self.png()
        let (inWorker, info) = try await blocking { (try coders.decode(data), try coders.info(of: data)) }
        let inProcess = try ImageCoderRegistry.shared.decode(data)
        #expect(inWorker.buffer == inProcess.buffer)
        #expect(inWorker.format == .png)
        #expect(info == (try ImageCoderRegistry.shared.info(of: data)))
        #expect(events.pids.count == 2)
        // Typed errors come back as the decoder threw them.
        let truncated = data.prefix(data.count / 2)
        let local = #expect(throws: ImageCodingError.self) { try ImageCoderRegistry.shared.decode(truncated) }
        let remote = await #expect(throws: ImageCodingError.self) { try await blocking { try coders.decode(truncated) } }
        #expect(local == remote)
        #expect(coders.isolationStatistics?.crashes == 0)
    }

    /// A worker keeps its source and reply files from one decode to the next: sources and
    /// replies of every size, one after another (a large one, which the files grow for, then small
    /// ones, which make them give the memory back, then large again), each decode as in process.
    @Test func filesKeptAcrossDecodes() async throws {
        let (coders, events) = Self.isolated(workers: 1)
        let large = try ImageCoderRegistry.shared.encode(Image(buffer: try Fixtures.noisy(width: 2600, height: 2000, seed: 7)), as: .png)
        for data in [large, try Self.png(1), try Self.png(2), large, try Self.png(3)] {
            let (inWorker, here) = try await blocking { (try coders.decode(data), try ImageCoderRegistry.shared.decode(data)) }
            #expect(inWorker.buffer == here.buffer)
        }
        #expect(events.pids.count == 1)
        #expect(coders.isolationStatistics?.replacements == 0)
    }

    /// A worker that died while idle (the kernel's OOM killer, an operator) is no fault of the
    /// next source: that request goes to a new worker and succeeds, and nothing is quarantined.
    @Test func idleWorkerDies() async throws {
        let (coders, events) = Self.isolated(workers: 1)
        _ = try await blocking { try coders.decode(try Self.png()) }
        let pid = try #require(events.pids.first)
        kill(pid, SIGKILL)
        try await poll(.seconds(60), every: .milliseconds(10)) {
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.contains(") Z ") ?? true
        }
        let image = try await blocking { try coders.decode(try Self.png(4)) }
        #expect(image.pixelSize == PixelSize(width: 64, height: 48))
        let stats = try #require(coders.isolationStatistics)
        #expect(stats.quarantined == 0 && stats.replacements == 1 && stats.liveWorkers == 1)
    }

    /// A worker taken over cannot make the host allocate or read past its reply: a frame past
    /// the limits, pixels outside the reply file, a header that is not JSON and pixels at an
    /// address of its memory that holds nothing each fail the request, and the worker that sent
    /// them is replaced.
    @Test(arguments: ["huge", "outside", "garbage", "address"])
    func lyingWorker(kind: String) async throws {
        let events = Events()
        let isolation = DecoderIsolation(
            formats: [.png], workers: 1, executable: Self.probe.path, arguments: ["--hostile", DecoderWorker.argument],
            onEvent: { event in events.list.withLock { $0.append(event) } })
        let coders = ImageCoderRegistry.makeDefault().isolating(isolation)
        let lie = try Self.png() + Data("imago-lie:\(kind)".utf8)
        let error = await #expect(throws: ImageCodingError.self) { try await blocking { try coders.decode(lie) } }
        #expect(String(describing: error).contains("malformed reply"), "\(String(describing: error))")
        #expect(coders.isolationStatistics?.replacements == 1)
        // The next worker (as hostile, but this source carries no lie) answers a true 2x2 image.
        let truthful = try await blocking { try coders.decode(try Self.png(3)) }
        #expect(truthful.pixelSize == PixelSize(width: 2, height: 2))
    }

    /// A video frame read by a worker (FFmpeg out of process) is the frame read here.
    @Test(.enabled(if: VideoFrames.isAvailable && VideoFixtures.isAvailable, "FFmpeg or ffmpeg is not installed"))
    func videoFramesInWorkers() async throws {
        let (coders, events) = Self.isolated(workers: 1)
        let clip = try await VideoFixtures.clip("mp4", seconds: 2)
        let (inWorker, here) = try await blocking { (try coders.videoFrame(of: clip, at: 1), try VideoFrames.frame(of: clip, at: 1)) }
        #expect(inWorker.image.buffer == here.image.buffer)
        #expect(inWorker.info == here.info)
        #expect(events.pids.count == 1)
    }

    /// Every kind of fault: the marked request fails with `.decoderFailed`, the pool is whole
    /// again, an ordinary decode works, and the same data is refused from the quarantine.
    @Test(arguments: ["segv", "abort", "alloc", "loop"])
    func faultCostsOneRequest(kind: String) async throws {
        let (coders, events) = Self.isolated(workers: 2, timeout: kind == "loop" ? .seconds(3) : .seconds(30))
        let bad = try Self.marked(kind)
        // Timed on the thread that waits, not through the test's task (which a loaded test run
        // may resume late).
        let (outcome, took) = await blocking { () -> (Result<Image, any Error>, Duration) in
            let started = ContinuousClock.now
            let outcome = Result { try coders.decode(bad) }
            return (outcome, ContinuousClock.now - started)
        }
        guard case .failure(ImageCodingError.decoderFailed(.png, let message)) = outcome else {
            Issue.record("expected decoderFailed, got \(outcome)")
            return
        }
        // Within the worker's time limit (and its start), however loaded the machine.
        #expect(took < .seconds(150), "\(took)")
        let failure = try #require(events.failures.first)
        switch kind {
        case "segv": #expect(failure == .crashed(signal: SIGSEGV, name: "SIGSEGV"), "\(message)")
        case "abort": #expect(failure == .crashed(signal: SIGABRT, name: "SIGABRT"), "\(message)")
        case "loop": #expect(failure == .timedOut(.seconds(3)), "\(message)")
        default:
            if case .crashed = failure {} else { Issue.record("an allocation past the limit should crash the worker: \(failure)") }
        }
        let stats = try #require(coders.isolationStatistics)
        #expect(stats.liveWorkers == 2)
        #expect(stats.replacements == 1)
        #expect(stats.quarantined == 1)
        // Ordinary work goes on.
        let good = try await blocking { try coders.decode(try Self.png(2)) }
        #expect(good.pixelSize == PixelSize(width: 64, height: 48))
        // The same bytes again: refused at once, no worker touched.
        let again = await #expect(throws: ImageCodingError.self) { try await blocking { try coders.decode(bad) } }
        if case .decoderFailed(_, let m) = again { #expect(m.contains("quarantined")) } else { Issue.record("\(String(describing: again))") }
        #expect(coders.isolationStatistics?.quarantineHits == 1)
        #expect(events.failures.count == 1)
    }

    /// The sandbox stops a worker that opens a socket, connects, or runs a program: it is killed
    /// by the seccomp filter (`SIGSYS`); and a file it was not handed cannot be opened.
    @Test(arguments: ["socket", "connect", "exec"])
    func sandboxKills(kind: String) async throws {
        let (coders, events) = Self.isolated(workers: 1)
        let bad = try Self.marked(kind)
        await #expect(throws: ImageCodingError.self) { try await blocking { try coders.decode(bad) } }
        #expect(events.failures == [.stoppedBySandbox])
        #expect(coders.isolationStatistics?.kills == 1)
    }

    /// A file the worker was not handed cannot be read: in its own mount namespace it does not
    /// exist (ENOENT); where the host refuses namespaces, Landlock refuses it (EACCES).
    @Test func sandboxHidesFiles() async throws {
        let namespaces = await SandboxHost.namespaces()
        try #require(namespaces || SandboxHost.landlock, "the host refuses namespaces and Landlock: the worker's log lines say so")
        let (coders, _) = Self.isolated(workers: 1)
        let bad = try Self.marked("open")
        let error = await #expect(throws: ImageCodingError.self) { try await blocking { try coders.decode(bad) } }
        let message = String(describing: error)
        #expect(message.contains(namespaces ? "errno 2" : "errno 13"), "\(message)")
        #expect(!message.contains("root:"))
    }

    /// In its mount namespace a worker's file system holds the readable paths alone: no home
    /// directories, no `/proc`, no `/tmp`, no `/etc` beyond `/etc/fonts`.
    @Test func workerSeesReadablePathsOnly() async throws {
        try #require(await SandboxHost.namespaces(), "the host refuses namespaces: the worker's log line says so")
        let (coders, _) = Self.isolated(workers: 1)
        let error = await #expect(throws: ImageCodingError.self) { try await blocking { try coders.decode(try Self.marked("stat")) } }
        guard case .corrupt(_, let message) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        // Of /home, /root, /proc/self, /etc/passwd, /tmp, /usr/lib and /etc/fonts: the last two.
        let readable = ["/usr/lib", "/etc/fonts"].filter { FileManager.default.fileExists(atPath: $0) }
        #expect(message == "seen: \(readable.joined(separator: " "))")
    }

    /// A worker gets the variables its libraries read, and none of the host's keys or credentials.
    @Test func workerEnvironmentLeavesSecretsOut() {
        let host = [
            "IMAGO_KEY": "k", "IMAGO_SALT": "s", "IMAGO_SECRET": "x", "AWS_SECRET_ACCESS_KEY": "a", "AWS_ACCESS_KEY_ID": "i",
            "IMGPROXY_KEY": "k", "DATABASE_URL": "d", "SWIFT_BACKTRACE": "enable=yes", "PATH": "/usr/bin", "LANG": "C.UTF-8",
            "LC_ALL": "de_DE.UTF-8", "FONTCONFIG_PATH": "/etc/fonts", "XDG_CACHE_HOME": "/c", "MALLOC_ARENA_MAX": "2"
        ]
        #expect(
            DecoderProcess.workerEnvironment(host) == [
                "FONTCONFIG_PATH=/etc/fonts", "LANG=C.UTF-8", "LC_ALL=de_DE.UTF-8", "MALLOC_ARENA_MAX=2", "PATH=/usr/bin",
                "XDG_CACHE_HOME=/c", "SWIFT_BACKTRACE=enable=no"
            ])
    }

    /// `/proc/PID/status` of a worker: no new privileges and a seccomp filter, wherever it runs.
    /// The namespaces and Landlock are the host's to allow (a container's seccomp profile may
    /// refuse `unshare`): each step the host allows is applied, and each it refuses, and only
    /// those, is named in the worker's report.
    @Test("an SVG passed through is sanitised by a worker where SVG is isolated (libxml2 parses it there), as in process")
    func sanitizesSVGInAWorker() async throws {
        let events = Events()
        let isolation = DecoderIsolation(
            formats: [.svg], workers: 1, executable: Self.probe.path, timeout: .seconds(20), quarantine: .seconds(600),
            memoryLimit: 2 << 30, onEvent: { event in events.list.withLock { $0.append(event) } })
        let coders = ImageCoderRegistry.makeDefault().isolating(isolation)
        let svg = Data(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)"><script>alert(2)</script><rect width="10" height="10" fill="red"/></svg>"#
                .utf8)
        let clean = try await blocking { try coders.sanitizedSVG(svg) }
        #expect(clean == (try SVGSanitizer.sanitize(svg)))
        let text = String(decoding: clean, as: UTF8.self)
        #expect(!text.contains("script") && !text.contains("onload") && text.contains("<rect"), "\(text)")
        #expect(events.pids.count == 1)
        // What the sanitiser refuses comes back as the error it threw.
        let entity = Data(#"<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>"#.utf8)
        let local = #expect(throws: ImageCodingError.self) { try SVGSanitizer.sanitize(entity) }
        let remote = await #expect(throws: ImageCodingError.self) { try await blocking { try coders.sanitizedSVG(entity) } }
        #expect(local == remote)
        #expect(coders.isolationStatistics?.crashes == 0)
    }

    @Test("/info's EXIF and XMP fields are read by a worker where any format is isolated (libexif, libxml2), as in process")
    func metadataFieldsInAWorker() async throws {
        let (coders, events) = Self.isolated(workers: 1)
        // A TIFF block with one entry, Make (0x010F, ASCII, 6 bytes at offset 26): "Imago".
        let exif = Data([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x0F, 0x01, 2, 0, 6, 0, 0, 0, 26, 0, 0, 0, 0, 0, 0, 0] + Array("Imago\0".utf8))
        let xmp = Data(
            #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/jpeg"><dc:creator><rdf:Seq><rdf:li>A</rdf:li><rdf:li>B</rdf:li></rdf:Seq></dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>"#
                .utf8)
        let (fields, names, properties) = try await blocking {
            (try coders.exifFields(of: exif), try coders.exifFields(of: exif, canonicalNames: true), try coders.xmpProperties(of: xmp))
        }
        #expect(events.pids.count == 1)
        let local = EXIFFields.fields(of: exif)
        #expect(fields.map(\.name) == local.map(\.name) && fields.map(\.value) == local.map(\.value))
        #expect(names.contains { $0.name == "Make" && $0.value == "Imago" }, "\(names)")
        let expected = XMPFields.properties(of: xmp)
        #expect(properties.map(\.prefix) == ["dc"] && properties.map(\.prefix) == expected.map(\.prefix))
        #expect(properties.first?.properties.map(\.name) == expected.first?.properties.map(\.name))
        #expect(properties.first?.properties.map(\.value) == [.text("image/jpeg"), .list(["A", "B"])])
        // Data libexif or libxml2 cannot read gives no fields, as in process.
        #expect(try await blocking { try coders.exifFields(of: Data("not exif".utf8)).isEmpty && coders.xmpProperties(of: Data("<x".utf8)).isEmpty })
    }

    @Test("an idle worker lets go of its last decode within a second or so of it")
    func idleWorkerKeepsNoDecode() async throws {
        let (coders, events) = Self.isolated(workers: 1)
        // 3000x3000 at 4 bytes a pixel: 36 MB, a block glibc maps on its own and unmaps when freed.
        let blank = try PixelBuffer(width: 3000, height: 3000, format: .argb32Premultiplied)
        let data = try ImageCoderRegistry.shared.encode(Image(buffer: blank), as: .png)
        let image = try await blocking { try coders.decode(data) }
        #expect(image.pixelSize == PixelSize(width: 3000, height: 3000))
        let pid = try #require(events.pids.first)
        func anonymous() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? Int.max / 1024) * 1024
        }
        var held = anonymous()
        for _ in 0..<100 where held >= 30 << 20 {
            try await Task.sleep(for: .milliseconds(50))
            held = anonymous()
        }
        #expect(held < 30 << 20, "the idle worker holds \(held >> 20) MB of anonymous memory")
    }

    @Test("PDF in a worker: poppler is loaded before the sandbox, and a page is drawn as in process")
    func pdfInAWorker() async throws {
        let events = Events()
        let isolation = DecoderIsolation(
            formats: [.png, .pdf], workers: 1, executable: Self.probe.path, timeout: .seconds(20), quarantine: .seconds(600),
            memoryLimit: 2 << 30, onEvent: { event in events.list.withLock { $0.append(event) } })
        let coders = ImageCoderRegistry.makeDefault().isolating(isolation)
        _ = try await blocking { try coders.decode(try Self.png()) }
        let pid = try #require(events.pids.first)
        // Read to its end: /proc files state no size, and a whole-file read may stop at a page.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        try handle.close()
        #expect(maps.contains("libpoppler"), "poppler is not mapped in the worker before its first PDF")
        let pdf = TestPDF.make(pages: [(width: 200, height: 100, rotate: 0), (width: 100, height: 60, rotate: 90)])
        let second = {
            var options = DecodeOptions()
            options.page = 1
            return options
        }()
        let (page, other, info) = try await blocking { (try coders.decode(pdf), try coders.decode(pdf, options: second), try coders.info(of: pdf)) }
        #expect(page.buffer == (try ImageCoderRegistry.shared.decode(pdf)).buffer)
        #expect(other.buffer == (try ImageCoderRegistry.shared.decode(pdf, options: second)).buffer)
        #expect(other.pixelSize == PixelSize(width: 60, height: 100))
        #expect(info == (try ImageCoderRegistry.shared.info(of: pdf)))
        // Text in a font the document does not embed: fontconfig and FreeType, inside the sandbox.
        let text = try await blocking { try coders.decode(TestPDF.text()) }
        let inProcess = try ImageCoderRegistry.shared.decode(TestPDF.text()).buffer
        #expect(text.buffer == inProcess)
        #expect(Set(inProcess.bytes).count > 2, "the text drew nothing")
        #expect(events.pids.count == 1)
    }

    @Test func workerStatus() async throws {
        let (coders, events) = Self.isolated(workers: 1)
        _ = try await blocking { try coders.decode(try Self.png()) }
        let pid = try #require(events.pids.first)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        #expect(status.contains("NoNewPrivs:\t1"))
        #expect(status.contains("Seccomp:\t2"))
        if await SandboxHost.namespaces() {
            #expect(status.contains("CapEff:\t0000000000000000"), "the namespace's capabilities are kept")
        }
        // The CPU-time limit was moved before the request: the timeout (20 s) and 2 s past what the
        // worker had used, rounded up; the hard limit is left as it was.
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let cpu = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max cpu time") })
        let fields = cpu.dropFirst("Max cpu time".count).split(separator: " ")
        let soft = try #require(Int(fields.first ?? ""), "\(cpu)")
        #expect((23..<83).contains(soft) && fields.dropFirst().first == "unlimited", "\(cpu)")
        let incomplete = events.all.compactMap { if case .sandboxIncomplete(let s) = $0 { s } else { nil } }
        let namespaces = await SandboxHost.namespaces()
        let expected = (namespaces ? [] : ["namespaces"]) + (SandboxHost.landlock ? [] : ["landlock"])
        #expect(incomplete.map { String($0.prefix { $0 != ":" }) } == expected, "\(incomplete)")
        // Its environment is the part of this process's that its libraries read, and no more.
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(variables.sorted() == DecoderProcess.workerEnvironment(ProcessInfo.processInfo.environment).sorted())
        if namespaces {
            for kind in ["user", "net", "ipc", "mnt"] {
                let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/\(kind)")
                let its = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/\(kind)")
                #expect(ours != its, "\(kind): \(its)")
            }
        }
    }
}

/// What this host lets a sandbox do, found without Imago's sandbox code.
enum SandboxHost {
    /// Whether Landlock answers its ABI version (built in, enabled at boot, not refused by a
    /// container's seccomp profile).
    static let landlock = imago_landlock_abi() > 0

    /// Whether an unprivileged process may make user, network, IPC and mount namespaces:
    /// util-linux's `unshare` tries what a worker does.
    static func namespaces() async -> Bool {
        let tool = URL(fileURLWithPath: "/usr/bin/unshare")
        let outcome = try? await Subprocess.run(tool, ["--user", "--net", "--ipc", "--mount", "true"])
        return outcome?.0 == 0
    }
}
