// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Hummingbird
import ImagoCore
import NIOCore

extension ServiceResponse.Body {
    /// A Hummingbird body: a buffer as it is, or a file read 256 KiB at a time on the service's
    /// file queue (never on the cooperative pool) straight into the buffers written out.
    func hummingbird(reads: WorkQueue) -> ResponseBody {
        switch self {
        case .bytes(let buffer):
            return ResponseBody(byteBuffer: buffer)
        case .file(let file):
            return ResponseBody(contentLength: file.size) { writer in
                var offset = 0
                while offset < file.size {
                    let start = offset
                    let piece = try await reads.run { () throws -> ByteBuffer in
                        var buffer = ByteBufferAllocator().buffer(capacity: min(1 << 18, file.size - start))
                        let count = buffer.writableBytes
                        _ = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                            try file.read(at: start, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]))
                        }
                        return buffer
                    }
                    guard piece.readableBytes > 0 else { throw ServiceError(.sourceUnreadable, "the file ended early") }
                    offset += piece.readableBytes
                    try await writer.write(piece)
                }
                try await writer.finish(nil)
            }
        }
    }
}
