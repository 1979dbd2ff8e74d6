// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CZlib
import ImagoCore

/// gzip streams (an `svgz` document), inflated by zlib with the output bounded before it grows.
enum Gzip {
    /// Whether `bytes` start with gzip's magic number.
    static func isGzip(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0x1F, 0x8B])
    }

    /// The inflated bytes of the gzip stream `bytes`.
    ///
    /// - Throws: `.exceedsLimit(.maxBytes, …)` once the output passes `maxBytes` (a "zip bomb"
    ///   stops there, unread); `.corrupt(format, …)` with zlib's reason for a broken or truncated
    ///   stream.
    static func inflate(_ bytes: [UInt8], maxBytes: Int, format: ImageFormat) throws -> [UInt8] {
        var stream = z_stream()
        // 16 + 15: a gzip header, the largest window.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ImageCodingError.corrupt(format, "zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = bytes
        return try input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(clamping: source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                guard out.count + produced <= maxBytes else {
                    throw ImageCodingError.exceedsLimit(.maxBytes, found: out.count + produced, limit: maxBytes)
                }
                out.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_STREAM_END: return out
                case Z_OK: continue
                case Z_BUF_ERROR where produced > 0: continue
                default:
                    let reason = stream.msg.map { String(cString: $0) } ?? (status == Z_BUF_ERROR ? "the stream is truncated" : "code \(status)")
                    throw ImageCodingError.corrupt(format, "the gzip stream does not inflate: \(reason)")
                }
            }
        }
    }
}
