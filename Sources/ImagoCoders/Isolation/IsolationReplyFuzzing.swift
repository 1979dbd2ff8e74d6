// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import CImagoSandbox
import ImagoCore

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The host's side of a worker's reply, read from hostile bytes: a worker an exploit has taken
/// over may send anything, and the host must answer it with a typed error, never a trap, an
/// overread or an allocation past the request's limits. For the `isolationReply` fuzz target.
package enum IsolationReplyFuzzing {
    /// Small limits, so that a header naming many large frames is refused before anything is made.
    static let limits = DecodingLimits(maxPixels: 1 << 16, maxFrames: 8, maxTotalFramePixels: 1 << 18, maxBytes: 1 << 20)

    /// `input` as a reply file whose header is its first line (as a worker writes an image's,
    /// a video frame's, a metadata or a sanitised document's header), read every way the host
    /// reads one; the first line is also read as a worker's start-up message and as an error.
    package static func read(_ input: Data) {
        let line = input.firstIndex(of: UInt8(ascii: "\n")).map { input[input.startIndex..<$0] } ?? input[...]
        let header = Data(line)
        _ = try? IsolationWire.decode(IsolationWire.Ready.self, from: header)
        if let error = try? IsolationWire.decode(IsolationWire.WireError.self, from: header) {
            _ = error.error(format: .png)
        }
        let fd = imago_memfd("imago-reply")
        guard fd >= 0 else { return }
        defer { close(fd) }
        let written = input.withUnsafeBytes { imago_write_all(fd, $0.baseAddress, $0.count, 0) }
        guard written == 0, let reader = try? IsolatedImageReader(.init(fd: fd, pid: nil), format: .png, limits: limits) else { return }
        let reply = IsolationWire.Reply(error: nil, headerOffset: 0, headerLength: header.count)
        if let image = try? reader.image(reply) {
            precondition(image.frames.count <= limits.maxFrames && image.frames.allSatisfy { $0.buffer.width * $0.buffer.height <= limits.maxPixels })
        }
        _ = try? reader.videoFrame(reply)
        _ = try? reader.metadataFields(reply)
        _ = try? reader.document(reply)
    }
}
