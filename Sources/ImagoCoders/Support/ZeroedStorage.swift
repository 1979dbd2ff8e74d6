// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The Imago authors

import ImagoCore

/// Zero-filled pixel memory with a stable address that a C decoder writes into across
/// several calls (progressive decoding). Freed exactly once.
final class ZeroedStorage {
    let bytes: UnsafeMutableRawBufferPointer

    init(byteCount: Int) {
        bytes = .allocate(byteCount: byteCount, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { bytes.deallocate() }

    /// A copy of the bytes as a pixel buffer.
    func snapshot(width: Int, height: Int, format: PixelFormat, bytesPerRow: Int) throws -> PixelBuffer {
        try PixelBuffer(uninitializedWidth: width, height: height, format: format, bytesPerRow: bytesPerRow) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(bytes))
        }
    }
}
