// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

// Child process for the isolation tests: a decoder worker (`ImagoDecoderWorkerProbe
// --imago-decoder-worker`) whose PNG decoder, registered like any coder, misbehaves when the data
// carries a marker (`imago-fault:KIND`, anywhere, usually after IEND) and decodes as PNGCoder
// otherwise. The kinds: segv, abort, loop, alloc (10 GB), socket, connect, exec, open (reads
// /etc/passwd), slow (sleeps 300 ms, then decodes).

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
    static func kind(in data: Data) -> String? {
        let marker = Data("imago-fault:".utf8)
        guard let range = data.range(of: marker) else { return nil }
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
        case "slow":
            usleep(300_000)
        default:
            break
        }
    }
}

ImageCoderRegistry.shared.add(FaultingPNGDecoder())
DecoderWorker.runIfRequested()
FileHandle.standardError.write(Data("usage: ImagoDecoderWorkerProbe \(DecoderWorker.argument) (started by DecoderIsolation)\n".utf8))
exit(2)
