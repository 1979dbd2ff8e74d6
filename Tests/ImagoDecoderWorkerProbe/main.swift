// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Child process for the isolation tests: a decoder worker (`ImagoDecoderWorkerProbe
// --imago-decoder-worker`) whose PNG decoder, registered like any coder, misbehaves when the data
// carries a marker (`imago-fault:KIND`, anywhere, usually after IEND) and decodes as PNGCoder
// otherwise. The kinds: segv, abort, loop, alloc (10 GB), socket, connect, exec, open (reads
// /etc/passwd), slow (sleeps 300 ms, then decodes). With `--hostile`, a worker that lies in its
// replies instead (HostileWorker). With `--decode-all MAXPIXELS MAXBYTES FILE...`, a process of
// its own that decodes each file with the default coders and those limits, then prints its peak
// resident memory (MalformedCorpusTests: the memory of those decodes alone, not of every test
// running beside them).

import CImagoSandbox
import Foundation
import ImagoCoders
import ImagoCore

struct FaultingPNGDecoder: ImageDecoding {
    let png = PNGCoder()

    func canDecode(_ format: ImageFormat) -> Bool { format == .png }

    func info(of data: Data) throws -> ImageInfo {
        try fault(in: data)
        return try png.info(of: data)
    }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try fault(in: data)
        return try png.decode(data, options: options)
    }

    /// The marker's kind, when the data carries one.
    static func kind(in data: Data, marker: String = "imago-fault:") -> String? {
        guard let range = data.range(of: Data(marker.utf8)) else { return nil }
        let rest = data[range.upperBound...].prefix { $0 >= 0x61 && $0 <= 0x7A }
        return String(decoding: rest, as: UTF8.self)
    }

    func fault(in data: Data) throws {
        guard let kind = Self.kind(in: data) else { return }
        switch kind {
        case "segv":
            if let p = UnsafeMutablePointer<Int32>(bitPattern: 0x10) { p.pointee = 1 }
        case "abort":
            abort()
        case "loop":
            var n = 0
            while true {
                n &+= 1
                if n == Int.min { print(n) }
            }
        case "alloc":
            let bytes = [UInt8](repeating: 1, count: 10 << 30)
            print(bytes[bytes.count / 2])
        case "socket":
            let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            throw ImageCodingError.corrupt(.png, "socket() returned \(s), errno \(errno)")
        case "connect":
            // The worker's own socket, pointed at a loopback address: the call itself is refused.
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(9).bigEndian
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            let r = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(3, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            throw ImageCodingError.corrupt(.png, "connect() returned \(r), errno \(errno)")
        case "exec":
            let r = execv("/bin/true", [strdup("/bin/true"), nil])
            throw ImageCodingError.corrupt(.png, "execv() returned \(r), errno \(errno)")
        case "open":
            let fd = open("/etc/passwd", O_RDONLY)
            if fd >= 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                let n = read(fd, &buffer, 64)
                throw ImageCodingError.corrupt(.png, "read /etc/passwd: \(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self))")
            }
            throw ImageCodingError.corrupt(.png, "open /etc/passwd failed: errno \(errno) (\(String(cString: strerror(errno))))")
        case "stat":
            // Which of these paths the worker can see at all (stat, which Landlock does not check).
            let paths = ["/home", "/root", "/proc/self", "/etc/passwd", "/tmp", "/usr/lib", "/etc/fonts"]
            let seen = paths.filter { path in
                var status = stat()
                return stat(path, &status) == 0
            }
            throw ImageCodingError.corrupt(.png, "seen: \(seen.joined(separator: " "))")
        case "slow":
            usleep(300_000)
        default:
            break
        }
    }
}

