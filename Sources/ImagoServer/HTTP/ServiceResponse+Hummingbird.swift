// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import Hummingbird
import ImagoCoders
import ImagoCore
import NIOCore

extension ServiceResponse.Body {
    /// A Hummingbird body: a buffer as it is, or a file (or part of one) read 256 KiB at a time
    /// on the service's file queue (never on the cooperative pool) straight into the buffers
    /// written out.
    func hummingbird(reads: WorkQueue) -> ResponseBody {
        switch self {
        case .bytes(let buffer):
            return ResponseBody(byteBuffer: buffer)
        case .file(let file):
            return Self.streamed(file, 0..<file.size, reads: reads)
        case .filePart(let file, let range):
            return Self.streamed(file, range, reads: reads)
        }
    }

    /// `range` of `file`, read 256 KiB at a time on `reads`.
    private static func streamed(_ file: ImageFile, _ range: Range<Int>, reads: WorkQueue) -> ResponseBody {
        ResponseBody(contentLength: range.count) { writer in
            var offset = range.lowerBound
            while offset < range.upperBound {
                let start = offset
                let piece = try await reads.run { () throws -> ByteBuffer in
                    var buffer = ByteBufferAllocator().buffer(capacity: min(1 << 18, range.upperBound - start))
                    // The allocator may round the capacity up: never past the range's end.
                    let count = min(buffer.writableBytes, range.upperBound - start)
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