/// A worker taken over: it speaks the protocol but lies in its replies, by the marker of the
/// source it is given (`imago-lie:huge`, a frame past every limit; `outside`, pixels past the end
/// of its file; `garbage`, a header that is not JSON; `address`, pixels at an address of its
/// memory that holds nothing; otherwise a true 2x2 image), so the host's checks of a reply are
/// tested. It keeps the host's probe as an honest worker does, so the host reads pixels in its
/// memory where it may. Started with `--hostile` before the worker argument.
enum HostileWorker {
    static func run() -> Never {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var fd: Int32 = -1
        let setup = buffer.withUnsafeMutableBytes { imago_receive(3, $0.baseAddress, $0.count, &fd, -1) }
        let probe = (field("probe", in: Data(buffer.prefix(max(0, setup)))) as? [Int])?.map { UInt8(truncatingIfNeeded: $0) } ?? []
        let kept = UnsafeMutableRawPointer.allocate(byteCount: max(1, probe.count), alignment: 16)
        kept.copyMemory(from: probe, byteCount: probe.count)
        send(#"{"applied":0,"report":"","pid":\#(getpid()),"probe":\#(UInt(bitPattern: kept))}"#, fd: -1)
        while true {
            let n = buffer.withUnsafeMutableBytes { imago_receive(3, $0.baseAddress, $0.count, &fd, -1) }
            guard n > 0 else { exit(0) }
            let length = field("sourceLength", in: Data(buffer.prefix(n))) as? Int
            let size = length ?? Int(max(0, imago_file_size(fd)))
            var source = [UInt8](repeating: 0, count: size)
            _ = source.withUnsafeMutableBytes { imago_read_all(fd, $0.baseAddress, $0.count, 0) }
            close(fd)
            let kind = FaultingPNGDecoder.kind(in: Data(source), marker: "imago-lie:") ?? ""
            reply(kind, direct: field("direct", in: Data(buffer.prefix(n))) as? Bool ?? false)
        }
    }

    /// A top-level field of a JSON message.
    static func field(_ name: String, in message: Data) -> Any? {
        ((try? JSONSerialization.jsonObject(with: message)) as? [String: Any])?[name]
    }

    /// The pixels of a direct reply, kept where the host reads them.
    nonisolated(unsafe) static let held: UnsafeMutableRawPointer = {
        let p = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        p.initializeMemory(as: UInt8.self, repeating: 255, count: 16)
        return p
    }()

    static func reply(_ kind: String, direct: Bool) {
        let pixels = [UInt8](repeating: 255, count: 16)
        let frame: String
        switch kind {
        case "huge": frame = frameJSON(width: 100_000, height: 100_000, offset: 0, length: 40_000_000_000)
        case "outside": frame = frameJSON(width: 2, height: 2, offset: 1_000_000, length: 16)
        case "address": frame = frameJSON(width: 2, height: 2, offset: 0, length: 16, address: 4096)
        default: frame = frameJSON(width: 2, height: 2, offset: 0, length: 16, address: direct ? UInt(bitPattern: held) : nil)
        }
        let header = kind == "garbage" ? "not a header" : #"{"frames":[\#(frame)],"loopCount":1,"orientation":1,"scale":1,"format":"png","hasAlpha":true}"#
        let file = imago_memfd("hostile")
        _ = pixels.withUnsafeBytes { imago_write_all(file, $0.baseAddress, $0.count, 0) }
        let bytes = Array(header.utf8)
        _ = bytes.withUnsafeBytes { imago_write_all(file, $0.baseAddress, $0.count, 16) }
        send(#"{"headerOffset":16,"headerLength":\#(bytes.count)}"#, fd: file)
        close(file)
    }

    static func frameJSON(width: Int, height: Int, offset: Int, length: Int, address: UInt? = nil) -> String {
        let at = address.map { #","address":\#($0)"# } ?? ""
        let size = #""width":\#(width),"height":\#(height),"bytesPerRow":\#(width * 4),"format":"argb32Premultiplied","duration":0"#
        return #"{\#(size),"bytes":{"offset":\#(offset),"length":\#(length)}\#(at)}"#
    }

    static func send(_ text: String, fd: Int32) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { imago_send(3, $0.baseAddress, $0.count, fd) }
    }
}

/// Decodes each file in process, then prints `peak-rss BYTES` and exits.
enum DecodeAll {
    static func run(_ arguments: [String]) -> Never {
        guard arguments.count >= 2, let pixels = Int(arguments[0]), let bytes = Int(arguments[1]) else { exit(2) }
        let coders = ImageCoderRegistry.makeDefault()
        let options = DecodeOptions(limits: DecodingLimits(maxPixels: pixels, maxBytes: bytes))
        for path in arguments.dropFirst(2) {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            _ = try? coders.info(of: data)
            _ = try? coders.decode(data, options: options)
        }
        // VmHWM, this address space's own high-water mark: getrusage's maxrss keeps the spawning
        // parent's, recorded when the child's exec replaced the memory it shared with it.
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        print("peak-rss \((kilobytes ?? -1) * 1024)")
        exit(kilobytes == nil ? 3 : 0)
    }
}

if CommandLine.arguments.dropFirst().first == "--decode-all" { DecodeAll.run(Array(CommandLine.arguments.dropFirst(2))) }
if CommandLine.arguments.dropFirst().first == "--hostile" { HostileWorker.run() }
ImageCoderRegistry.shared.add(FaultingPNGDecoder())
DecoderWorker.runIfRequested()
FileHandle.standardError.write(Data("usage: ImagoDecoderWorkerProbe \(DecoderWorker.argument) (started by DecoderIsolation)\n".utf8))
exit(2)
